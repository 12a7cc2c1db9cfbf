"""@simt.func device functions called from kernels, on every available device."""

import math

import numpy as np
import pytest

import simt
from simt import cuda


@simt.func
def clamp(x, lo, hi):
    return min(max(x, lo), hi)


@simt.func
def divmod_floor(a, b):
    return a // b, a % b


@simt.func
def inv_r3(dx, dy, eps):
    r2 = dx * dx + dy * dy + eps
    return 1.0 / (r2 * math.sqrt(r2))


@simt.func
def force(px, py, qx, qy, eps=1e-3):
    dx = qx - px
    dy = qy - py
    s = inv_r3(dx, dy, eps)  # a device function calling another
    return dx * s, dy * s


@simt.kernel
def clamp_kernel(x, out, lo, hi):
    i = cuda.grid(1)
    if i < x.size:
        out[i] = clamp(x[i], lo, hi)


@simt.kernel
def divmod_kernel(a, b, q, r):
    i = cuda.grid(1)
    if i < a.size:
        q[i], r[i] = divmod_floor(a[i], b[i])


@simt.kernel
def nbody_forces(pos, acc):
    i = cuda.grid(1)
    n = pos.shape[0]
    if i < n:
        ax = 0.0
        ay = 0.0
        for j in range(n):
            if j != i:
                fx, fy = force(pos[i, 0], pos[i, 1], pos[j, 0], pos[j, 1])
                ax += fx
                ay += fy
        acc[i, 0] = ax
        acc[i, 1] = ay


def test_clamp(device, rng):
    x = rng.normal(size=500) * 3
    out = simt.full(500, np.nan, device=device)
    with simt.use_device(device):
        clamp_kernel[4, 128](simt.to_device(x), out, -1.0, 1.0)
    np.testing.assert_array_equal(out.get(), np.clip(x, -1.0, 1.0))


def test_tuple_returning_function(device, rng):
    a = rng.integers(-1000, 1000, 300)
    b = rng.integers(1, 50, 300) * rng.choice([-1, 1], 300)
    q = simt.full(300, -7, np.int64, device=device)
    r = simt.full(300, -7, np.int64, device=device)
    with simt.use_device(device):
        divmod_kernel[3, 128](simt.to_device(a), simt.to_device(b), q, r)
    np.testing.assert_array_equal(q.get(), a // b)
    np.testing.assert_array_equal(r.get(), a % b)


def test_nbody_with_nested_functions_and_defaults(device, rng):
    n = 200
    pos = rng.random((n, 2))
    acc = simt.full((n, 2), np.nan, device=device)
    with simt.use_device(device):
        nbody_forces[2, 128](simt.to_device(pos), acc)
    d = pos[None, :, :] - pos[:, None, :]
    r2 = (d ** 2).sum(-1) + 1e-3
    s = 1.0 / (r2 * np.sqrt(r2))
    np.fill_diagonal(s, 0.0)
    expected = (d * s[:, :, None]).sum(1)
    np.testing.assert_allclose(acc.get(), expected, rtol=1e-10)


def test_device_function_cannot_be_called_from_python():
    with pytest.raises(TypeError, match="call it from a kernel"):
        clamp(1, 2, 3)
    # nor launched, nor disassembled: it has no code of its own (Numba's errors)
    with pytest.raises(RuntimeError, match="Cannot compile a device function as a kernel"):
        clamp[1, 1](1, 2, 3)
    with pytest.raises(RuntimeError, match="Cannot inspect SASS of a device function"):
        clamp.inspect_sass(("int32", "int32", "int32"))


def test_recursion_is_a_typing_error():
    @simt.func
    def fact(n):
        return 1 if n <= 1 else n * fact(n - 1)

    @simt.kernel
    def k(out):
        out[0] = fact(5)

    with pytest.raises(simt.TypingError, match="recursive"):
        k.inspect_source(np.zeros(1, np.int64))


def test_error_inside_a_device_function_points_into_it():
    @simt.func
    def bad(x):
        return x & 1.5

    @simt.kernel
    def k(out):
        out[0] = bad(out[0])

    with pytest.raises(simt.TypingError) as info:
        k.inspect_source(np.zeros(1))
    assert info.value.source_line.strip() == "return x & 1.5"


def test_a_kernel_called_from_a_kernel_is_a_device_function_there(device, rng):
    """As in Numba: a @cuda.jit function called from device code is compiled as a device
    function (it may return a value there), and stays a kernel of its own."""
    @cuda.jit
    def scaled(v, k):
        return v * k

    @cuda.jit
    def fill(out, v):
        i = cuda.grid(1)
        if i < out.size:
            out[i] = v

    @cuda.jit
    def apply(out, x):
        i = cuda.grid(1)
        if i < x.size:
            out[i] = scaled(x[i], 3)

    x = rng.random(100)
    out = simt.full(100, np.nan, device=device)
    apply[1, 128](out, simt.asarray(x, device=device))
    np.testing.assert_array_equal(out.get(), 3 * x)
    fill[1, 128](out, 2.0)  # the kernel itself still launches
    np.testing.assert_array_equal(out.get(), np.full(100, 2.0))
