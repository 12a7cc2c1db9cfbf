"""Dtypes, type objects and functions as device-function arguments (compile-time values
of the callee's specialization, as Numba specializes on them), and `cuda.random.<f>`
written as an attribute inside kernels, on every device."""

import math

import numpy as np
import pytest

import simt
from simt import cuda
from simt.cuda import types

POISON = -7777

pytestmark = pytest.mark.filterwarnings("ignore::simt.PerformanceWarning")


@cuda.jit(device=True)
def scaled_copy(a, i, dt):
    # A local array of the passed dtype, and a cast to it.
    tmp = cuda.local.array(2, dtype=dt)
    tmp[0] = dt(a[i]) * dt(3)
    tmp[1] = tmp[0] + dt(1)
    return tmp[1]


@pytest.mark.parametrize("dt, expected_dtype", [
    (np.float32, np.float32), (np.int16, np.int16), (simt.float64, np.float64),
    (cuda.float32, np.float32), (types.int32, np.int32), (np.dtype(np.uint8), np.uint8)])
def test_dtype_argument(current, rng, dt, expected_dtype):
    a = rng.uniform(0, 60, 257)
    out = np.full(a.size, POISON, np.float64)

    @cuda.jit
    def k(a, out):
        i = cuda.grid(1)
        if i < a.size:
            out[i] = scaled_copy(a, i, dt)

    k[3, 128](a, out)
    expected = a.astype(expected_dtype) * expected_dtype(3) + expected_dtype(1)
    np.testing.assert_allclose(out, expected.astype(np.float64), rtol=1e-6)


def test_one_specialization_per_dtype(current, rng):
    # Two dtypes through one device function: two specializations, each its own
    # result type (float32 rounding vs int32 truncation).
    a = rng.uniform(-100, 100, 300)
    f32 = np.full(a.size, POISON, np.float64)
    i32 = np.full(a.size, POISON, np.float64)

    @cuda.jit
    def k(a, f32, i32):
        i = cuda.grid(1)
        if i < a.size:
            f32[i] = scaled_copy(a, i, np.float32)
            i32[i] = scaled_copy(a, i, np.int32)

    k[3, 128](a, f32, i32)
    np.testing.assert_array_equal(f32, (a.astype(np.float32) * np.float32(3) + 1).astype(
        np.float64))
    np.testing.assert_array_equal(i32, (a.astype(np.int32) * 3 + 1).astype(np.float64))
    src = k.inspect_source(*[simt.typeof(x) for x in (a, f32, i32)], dialect="cpp")
    assert src.count("Device function 'scaled_copy'") == 2


@cuda.jit(device=True)
def square(x):
    return x * x


@cuda.jit(device=True)
def negate(x):
    return -x


@cuda.jit(device=True)
def apply(fn, x):
    return fn(x)


@cuda.jit(device=True)
def apply_twice(fn, x, dt):
    # Through two levels: the function and the dtype travel on.
    return apply(fn, dt(apply(fn, x)))


def test_function_arguments(current, rng):
    x = rng.uniform(-3, 3, 200)
    out = np.full((4, x.size), POISON, np.float64)

    @cuda.jit
    def k(x, out):
        i = cuda.grid(1)
        if i < x.size:
            out[0, i] = apply(square, x[i])
            out[1, i] = apply(negate, x[i])
            out[2, i] = apply_twice(square, x[i], np.float32)
            out[3, i] = apply(math.sin, x[i])  # an intrinsic works as well

    k[2, 128](x, out)
    np.testing.assert_array_equal(out[0], x * x)
    np.testing.assert_array_equal(out[1], -x)
    np.testing.assert_allclose(out[2], np.float32(x * x).astype(np.float64) ** 2, rtol=1e-6)
    np.testing.assert_allclose(out[3], np.sin(x), rtol=1e-14)


@cuda.jit(device=True)
def atomic_binary(ary, idx, ary_dtype, binop_func, cast_func):
    # Numba's test model: the dtype of a local array, an atomic and a cast, all passed in.
    tmp = cuda.local.array(1, dtype=ary_dtype)
    tmp[0] = cast_func(idx)
    binop_func(ary, idx % ary.size, tmp[0])


def test_numba_atomic_model(current, rng):
    n = 16
    ary = np.zeros(n, np.uint32)

    @cuda.jit
    def k(ary):
        i = cuda.grid(1)
        atomic_binary(ary, i, np.uint32, cuda.atomic.add, np.uint32)

    k[2, 64](ary)
    ids = np.arange(128)
    expected = np.bincount(ids % n, weights=ids, minlength=n).astype(np.uint32)
    np.testing.assert_array_equal(ary, expected)


def test_storing_a_dtype_or_function_is_an_error(current):
    @cuda.jit(device=True)
    def keeps_dtype(x, dt):
        t = dt
        return t(x)

    @cuda.jit
    def k1(out):
        out[0] = keeps_dtype(out[0], np.float32)

    with pytest.raises(simt.TypingError, match="cannot hold dtype float32"):
        k1[1, 1](np.zeros(1))

    @cuda.jit(device=True)
    def keeps_function(fn, x):
        g = fn
        return g(x)

    @cuda.jit
    def k2(out):
        out[0] = keeps_function(square, out[0])

    with pytest.raises(simt.TypingError, match="device function 'square' can only be called"):
        k2[1, 1](np.zeros(1))


def test_other_values_are_still_an_error(current):
    @cuda.jit
    def k(out):
        out[0] = apply(cuda, out[0])

    with pytest.raises(simt.TypingError, match="argument 'fn' of apply"):
        k[1, 1](np.zeros(1))


def test_random_as_attributes(current, seed):
    from simt.cuda.random import create_xoroshiro128p_states, xoroshiro128p_uniform_float32

    n = 256
    states_a = create_xoroshiro128p_states(n, seed=seed % 1000)
    states_b = create_xoroshiro128p_states(n, seed=seed % 1000)
    attr = np.full((n, 3), POISON, np.float64)
    imported = np.full((n, 3), POISON, np.float64)

    @cuda.jit
    def by_attribute(states, out):
        i = cuda.grid(1)
        if i < out.shape[0]:
            for k in range(3):
                out[i, k] = cuda.random.xoroshiro128p_uniform_float32(states, i)

    @cuda.jit
    def by_import(states, out):
        i = cuda.grid(1)
        if i < out.shape[0]:
            for k in range(3):
                out[i, k] = xoroshiro128p_uniform_float32(states, i)

    by_attribute[2, 128](states_a, attr)
    by_import[2, 128](states_b, imported)
    assert np.all((attr >= 0) & (attr < 1))
    np.testing.assert_array_equal(attr, imported)

    @cuda.jit
    def unknown(states, out):
        out[0, 0] = cuda.random.not_a_generator(states, 0)

    with pytest.raises(simt.TypingError, match="not a device function of cuda.random"):
        unknown[1, 1](states_a, attr)


@cuda.jit("int32(int32, int32)", device=True)
def pack_bytes(hi, lo):
    # float arguments convert to the declared int32 first, so & and << are integer ones.
    return ((hi & 0xFF) << 8) | (lo & 0xFF)


@cuda.jit(types.float32(types.float64), device=True)
def narrowed(x):
    return x / 3.0


def test_declared_device_signatures_convert_arguments_and_results(current, rng):
    channels = rng.uniform(0, 255, (64, 2)).astype(np.float32)
    packed = np.full(64, POISON, np.int32)
    thirds = np.full(64, np.nan, np.float64)

    @cuda.jit
    def k(channels, packed, x, thirds):
        i = cuda.grid(1)
        if i < packed.size:
            packed[i] = pack_bytes(channels[i, 0], channels[i, 1])
            thirds[i] = narrowed(x[i])  # the declared float32 result, widened again here

    x = rng.uniform(-10, 10, 64)
    k[2, 32](channels, packed, x, thirds)
    want = ((channels[:, 0].astype(np.int32) & 0xFF) << 8) | (channels[:, 1].astype(np.int32) & 0xFF)
    np.testing.assert_array_equal(packed, want)
    np.testing.assert_array_equal(thirds, (x / 3.0).astype(np.float32).astype(np.float64))


def test_arguments_no_declared_signature_takes_are_an_error(current):
    @cuda.jit("float32(float32)", device=True)
    def scale(x):
        return x * 2

    @cuda.jit
    def k(a, out):
        out[0] = scale(a)  # an array where a number was declared

    with pytest.raises(simt.TypingError, match=r"declared for \(float32\) only"):
        k[1, 1](np.zeros(2, np.float32), np.zeros(1, np.float32))
