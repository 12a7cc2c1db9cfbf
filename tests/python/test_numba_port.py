"""Numba-CUDA programs, written as Numba's documentation writes them, run through
`from simt import cuda` on every device, against NumPy."""

import math

import numpy as np
import pytest

import simt
from simt import cuda


def test_vector_add_with_to_device_and_copy_to_host(current, rng):
    @cuda.jit
    def add(x, y, out):
        start = cuda.grid(1)
        stride = cuda.gridsize(1)
        for i in range(start, x.shape[0], stride):
            out[i] = x[i] + y[i]

    n = 100000
    x = rng.random(n).astype(np.float32)
    y = rng.random(n).astype(np.float32)
    d_x, d_y = cuda.to_device(x), cuda.to_device(y)
    d_out = cuda.device_array_like(d_x)
    threads_per_block = 128
    blocks_per_grid = 30
    add[blocks_per_grid, threads_per_block](d_x, d_y, d_out)
    cuda.synchronize()
    np.testing.assert_array_equal(d_out.copy_to_host(), x + y)
    host = np.full(n, -1.0, np.float32)
    d_out.copy_to_host(host)
    np.testing.assert_array_equal(host, x + y)


TPB = 16


def test_tiled_matmul_with_shared_memory(current, rng):
    # Numba's documentation's fast_matmul, unchanged but for the import.
    @cuda.jit
    def fast_matmul(A, B, C):
        sA = cuda.shared.array(shape=(TPB, TPB), dtype=np.float32)
        sB = cuda.shared.array(shape=(TPB, TPB), dtype=np.float32)
        x, y = cuda.grid(2)
        tx = cuda.threadIdx.x
        ty = cuda.threadIdx.y
        bpg = cuda.gridDim.x
        tmp = np.float32(0.)
        for i in range(bpg):
            sA[ty, tx] = 0
            sB[ty, tx] = 0
            if y < A.shape[0] and (tx + i * TPB) < A.shape[1]:
                sA[ty, tx] = A[y, tx + i * TPB]
            if x < B.shape[1] and (ty + i * TPB) < B.shape[0]:
                sB[ty, tx] = B[ty + i * TPB, x]
            cuda.syncthreads()
            for j in range(TPB):
                tmp += sA[ty, j] * sB[j, tx]
            cuda.syncthreads()
        if y < C.shape[0] and x < C.shape[1]:
            C[y, x] = tmp

    a = rng.random((48, 48)).astype(np.float32)
    b = rng.random((48, 48)).astype(np.float32)
    d_a, d_b = cuda.to_device(a), cuda.to_device(b)
    d_c = cuda.device_array((48, 48), np.float32)
    blocks = (math.ceil(48 / TPB), math.ceil(48 / TPB))
    fast_matmul[blocks, (TPB, TPB)](d_a, d_b, d_c)
    np.testing.assert_allclose(d_c.copy_to_host(), a @ b, rtol=1e-5)


def test_device_function_and_signature_forms(current, rng):
    @cuda.jit(device=True)
    def clamp(v, low, high):
        return min(max(v, low), high)

    @cuda.jit("void(float64[:], float64, float64)")
    def clamp_all(x, low, high):
        i = cuda.grid(1)
        if i < x.size:
            x[i] = clamp(x[i], low, high)

    x = rng.standard_normal(1000)
    d_x = cuda.to_device(x)
    clamp_all.forall(x.size)(d_x, -0.5, 0.5)
    np.testing.assert_array_equal(d_x.copy_to_host(), np.clip(x, -0.5, 0.5))

    @cuda.jit(["void(int32[:], int32)", "void(float32[:], float32)"], fastmath=False, opt=True,
              lineinfo=True, cache=True)
    def scale(x, s):
        i = cuda.grid(1)
        if i < x.size:
            x[i] *= s

    ints = cuda.to_device(np.arange(10, dtype=np.int32))
    scale[1, 32](ints, 3)
    np.testing.assert_array_equal(ints.copy_to_host(), np.arange(10) * 3)
    assert scale.specialize(ints, np.int32(3)) is scale


def test_grid_stride_while_loop_reduction_with_atomics(current, rng):
    @cuda.jit
    def total(x, out):
        i = cuda.grid(1)
        s = 0.0
        while i < x.size:
            s += x[i]
            i += cuda.gridsize(1)
        cuda.atomic.add(out, 0, s)

    x = rng.random(50000)
    out = cuda.to_device(np.zeros(1))
    total[16, 64](cuda.to_device(x), out)
    np.testing.assert_allclose(out.copy_to_host()[0], x.sum(), rtol=1e-10)


def test_streams_events_and_async_copies(current, rng):
    @cuda.jit
    def increment(x):
        i = cuda.grid(1)
        if i < x.size:
            x[i] += 1

    stream = cuda.stream()
    host = cuda.pinned_array(4096, dtype=np.float32)
    host[:] = rng.random(4096)
    expected = host + 1
    start, stop = cuda.event(timing=True), cuda.event()
    start.record(stream)
    with stream.auto_synchronize():
        d = cuda.to_device(host, stream=stream)
        increment[16, 256, stream](d)
        d.copy_to_host(host, stream=stream)
    stop.record(stream)
    stop.synchronize()
    np.testing.assert_array_equal(host, expected)
    assert cuda.event_elapsed_time(start, stop) >= 0


def test_device_array_methods_numba_code_uses(current):
    d = cuda.to_device(np.arange(10, dtype=np.int64))
    assert d.is_c_contiguous() and d.is_f_contiguous() and d.alloc_size == 80
    parts = d.split(4)
    assert [p.shape for p in parts] == [(4,), (4,), (2,)]
    np.testing.assert_array_equal(parts[2].copy_to_host(), [8, 9])
    d.copy_to_device(np.arange(10, 20))
    np.testing.assert_array_equal(d.copy_to_host(), np.arange(10, 20))
    f = cuda.device_array((3, 4), dtype=np.float32, order="F")
    assert f.is_f_contiguous() and not f.is_c_contiguous()
    assert cuda.is_cuda_array(d) == (current.backend == "cuda")
    with pytest.raises(ValueError, match="strides= is not taken"):
        cuda.device_array(4, strides=(8,))


def test_devices_and_contexts_describe_the_device_in_use():
    assert cuda.is_available()
    device = cuda.get_current_device()
    assert device.MAX_THREADS_PER_BLOCK >= 1 and device.MULTIPROCESSOR_COUNT >= 1
    assert len(cuda.gpus) >= 1 and cuda.gpus[0].id == 0
    with cuda.gpus[0] as selected:
        assert simt.current_device() == selected.simt_device
    free, total = cuda.current_context().get_memory_info()
    assert 0 <= free <= total and total > 0
    major, minor = device.compute_capability
    assert (major > 0) == (device.simt_device.backend == "cuda")


def test_jit_errors_say_what():
    with pytest.raises(TypeError, match="unknown option"):
        cuda.jit(fast_math=True)
    with pytest.raises(TypeError, match="a signature is a string"):
        cuda.jit(3)
    with pytest.raises(NotImplementedError, match="compiled code"):
        cuda.jit(link=["f.cubin"])
    assert isinstance(cuda.jit(device=True)(lambda a: a), simt.Func)  # test_numba_sources.py
    with pytest.raises(IndexError, match=r"cuda.gpus\[99\]: there"):
        cuda.select_device(99)


def test_cuda_reduce_as_numba_documents_it(current, rng):
    @cuda.reduce
    def sum_reduce(a, b):
        return a + b

    @cuda.reduce
    def max_reduce(a, b):
        return max(a, b)

    for n in (1, 7, 1000, 70000):
        a = rng.random(n)
        np.testing.assert_allclose(sum_reduce(a), a.sum(), rtol=1e-12)
        b = rng.integers(-1000, -1, n).astype(np.int32)
        assert max_reduce(cuda.to_device(b), init=np.int32(-2 ** 31)) == b.max()
    res = cuda.device_array(1)
    assert sum_reduce(a, res=res, size=10) is None
    np.testing.assert_allclose(res.copy_to_host()[0], a[:10].sum(), rtol=1e-12)
    assert sum_reduce(np.zeros(0), init=5) == 5
    with pytest.raises(ValueError, match="1-D"):
        sum_reduce(cuda.to_device(np.zeros((2, 2))))


def test_cuda_vectorize_as_numba_documents_it(current, rng):
    @cuda.vectorize(["float32(float32, float32)", "float64(float64, float64)"], target="cuda")
    def rel_diff(x, y):
        return 2 * (x - y) / (x + y)

    @cuda.vectorize("float64(float64)")
    def gauss(x):
        return math.exp(-x * x / 2) / math.sqrt(2 * math.pi)

    x = (rng.random(1000) + 1).astype(np.float32)
    y = (rng.random(1000) + 1).astype(np.float32)
    host = rel_diff(x, y)  # NumPy in, NumPy out
    assert isinstance(host, np.ndarray) and host.dtype == np.float32
    np.testing.assert_allclose(host, 2 * (x - y) / (x + y), rtol=1e-6)
    on_device = rel_diff(cuda.to_device(x), cuda.to_device(y))
    assert isinstance(on_device, simt.Array)
    np.testing.assert_array_equal(on_device.copy_to_host(), host)
    m = rng.random((3, 4)) + 1
    broadcast = rel_diff(cuda.to_device(m), 2.0)  # a Python scalar, broadcast
    assert broadcast.dtype == np.float64
    np.testing.assert_allclose(broadcast.copy_to_host(), 2 * (m - 2) / (m + 2), rtol=1e-12)
    t = np.linspace(-3, 3, 7)
    np.testing.assert_allclose(gauss(t), np.exp(-t * t / 2) / math.sqrt(2 * math.pi), rtol=1e-12)
    with pytest.raises(TypeError, match="no signature takes"):
        rel_diff(np.zeros(3, np.complex64), np.zeros(3))
    with pytest.raises(TypeError, match="needs its signatures"):
        cuda.vectorize(lambda a: a)



def test_vectorize_reduce_folds_with_the_function(current, rng):
    @cuda.vectorize(["int32(int32, int32)", "float64(float64, float64)"])
    def vadd(a, b):
        return a + b

    @cuda.vectorize
    def vmax_abs(a, b):
        return max(abs(a), abs(b))

    for n in (1, 8, 100, 1025, 70000):
        x = rng.integers(-2**31, 2**31 - 1, n, dtype=np.int64).astype(np.int32)
        got = vadd.reduce(x)  # wraps as int32, the loop's type (NumPy's add.reduce: int64)
        assert got.dtype == np.int32 and got == x.sum(dtype=np.int32)
        f = rng.standard_normal(n)
        stream = cuda.stream()
        got = vadd.reduce(cuda.to_device(f, stream), stream=stream)
        assert got.dtype == np.float64
        np.testing.assert_allclose(got, f.sum(), rtol=1e-12, atol=1e-12)
        # No identity needed: the first element starts the fold (alone, it is the result,
        # as NumPy's ufunc.reduce gives).
        assert vmax_abs.reduce(f) == (f[0] if n == 1 else np.abs(f).max())
    with pytest.raises(TypeError, match="1-D"):
        vadd.reduce(np.zeros((2, 2), np.int32))
    with pytest.raises(TypeError, match="empty"):
        vadd.reduce(np.zeros(0, np.int32))
    with pytest.raises(TypeError, match="two arguments"):
        cuda.vectorize(["float64(float64)"])(lambda_free_square).reduce(np.ones(3))


def lambda_free_square(x):
    return x * x


# Numba's xoroshiro128+ (its seeding, rotations and jump), in Python ints: the reference
# the device generators must equal bit for bit.
_M64 = (1 << 64) - 1


def _ref_next(s0, s1):
    s1 ^= s0
    return (((s0 << 55) | (s0 >> 9)) ^ s1 ^ (s1 << 14)) & _M64, ((s1 << 36) | (s1 >> 28)) & _M64


def _ref_jump(s0, s1):
    t0 = t1 = 0
    for word in (0xBEAC0467EBA5FACB, 0xD86B048B86AA9922):
        for bit in range(64):
            if word >> bit & 1:
                t0, t1 = t0 ^ s0, t1 ^ s1
            s0, s1 = _ref_next(s0, s1)
    return t0, t1


def _ref_states(n, seed, subsequence_start):
    z = (seed + 0x9E3779B97F4A7C15) & _M64
    z = ((z ^ (z >> 30)) * 0xBF58476D1CE4E5B9) & _M64
    z = ((z ^ (z >> 27)) * 0x94D049BB133111EB) & _M64
    state = (z ^ (z >> 31),) * 2
    for _ in range(subsequence_start):
        state = _ref_jump(*state)
    states = [state]
    while len(states) < n:
        states.append(_ref_jump(*states[-1]))
    return states


def test_cuda_random_streams_are_numbas(current):
    from simt.cuda.random import (create_xoroshiro128p_states, xoroshiro128p_normal_float32,
                                  xoroshiro128p_uniform_float32, xoroshiro128p_uniform_float64)

    @cuda.jit
    def draw(states, u32, u64, normal):
        i = cuda.grid(1)
        if i < states.shape[0]:
            for k in range(u32.shape[1]):
                u32[i, k] = xoroshiro128p_uniform_float32(states, i)
            u64[i] = xoroshiro128p_uniform_float64(states, i)
            normal[i] = xoroshiro128p_normal_float32(states, i)

    n = 37
    states = create_xoroshiro128p_states(n, seed=12345, subsequence_start=3)
    reference = _ref_states(n, 12345, 3)
    assert [tuple(map(int, row)) for row in states.copy_to_host()] == reference
    u32, u64 = cuda.device_array((n, 3), np.float32), cuda.device_array(n)
    normal = cuda.device_array(n, np.float32)
    draw[2, 32](states, u32, u64, normal)
    want32, want64 = np.zeros((n, 3), np.float32), np.zeros(n)
    for i, s in enumerate(reference):
        for k in range(3):
            want32[i, k] = np.float32(((s[0] + s[1]) & _M64) >> 11) * np.float32(2.0 ** -53)
            s = _ref_next(*s)
        want64[i] = (((s[0] + s[1]) & _M64) >> 11) * 2.0 ** -53
    np.testing.assert_array_equal(u32.copy_to_host(), want32)
    np.testing.assert_array_equal(u64.copy_to_host(), want64)
    assert np.all(np.isfinite(normal.copy_to_host()))


def test_monte_carlo_pi_with_cuda_random(current):
    from simt.cuda.random import create_xoroshiro128p_states, xoroshiro128p_uniform_float32

    @cuda.jit
    def compute_pi(rng_states, iterations, out):
        thread_id = cuda.grid(1)
        inside = 0
        for i in range(iterations):
            x = xoroshiro128p_uniform_float32(rng_states, thread_id)
            y = xoroshiro128p_uniform_float32(rng_states, thread_id)
            if x ** 2 + y ** 2 <= 1.0:
                inside += 1
        out[thread_id] = 4.0 * inside / iterations

    threads_per_block, blocks = 64, 8
    rng_states = create_xoroshiro128p_states(threads_per_block * blocks, seed=1)
    out = np.zeros(threads_per_block * blocks, dtype=np.float32)
    compute_pi[blocks, threads_per_block](rng_states, 500, out)
    assert abs(out.mean() - math.pi) < 0.02


def test_numba_type_objects_as_signatures_and_dtypes(current):
    from simt.cuda import f8, float32, int32, types, void

    @cuda.jit(void(float32[:], int32))
    def scale(x, k):
        i = cuda.grid(1)
        if i < x.size:
            tmp = cuda.local.array(2, dtype=float32)
            tmp[0] = float32(k)
            x[i] = x[i] * tmp[0]

    x = cuda.to_device(np.arange(5, dtype=np.float32))
    scale[1, 32](x, 3)
    np.testing.assert_array_equal(x.copy_to_host(), np.arange(5) * 3)

    @cuda.jit([void(f8[::1], f8), "void(float32[::1], float32)"])
    def add(x, v):
        i = cuda.grid(1)
        if i < x.size:
            x[i] += v

    y = cuda.to_device(np.zeros(4))
    add[1, 32](y, 2.5)
    np.testing.assert_array_equal(y.copy_to_host(), np.full(4, 2.5))
    assert str(void(float32[:, ::1], types.Array(types.float64, 2, "F"),
                    types.UniTuple(types.int32, 2))) == \
        "void(float32[:, ::1], float64[::1, :], (int32, int32))"
    assert cuda.device_array(3, dtype=float32).dtype == np.float32 and np.dtype(f8) == np.float64
    with pytest.raises(TypeError, match="':' or '::1'"):
        float32[1:2]


def _bits_reference(value, width):
    u = int(value) & ((1 << width) - 1)
    return (bin(u).count("1"), width - u.bit_length(), (u & -u).bit_length(),
            int(format(u, f"0{width}b")[::-1], 2))


@pytest.mark.parametrize("dtype", ["int8", "uint16", "int32", "uint32", "int64", "uint64"])
def test_integer_bit_functions(current, rng, dtype):
    @cuda.jit
    def bits(x, pc, lz, fs, rv):
        i = cuda.grid(1)
        if i < x.size:
            pc[i] = cuda.popc(x[i])
            lz[i] = cuda.clz(x[i])
            fs[i] = cuda.ffs(x[i])
            rv[i] = cuda.brev(x[i])

    info = np.iinfo(dtype)
    x = rng.integers(info.min, info.max, 64, dtype=dtype, endpoint=True)
    x[:3] = [0, 1, info.max]
    outs = [cuda.device_array(64, dtype), cuda.device_array(64, dtype),
            cuda.device_array(64, np.int32), cuda.device_array(64, dtype)]
    bits[1, 64](cuda.to_device(x), *outs)
    width = np.dtype(dtype).itemsize * 8
    got = zip(*(o.copy_to_host().tolist() for o in outs))
    for value, (pc, lz, fs, rv) in zip(x.tolist(), got):
        assert (pc, lz, fs, rv & ((1 << width) - 1)) == _bits_reference(value, width), value


def test_fma_selp_cbrt(current, rng):
    @cuda.jit
    def arith(a, b, c, out, sel):
        i = cuda.grid(1)
        if i < a.size:
            out[i] = cuda.fma(a[i], b[i], c[i])
            sel[i] = cuda.selp(a[i] > b[i], a[i], b[i]) + cuda.cbrt(c[i])

    a, b, c = rng.random(100), rng.random(100), rng.random(100)
    out, sel = cuda.device_array(100), cuda.device_array(100)
    arith[1, 128](cuda.to_device(a), cuda.to_device(b), cuda.to_device(c), out, sel)
    np.testing.assert_allclose(out.copy_to_host(), a * b + c, rtol=1e-15)
    np.testing.assert_allclose(sel.copy_to_host(), np.maximum(a, b) + np.cbrt(c), rtol=1e-15)


def test_selp_of_every_kind_of_value(current, rng):
    @cuda.jit
    def pick(cond, h, z, flags, out_h, out_z, out_flags):
        i = cuda.grid(1)
        if i < cond.size:
            out_h[i] = cuda.selp(cond[i], h[i], -h[i])
            out_z[i] = cuda.selp(cond[i] > 0, z[i], z[i].imag)  # complex, and a float to it
            out_flags[i] = cuda.selp(cond[i], flags[i], not flags[i])

    n = 200
    cond = rng.integers(0, 2, n).astype(np.bool_)
    h = rng.standard_normal(n).astype(np.float16)
    z = (rng.standard_normal(n) + 1j * rng.standard_normal(n)).astype(np.complex64)
    flags = rng.integers(0, 2, n).astype(np.bool_)
    outs = [cuda.to_device(np.full(n, 7, h.dtype)), cuda.to_device(np.full(n, 7, z.dtype)),
            cuda.to_device(np.ones(n, np.bool_))]
    pick[1, 256](cuda.to_device(cond), cuda.to_device(h), cuda.to_device(z),
                 cuda.to_device(flags), *outs)
    np.testing.assert_array_equal(outs[0].copy_to_host(), np.where(cond, h, -h))
    np.testing.assert_array_equal(outs[1].copy_to_host(), np.where(cond, z, z.imag))
    np.testing.assert_array_equal(outs[2].copy_to_host(), np.where(cond, flags, ~flags))
