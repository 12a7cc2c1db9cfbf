"""Instructions per warm launch on the cpu device, counted by valgrind's callgrind: a
measure of the launch path's host work that the noise of shared cores does not move
(timings on them vary by 10-30% from run to run; these counts by a few instructions).

Run: python3 bench/launch_instructions.py [--launches N]   (needs valgrind; ~1 min per row)

Each row runs a child process twice under callgrind, with 0 and with N launches, and
prints the difference of the main thread's instruction counts over N: one loop iteration
at module level (the interpreter's own name lookups and loop), the launch, and the cpu
device's run of the empty kernel (CpuDevice::queue_launch, about 730, which a GPU does not
pay). Rows: a kept launcher `l4(y, y, 1.0, 2)` (y a simt array),
`empty4[1, 1](y, y, 1.0, 2)`, `empty4[1, 1]` alone, and `l4(x, y, 1.0, 2)` (x a NumPy
array).
"""

import argparse
import os
import shutil
import subprocess
import sys
import tempfile

MODES = {
    "configured": "l4(y, y, 1.0, 2)",
    "subscript": "empty4[1, 1](y, y, 1.0, 2)",
    "subscript only": "empty4[1, 1]",
    "NumPy argument": "l4(x, y, 1.0, 2)",
}

CHILD = """
import sys
import numpy as np
import simt

@simt.kernel
def empty4(a, b, c, d):
    pass

y = simt.zeros(16, np.float32, device="cpu")
x = np.zeros(16, np.float32)
with simt.use_device("cpu"):
    l4 = empty4[1, 1]
    l4(y, y, 1.0, 2)
    empty4[1, 1](y, y, 1.0, 2)
    l4(x, y, 1.0, 2)
    for _ in range(int(sys.argv[2])):
        exec(sys.argv[1])
"""


def main_thread_instructions(statement, launches, folder):
    out = os.path.join(folder, "callgrind.out")
    script = os.path.join(folder, "child.py")
    with open(script, "w") as f:
        # The statement compiled once into the loop, not exec'd per iteration.
        f.write(CHILD.replace("exec(sys.argv[1])", statement))
    # The process's own disk cache, warmed by the first run: a compile in one run and not
    # in the other would count as launches.
    env = dict(os.environ, PYTHONHASHSEED="0", SIMT_CACHE_DIR=os.path.join(folder, "cache"))
    subprocess.run(["valgrind", "--tool=callgrind", "--separate-threads=yes",
                    f"--callgrind-out-file={out}", sys.executable, script, "-", str(launches)],
                   check=True, capture_output=True, env=env)
    with open(out + "-01") as f:  # the main thread's counts
        for line in f:
            if line.startswith(("totals:", "summary:")):
                return int(line.split()[1])
    raise RuntimeError("callgrind wrote no totals")


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--launches", type=int, default=20000)
    args = parser.parse_args()
    if shutil.which("valgrind") is None:
        sys.exit("valgrind is not installed (apt-get install valgrind)")
    with tempfile.TemporaryDirectory() as folder:
        main_thread_instructions("pass", 0, folder)  # compiles the kernel into the cache
        empty = main_thread_instructions("pass", 0, folder)
        print(f"{'warm launch on cpu, instructions per iteration':<48} {'count':>8}")
        for name, statement in MODES.items():
            total = main_thread_instructions(statement, args.launches, folder)
            print(f"{name + ': ' + statement:<48} {(total - empty) / args.launches:8.0f}")


if __name__ == "__main__":
    main()
