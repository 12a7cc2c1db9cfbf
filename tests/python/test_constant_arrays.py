"""Global NumPy arrays as constant arrays (cuda.const.array_like, or read directly as
Numba allows): their values are copied into the kernel when it compiles, on every device."""

import numpy as np
import pytest

import simt
from simt import cuda

RNG = np.random.default_rng()
DTYPES = [np.int8, np.uint8, np.int16, np.uint16, np.int32, np.uint32, np.int64, np.uint64,
          np.float16, np.float32, np.float64, np.complex64, np.complex128, np.bool_]


def _values(dtype, shape):
    if dtype == np.bool_:
        return RNG.random(shape) > 0.5
    if np.issubdtype(dtype, np.integer):
        info = np.iinfo(dtype)
        return RNG.integers(info.min, info.max, shape, dtype=dtype, endpoint=True)
    v = RNG.standard_normal(shape) * 100
    if np.issubdtype(dtype, np.complexfloating):
        v = v + 1j * RNG.standard_normal(shape)
    return v.astype(dtype)


TABLES = {np.dtype(d).name: _values(d, (3, 5)) for d in DTYPES}
# Values that need spelling out in C: infinities, NaN, the extremes of float32.
SPECIAL = np.array([np.inf, -np.inf, np.nan, -0.0, np.finfo(np.float32).max,
                    np.finfo(np.float32).tiny, 1e-45], dtype=np.float32)
CUBE = np.arange(24, dtype=np.int32).reshape(2, 3, 4) * 7 - 50


def _make_reader(table):
    @simt.kernel
    def read_table(out):
        i, j = cuda.grid(2)
        if i < out.shape[0] and j < out.shape[1]:
            out[i, j] = cuda.const.array_like(table)[i, j]
    return read_table


@pytest.mark.parametrize("name", list(TABLES))
def test_every_dtype_reads_back_exactly(device, name):
    table = TABLES[name]
    with simt.use_device(device):
        out = simt.zeros(table.shape, dtype=table.dtype, device=device)
        _make_reader(table)[(1, 1), (4, 8)](out)
    np.testing.assert_array_equal(out.get(), table)


@simt.kernel
def k_special(out):
    i = cuda.grid(1)
    if i < out.size:
        out[i] = SPECIAL[i]  # a global array read directly is a constant array too


@simt.kernel
def k_cube(out):
    c = cuda.const.array_like(CUBE)
    i = cuda.grid(1)
    if i < out.size:
        out[i] = c[i // 12, (i // 4) % 3, i % 4] + c.shape[2] + c.size


def test_special_floats_and_three_dimensions(device):
    with simt.use_device(device):
        special = simt.zeros(SPECIAL.size, dtype=np.float32, device=device)
        k_special[1, 32](special)
        cube = simt.zeros(CUBE.size, dtype=np.int32, device=device)
        k_cube[1, 32](cube)
    np.testing.assert_array_equal(special.get(), SPECIAL)
    assert np.signbit(special.get()[3])
    np.testing.assert_array_equal(cube.get(), CUBE.ravel() + 4 + 24)


@simt.kernel
def k_stencil(x, out):
    w = cuda.const.array_like(x)  # an argument, not a global array: an error
    i = cuda.grid(1)
    out[i] = x[i] * w[0]


WEIGHTS = np.array([0.25, 0.5, 0.25], dtype=np.float32)


@simt.kernel
def k_write_constant(out):
    i = cuda.grid(1)
    WEIGHTS[0] = 1.0
    out[i] = WEIGHTS[i]


def test_constant_array_errors():
    with pytest.raises(simt.CompileError, match="read-only"):
        k_write_constant.inspect_source("float32[::1]")
    with pytest.raises(simt.CompileError, match="global NumPy array"):
        k_stencil.inspect_source("float32[::1]", "float32[::1]")


def test_a_large_global_array_is_refused():
    big = np.zeros(20000, dtype=np.float64)  # 160 KB: beyond GPU constant memory

    @simt.kernel
    def k_big(out):
        out[0] = big[0]

    with pytest.raises(simt.CompileError, match="64 KiB"):
        k_big.inspect_source("float64[::1]")
