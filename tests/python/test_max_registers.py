"""max_registers: a kernel's register cap (Numba's option), CUDA's __maxnreg__ in the
generated code, checked through NVRTC's PTX where NVRTC is present; the same results on
every device."""

import numpy as np
import pytest

import simt
from simt import cuda


def saxpy_body(a, x, y, out):
    i = cuda.grid(1)
    if i < out.size:
        out[i] = a * x[i] + y[i]


def test_the_cap_is_in_the_cuda_kernel_only():
    capped = simt.kernel(max_registers=40)(saxpy_body)
    plain = simt.kernel(saxpy_body)
    types = ("float32", "float32[::1]", "float32[::1]", "float32[::1]")
    assert "__maxnreg__(40)" in capped.inspect_source(*types, dialect="cuda")
    assert "__maxnreg__" not in plain.inspect_source(*types, dialect="cuda")
    for dialect in ("opencl", "cpp"):
        assert "maxnreg" not in capped.inspect_source(*types, dialect=dialect)


def test_nvrtc_keeps_the_cap_in_the_ptx():
    if not simt._core.nvrtc_compile('extern "C" __global__ void k() {}')["available"]:
        pytest.skip("NVRTC is not installed")
    capped = simt.kernel(max_registers=40)(saxpy_body)
    source = capped.inspect_source("float32", "float32[::1]", "float32[::1]", "float32[::1]",
                                   dialect="cuda")
    result = simt._core.nvrtc_ptx(source, 90, [])
    assert result["ok"], result.get("log")
    # In the PTX, so a cubin (ptxas) and the driver's JIT of the PTX both obey it.
    assert ".maxnreg 40" in result["ptx"]


@pytest.mark.parametrize("bad", [0, -1, 2.5, True, "32"])
def test_bad_caps_are_value_errors(bad):
    with pytest.raises(ValueError, match="max_registers must be a positive int"):
        simt.kernel(max_registers=bad)(saxpy_body)


def test_numba_jit_passes_the_cap_and_takes_zero_as_none():
    assert cuda.jit(max_registers=32)(saxpy_body).max_registers == 32
    assert cuda.jit(max_registers=0)(saxpy_body).max_registers is None
    assert cuda.jit(saxpy_body).max_registers is None


def test_capped_kernels_compute_the_same(device, rng):
    n = 1000
    x = rng.random(n, dtype=np.float32)
    y = rng.random(n, dtype=np.float32)
    out = simt.full(n, np.nan, np.float32, device=device)
    kernel = cuda.jit(max_registers=32)(saxpy_body)
    kernel[(n + 127) // 128, 128](np.float32(3), simt.asarray(x, device=device),
                                  simt.asarray(y, device=device), out)
    np.testing.assert_array_equal(out.get(), np.float32(3) * x + y)
