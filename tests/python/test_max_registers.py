"""max_registers: a kernel's register cap (Numba's option), CUDA's __maxnreg__ in the
generated code, checked through NVRTC's PTX where NVRTC is present; the same results on
every device."""

import pickle

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
    source = capped.inspect_source(*types, dialect="cuda")
    declaration = [line for line in source.splitlines() if "__global__" in line]
    assert "__maxnreg__(40)" in source
    assert declaration and "SIMT_MAXNREG" in declaration[0]
    assert "maxnreg" not in plain.inspect_source(*types, dialect="cuda").lower()
    for dialect in ("opencl", "cpp"):
        assert "maxnreg" not in capped.inspect_source(*types, dialect=dialect)


def test_nvrtc_keeps_the_cap_in_the_ptx():
    status = simt._core.nvrtc_status()
    if not status["available"]:
        pytest.skip("NVRTC is not installed")
    if tuple(int(v) for v in status["version"].split(".")[:2]) < (12, 4):
        pytest.skip("__maxnreg__ needs NVRTC 12.4 (an older one compiles without the cap)")
    capped = simt.kernel(max_registers=40)(saxpy_body)
    source = capped.inspect_source("float32", "float32[::1]", "float32[::1]", "float32[::1]",
                                   dialect="cuda")
    result = simt._core.nvrtc_ptx(source, 90, [])
    assert result["ok"], result.get("log")
    # In the PTX, so a cubin (ptxas) and the driver's JIT of the PTX both obey it.
    assert ".maxnreg 40" in result["ptx"]


@pytest.mark.parametrize("bad", [0, -1, 256, 2 ** 40, 2.5, True, "32"])
def test_bad_caps_are_value_errors(bad):
    with pytest.raises(ValueError, match="max_registers must be an int from 1 to 255"):
        simt.kernel(max_registers=bad)(saxpy_body)


def test_numpy_ints_are_caps():
    assert simt.kernel(max_registers=np.int32(64))(saxpy_body).max_registers == 64


def test_numba_jit_passes_the_cap_and_takes_zero_as_none():
    assert cuda.jit(max_registers=32)(saxpy_body).max_registers == 32
    assert cuda.jit(max_registers=0)(saxpy_body).max_registers is None
    assert cuda.jit(saxpy_body).max_registers is None


def test_a_launch_compiles_with_the_cap(device):
    # What each launch's specialization is generated with (not only inspect_source's).
    seen = []

    def observe(function, arg_types, globals_, debug, boundscheck, link, max_registers):
        seen.append(max_registers)

    previous = simt._core.set_compile_observer(observe)
    try:
        kernel = cuda.jit(max_registers=48)(saxpy_body)
        x = simt.zeros(8, np.float32, device=device)
        kernel[1, 8](np.float32(1), x, x, x)
    finally:
        simt._core.set_compile_observer(previous)
    assert seen == [48]


def test_the_cap_survives_pickling_by_value():
    cloudpickle = pytest.importorskip("cloudpickle",
                                      reason="cloudpickle comes with dask.distributed")
    kernel = simt.kernel(max_registers=40)(saxpy_body)
    copy = pickle.loads(cloudpickle.dumps(kernel))
    assert copy is not kernel and copy.max_registers == 40


def test_capped_kernels_compute_the_same(device, rng):
    n = 1000
    x = rng.random(n, dtype=np.float32)
    y = rng.random(n, dtype=np.float32)
    out = simt.full(n, np.nan, np.float32, device=device)
    kernel = cuda.jit(max_registers=32)(saxpy_body)
    kernel[(n + 127) // 128, 128](np.float32(3), simt.asarray(x, device=device),
                                  simt.asarray(y, device=device), out)
    np.testing.assert_array_equal(out.get(), np.float32(3) * x + y)
