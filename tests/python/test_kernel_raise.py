"""`raise` in kernels, on every device: with debug=True the first raising thread's
exception is raised on the host after the launch (its class, its message, where);
without it the raising thread stops there and nothing is reported, as in Numba."""

import numpy as np
import pytest

import simt
from simt import cuda

pytestmark = pytest.mark.filterwarnings("ignore::simt.PerformanceWarning")


class ShapeError(Exception):
    pass


@pytest.fixture
def current(device):
    with simt.use_device(device):
        yield device


def raising_kernel(debug):
    @cuda.jit(debug=debug)
    def k(a, bad):
        i = cuda.grid(1)
        if i < a.size:
            a[i] = 1.0
        if i == bad:
            raise ValueError("bad thread")
        if i < a.size:
            a[i] = 2.0
    return k


def test_debug_raise_reaches_the_host(current):
    k = raising_kernel(True)
    a = np.zeros(64)
    with pytest.raises(ValueError, match=r"^bad thread \(raised in kernel 'k', thread \(5, 0, 0\)"
                                         r" of block \(1, 0, 0\), at .*test_kernel_raise.py:\d+"):
        k[2, 32](a, 37)
    want = np.full(64, 2.0)
    want[37] = 1.0            # the raising thread stopped at the raise
    np.testing.assert_array_equal(a, want)
    k[2, 32](a, -1)           # no thread raises: nothing reported


def test_without_debug_the_thread_stops_silently(current):
    k = raising_kernel(False)
    a = np.zeros(64)
    k[2, 32](a, 10)
    want = np.full(64, 2.0)
    want[10] = 1.0
    np.testing.assert_array_equal(a, want)


@cuda.jit(debug=True)
def k_user_class(a):
    i = cuda.grid(1)
    if a[i] < 0:
        raise ShapeError("negative", 3, 2.5)
    if a[i] > 100:
        raise IndexError
    a[i] *= 2


def test_user_exception_classes_and_arguments(current):
    a = np.array([1.0, -1.0, 2.0, 3.0])
    with pytest.raises(ShapeError, match=r"^\('negative', 3, 2.5\) \(raised in kernel"):
        k_user_class[1, 4](a)
    a = np.array([1.0, 1000.0])
    with pytest.raises(IndexError, match=r"^\(raised in kernel 'k_user_class'"):
        k_user_class[1, 2](a)
    a = np.array([1.0, 2.0])
    k_user_class[1, 2](a)
    np.testing.assert_array_equal(a, [2.0, 4.0])


def test_raise_errors(current):
    @cuda.jit
    def not_a_class(a):
        raise a

    with pytest.raises(simt.TypingError, match="raise needs an exception class"):
        not_a_class[1, 1](np.zeros(1))

    @cuda.jit
    def runtime_argument(a):
        raise ValueError(a[0])

    with pytest.raises(simt.TypingError, match="must be constants"):
        runtime_argument[1, 1](np.zeros(1))

    @cuda.jit
    def constructed(a):
        e = ValueError("x")

    with pytest.raises(simt.TypingError, match="can only be raised"):
        constructed[1, 1](np.zeros(1))

    @cuda.jit(device=True)
    def helper(x):
        if x < 0:
            raise ValueError("negative")
        return x

    @cuda.jit
    def calls_helper(a):
        a[0] = helper(a[0])

    with pytest.raises(simt.TypingError, match="raise inside device functions is not supported"):
        calls_helper[1, 1](np.zeros(1))
