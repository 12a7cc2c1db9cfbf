"""Compiles two simt kernels and prints the code generated for each dialect.

Run: python3 examples/codegen_demo.py [--short]

The CUDA C++ is compiled by NVRTC for sm_90 and the OpenCL C built on the
first OpenCL device (PoCL on a machine without a GPU) when they are present,
so the demo shows that the generated code is accepted by the real compilers.
"""

import os
import sys
import time

import numpy as np

import simt

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))

from heat import heat_step  # noqa: E402
from saxpy import saxpy  # noqa: E402


def check(dialect, source):
    if dialect == "cuda":
        result = simt._core.nvrtc_compile(source, 90)
        if not result["available"]:
            return "not checked: " + result["reason"].splitlines()[0]
        what = f"NVRTC {result['version']}, sm_90: {result['cubin_bytes']} byte cubin"
    elif dialect == "opencl":
        result = simt._core.opencl_build(source)
        if not result["available"]:
            return "not checked: " + result["reason"].splitlines()[0]
        what = f"built on {result['device']}"
    else:
        return "compiled and run by the CPU backend (examples/demo.py)"
    return what if result["ok"] else "FAILED:\n" + result["log"]


def main():
    short = "--short" in sys.argv
    x = np.zeros(1 << 20, np.float32)
    grid = np.zeros((512, 512), np.float64)
    cases = [(saxpy, (np.float32(2.0), x, x, x)), (heat_step, (grid, grid, 0.1))]
    rows = []
    for kernel, args in cases:
        for dialect in simt._kernel.DIALECTS:
            start = time.perf_counter()
            source = kernel.inspect_source(*args, dialect=dialect)
            generate_ms = (time.perf_counter() - start) * 1e3
            if not short or (kernel is saxpy and dialect == "cuda"):
                print(f"===== {kernel.__name__} as {dialect} =====")
                print(source)
            start = time.perf_counter()
            status = check(dialect, source)
            check_ms = (time.perf_counter() - start) * 1e3
            rows.append((kernel.__name__, dialect, generate_ms, check_ms, status))
    print(f"{'kernel':<10} {'dialect':<7} {'generate':>9} {'compile':>9}  check")
    for name, dialect, ms, check_ms, status in rows:
        compile_ms = f"{check_ms:6.1f} ms" if dialect != "cpp" else f"{'-':>9}"
        print(f"{name:<10} {dialect:<7} {ms:6.2f} ms {compile_ms}  {status}")
    if any(row[-1].startswith("FAILED") for row in rows):
        sys.exit(1)


if __name__ == "__main__":
    main()
