"""Static proxy for issue 20's loop rows, without a GPU: the SASS of simt's kernels
against their nvcc twins, loop by loop.

For each kernel of bench/algorithms.py's "loops as users write them" rows, simt's
generated CUDA (Kernel.inspect_source, dialect "cuda") and the hand-written twin in
cuda/algorithms.cu are both compiled by nvcc for sm_90 (-O3, so only the source
differs: NVRTC, which simt uses at run time, runs the same NVVM and ptxas), and
disassembled with nvdisasm. Each loop (a backward branch and the code from its
target) is printed with its instruction counts: all of them, global loads and stores
(an unrolled loop has several per trip: `per LDG` normalizes that), 64-bit integer
work (carry halves `.X`/`.EX`, wide multiplies), selects, compares and calls (the
64-bit division subroutine); the main loop (most global accesses per trip, the
unrolled one that runs the bulk) is marked `*`. A kernel without loops (the box
blur, unrolled whole) is counted as one straight-line body. Instruction counts are a
proxy: memory-bound kernels care about loads in flight more than about issue slots;
GPU timings are in docs/performance.md.

    python3 bench/sass_loops.py [--nvdisasm PATH] [--keep DIR]

Needs nvcc and nvdisasm (CUDA toolkit, or `pip install nvidia-cuda-nvdisasm`);
no GPU.
"""

import argparse
import glob
import os
import re
import shutil
import subprocess
import sys
import tempfile

import numpy as np

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, HERE)

import algorithms  # noqa: E402  (simt's kernels of the GPU rows)

TWINS = os.path.join(HERE, "cuda", "algorithms.cu")


def examples():
    """(row, simt kernel, example arguments, twin's function name) per row."""
    x = np.zeros(1 << 12, np.float32)
    one = np.zeros(1, np.float32)
    a = np.zeros((64, 256), np.float32)
    found = np.zeros(64, np.int64)
    img = np.zeros((64, 64), np.float32)
    return [
        ("reduce, grid-stride while", "reduce_while", (x, one), "reduce_sum_warp0"),
        ("reduce, grid-stride range", "reduce_warp0", (x, one), "reduce_sum_warp0"),
        ("range, step an argument", "scale_step", (x, x, 0, 4096), "scale_step"),
        ("first above, break", "first_above", (a, found, np.float32(0.5)), "first_above"),
        ("5x5 box blur", "box_blur", (img, img), "box_blur"),
    ]


def find_nvdisasm(given):
    if given:
        return given
    found = shutil.which("nvdisasm")
    if found:
        return found
    cuda = os.environ.get("CUDA_HOME", "/usr/local/cuda")
    candidates = [os.path.join(cuda, "bin", "nvdisasm")]
    for path in sys.path:  # the pip package nvidia-cuda-nvdisasm
        candidates += glob.glob(os.path.join(path, "nvidia", "cu*", "bin", "nvdisasm"))
    for candidate in candidates:
        if os.access(candidate, os.X_OK):
            return candidate
    sys.exit("nvdisasm not found: install the CUDA toolkit or `pip install "
             "nvidia-cuda-nvdisasm`, or pass --nvdisasm")


def compile_sass(source_path, nvdisasm):
    cubin = source_path + ".cubin"
    subprocess.run(["nvcc", "-O3", "-arch=sm_90", "-cubin", "-o", cubin, source_path],
                   check=True)
    return subprocess.run([nvdisasm, "-c", cubin], check=True, capture_output=True,
                          text=True).stdout


INSTRUCTION = re.compile(r"/\*([0-9a-f]{4,})\*/\s+(@!?U?P\w+\s+)?([A-Z][A-Z0-9_.]*)([^;]*);")
LABEL = re.compile(r"^(\.L_x_\d+):")
BRANCH_TARGET = re.compile(r"`\((\.L_x_\d+)\)")


def functions(sass):
    """{function name: [(address, opcode, operands, label or None)]} of a disassembly."""
    out = {}
    current = None
    pending = None
    for line in sass.splitlines():
        section = re.match(r"\s*\.text\.(\S+):", line)
        if section:
            current = out.setdefault(section.group(1), [])
            continue
        if current is None:
            continue
        if line.lstrip().startswith(".type") and "@function" in line:
            current = None  # a subroutine appended to the kernel (div_u64): not its body
            continue
        label = LABEL.match(line.strip())
        if label:
            pending = label.group(1)
            continue
        m = INSTRUCTION.search(line)
        if m:
            current.append((int(m.group(1), 16), m.group(3), m.group(4), pending))
            pending = None
    return out


def body(instructions):
    """The instructions up to the kernel's final self-branch and NOP padding."""
    out = [i for i in instructions if i[1] != "NOP"]
    while out and out[-1][1] == "BRA" and out[-1][3] and out[-1][3] in out[-1][2]:
        out.pop()  # `.L_x_N: BRA .L_x_N`, the end-of-kernel trap
    return out


def loops(instructions):
    """[(first, last index)] of every backward branch's span, innermost first."""
    where = {i[3]: k for k, i in enumerate(instructions) if i[3]}
    spans = []
    for k, (_, opcode, operands, _) in enumerate(instructions):
        target = BRANCH_TARGET.search(operands)
        if opcode == "BRA" and target and where.get(target.group(1), k + 1) <= k:
            spans.append((where[target.group(1)], k))
    return sorted(spans, key=lambda s: s[1] - s[0])


CATEGORIES = (
    ("instrs", lambda op, args: True),
    ("LDG", lambda op, args: op.startswith("LDG")),
    ("STG", lambda op, args: op.startswith("STG")),
    ("64-bit", lambda op, args: bool(re.search(r"\.(X|EX|WIDE|HI|64)\b", op))
     or "SHF.L.U64" in op),
    ("SEL", lambda op, args: op.startswith(("SEL", "FSEL"))),
    ("ISETP", lambda op, args: op.startswith("ISETP")),
    ("CALL", lambda op, args: op.startswith("CALL")),
)


def counts(instructions):
    return {name: sum(1 for _, op, args, _ in instructions if test(op, args))
            for name, test in CATEGORIES}


def report(side, instructions):
    """[(side, where, counts)]: each loop, the main one (most global accesses per trip,
    then fewest instructions: the unrolled loop that runs the bulk) marked `*`."""
    spans = loops(instructions)
    if not spans:
        return [(side, "whole kernel (no loop)", counts(instructions))]
    rows = []
    for first, last in spans:
        nested = sum(1 for f, la in spans if first <= f and la <= last) - 1
        what = f"loop {instructions[first][0]:#06x}-{instructions[last][0]:#06x}"
        if nested:
            what += f" (holds {nested})"
        rows.append((side, what, counts(instructions[first:last + 1])))
    main = max(range(len(rows)),
               key=lambda k: (rows[k][2]["LDG"] + rows[k][2]["STG"], -rows[k][2]["instrs"]))
    rows[main] = (side, "*" + rows[main][1], rows[main][2])
    return rows


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--nvdisasm", help="path of nvdisasm (default: found)")
    parser.add_argument("--keep", help="write the sources, cubins and SASS to this folder")
    args = parser.parse_args()
    nvdisasm = find_nvdisasm(args.nvdisasm)
    if not shutil.which("nvcc"):
        sys.exit("nvcc not found on PATH")
    folder = args.keep or tempfile.mkdtemp(prefix="simt_sass_")
    os.makedirs(folder, exist_ok=True)
    twin_copy = os.path.join(folder, "algorithms.cu")
    shutil.copyfile(TWINS, twin_copy)
    twins = functions(compile_sass(twin_copy, nvdisasm))
    header = f"{'row':<28} {'side':<5} {'where':<26}" + "".join(
        f" {name:>7}" for name, _ in CATEGORIES) + f" {'per LDG':>8}"
    print(header)
    print("-" * len(header))
    for row, name, example, twin in examples():
        source = algorithms.SIMT[name].inspect_source(*example, dialect="cuda")
        path = os.path.join(folder, f"simt_{name}.cu")
        with open(path, "w") as f:
            f.write(source)
        mine = functions(compile_sass(path, nvdisasm))
        (kernel,) = [k for k in mine if k.startswith("simt_kernel_")]
        lines = report("simt", body(mine[kernel])) + report("nvcc", body(twins[twin]))
        for side, what, c in lines:
            per = f"{c['instrs'] / c['LDG']:.1f}" if c["LDG"] else "-"
            print(f"{row:<28} {side:<5} {what:<26}" +
                  "".join(f" {c[n]:>7}" for n, _ in CATEGORIES) + f" {per:>8}")
            row = ""
        print()
    if args.keep:
        print(f"sources and cubins in {folder}")
    else:
        shutil.rmtree(folder)


if __name__ == "__main__":
    main()
