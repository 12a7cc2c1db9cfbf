"""Helpers shared by the kernel-language tests (shared memory, atomics, warps, algorithms)."""

import contextlib
from pathlib import Path

import pytest

import simt


# A raw saxpy kernel by source language (simt.RawKernel), for the raw-kernel and graph tests.
SAXPY = {
    "cuda": r'''
extern "C" __global__ void saxpy(float a, const float* x, float* y, unsigned int n) {
    unsigned int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) y[i] = a * x[i] + y[i];
}
''',
    "opencl": r'''
__kernel void saxpy(float a, __global const float* x, __global float* y, uint n) {
    size_t i = get_global_id(0);
    if (i < n) y[i] = a * x[i] + y[i];
}
''',
}


def blocks(n, block):
    """Blocks of `block` threads covering n items (the last one partial)."""
    return -(-n // block)


@contextlib.contextmanager
def on(device):
    """simt.use_device(device), skipping the test where an OpenCL device lacks the 64-bit
    atomics a kernel needs (cl_khr_int64_base/extended_atomics: a CompileError saying so)."""
    with simt.use_device(device):
        try:
            yield
        except simt.CompileError as error:
            if (device.backend == "opencl" and not isinstance(error, simt.BackendCompileError)
                    and "64-bit atomics" in str(error)):
                pytest.skip(f"{device.id} lacks 64-bit atomics: {error.reason}")
            raise


def marker_line(path, marker):
    """The 1-based line of file `path` holding the comment `# <marker>`."""
    lines = Path(path).read_text().splitlines()
    found = [n for n, text in enumerate(lines, 1) if text.rstrip().endswith("# " + marker)]
    assert len(found) == 1, marker
    return found[0]
