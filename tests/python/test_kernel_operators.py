"""`int.bit_count()` and the `operator` module's functions in kernels, on every device,
against Python's own results."""

import operator
from operator import add, getitem, lt, neg, truediv

import numpy as np
import pytest

import simt
from simt import cuda

pytestmark = pytest.mark.filterwarnings("ignore::simt.PerformanceWarning")


@cuda.jit
def k_bit_count(a, out, out2):
    i = cuda.grid(1)
    if i < a.size:
        out[i] = a[i].bit_count()
        out2[i] = int.bit_count(a[i])


@pytest.mark.parametrize("dtype", [np.int8, np.int16, np.int32, np.int64, np.uint8, np.uint32,
                                   np.uint64])
def test_bit_count_is_the_popcount_of_the_magnitude(current, rng, dtype):
    info = np.iinfo(dtype)
    a = rng.integers(info.min, info.max, 200, dtype=dtype, endpoint=True)
    a[:4] = [info.min, info.max, 0, 1 if info.min == 0 else -1]
    out = np.full(a.size, -1, np.int64)
    out2 = np.full(a.size, -1, np.int64)
    k_bit_count[1, 256](a, out, out2)
    want = [int(v).bit_count() for v in a]
    np.testing.assert_array_equal(out, want)
    np.testing.assert_array_equal(out2, want)


def test_bit_count_of_a_float_is_an_error(current):
    @cuda.jit
    def k(a):
        a[0] = a[0].bit_count()

    with pytest.raises(simt.TypingError, match="has no attribute 'bit_count'"):
        k[1, 1](np.zeros(2))


BINARY = ["add", "sub", "mul", "truediv", "floordiv", "mod", "pow", "and_", "or_", "xor",
          "lshift", "rshift", "lt", "le", "eq", "ne", "ge", "gt"]
UNARY = ["neg", "pos", "abs", "invert", "not_", "truth", "index"]


def binary_kernel(name):
    fn = getattr(operator, name)

    @cuda.jit
    def k(a, b, out):
        i = cuda.grid(1)
        if i < a.size:
            out[i] = fn(a[i], b[i])
    return k


@pytest.mark.parametrize("name", BINARY)
def test_binary_operator_functions_are_the_operators(current, rng, name):
    fn = getattr(operator, name)
    a = rng.integers(-50, 50, 64).astype(np.int64)
    b = rng.integers(1, 7, 64).astype(np.int64)
    if name == "pow":
        a = a % 5
    want = np.array([fn(int(x), int(y)) for x, y in zip(a, b)])
    out = np.full(a.size, -99, want.dtype if want.dtype != bool else np.int64)
    binary_kernel(name)[1, 64](a, b, out)
    np.testing.assert_array_equal(out, want.astype(out.dtype))
    # floats too, where Python defines the operator on floats
    if name not in ("and_", "or_", "xor", "lshift", "rshift"):
        x = rng.standard_normal(64)
        y = rng.standard_normal(64) + 3
        if name == "pow":
            x = np.abs(x)
        want = np.array([fn(float(p), float(q)) for p, q in zip(x, y)], dtype=np.float64)
        out = np.full(x.size, np.nan)
        binary_kernel(name)[1, 64](x, y, out)
        np.testing.assert_allclose(out, want, rtol=1e-13, atol=0)


@pytest.mark.parametrize("name", UNARY)
def test_unary_operator_functions_are_the_operators(current, rng, name):
    fn = getattr(operator, name)

    @cuda.jit
    def k(a, out):
        i = cuda.grid(1)
        if i < a.size:
            out[i] = fn(a[i])

    a = rng.integers(-50, 50, 64).astype(np.int32)
    a[0] = 0
    out = np.full(a.size, -99, np.int64)
    k[1, 64](a, out)
    np.testing.assert_array_equal(out, [int(fn(int(v))) for v in a])


@cuda.jit
def k_imported(a, t, out):
    i = cuda.grid(1)
    if i < a.shape[0]:
        out[i] = add(getitem(a, i), getitem(t, 1)) + truediv(1, 4)
        if lt(neg(a[i]), 0):
            out[i] += 100
        row = getitem(a, (i,))   # a tuple index through getitem
        out[i] += row * 0


def test_functions_imported_from_operator(current, rng):
    a = rng.integers(-9, 9, 20).astype(np.float64)
    out = np.full(a.size, np.nan)
    k_imported[1, 32](a, (3, 5), out)
    want = a + 5 + 0.25 + np.where(-a < 0, 100, 0)
    np.testing.assert_array_equal(out, want)


def test_operator_errors_name_the_function(current):
    @cuda.jit
    def k(a):
        a[0] = operator.index(a[1])

    with pytest.raises(simt.TypingError, match=r"operator.index\(\) needs an integer"):
        k[1, 1](np.zeros(2))

    @cuda.jit
    def k2(a):
        a[0] = operator.add(a[1])

    with pytest.raises(simt.TypingError, match=r"operator.add\(\) takes 2 arguments"):
        k2[1, 1](np.zeros(2))
