"""Slices of arrays inside kernels (views, as NumPy's basic slicing makes them) and
tuples as indices, on every device, against NumPy."""

import numpy as np
import pytest

import simt
from simt import cuda

pytestmark = pytest.mark.filterwarnings("ignore::simt.PerformanceWarning")

POISON = -7


@cuda.jit
def k_slice_all(a, out, count, lo, hi, st):
    b = a[lo:hi:st]
    count[0] = b.size
    count[1] = len(b)
    for k in range(b.shape[0]):
        out[k] = b[k]


@cuda.jit
def k_slice_forms(a, out, count, lo, hi, st):
    # Each form writes its view into its own row of `out`, its size into `count`.
    forms = 0
    b = a[lo:]
    for k in range(b.size):
        out[0, k] = b[k]
    count[0] = b.size
    b = a[:hi]
    for k in range(b.size):
        out[1, k] = b[k]
    count[1] = b.size
    b = a[::st]
    for k in range(b.size):
        out[2, k] = b[k]
    count[2] = b.size
    b = a[lo:hi]
    for k in range(b.size):
        out[3, k] = b[k]
    count[3] = b.size
    b = a[:]
    for k in range(b.size):
        out[4, k] = b[k]
    count[4] = b.size
    b = a[-3:]
    for k in range(b.size):
        out[5, k] = b[k]
    count[5] = b.size
    b = a[::-1]
    for k in range(b.size):
        out[6, k] = b[k]
    count[6] = b.size
    b = a[lo::st]
    for k in range(b.size):
        out[7, k] = b[k]
    count[7] = b.size + forms


BOUNDS = [0, 1, 3, -1, -4, 11, 12, 40, -40]


@pytest.mark.parametrize("st", [1, 2, 3, -1, -2, -5, 13, -13])
def test_one_dimensional_slices_clamp_as_numpy(current, rng, st):
    a = rng.integers(-100, 100, 12).astype(np.int64)
    for lo in BOUNDS:
        for hi in rng.choice(BOUNDS, 3):
            out = np.full(20, POISON, np.int64)
            count = np.full(2, POISON, np.int64)
            k_slice_all[1, 1](a, out, count, lo, int(hi), st)
            want = a[lo:hi:st]
            assert list(count) == [want.size, want.size]
            np.testing.assert_array_equal(out[:want.size], want)
            assert np.all(out[want.size:] == POISON)
        out = np.full((8, 20), POISON, np.int64)
        count = np.full(8, POISON, np.int64)
        hi = int(rng.choice(BOUNDS))
        k_slice_forms[1, 1](a, out, count, lo, hi, st)
        wants = [a[lo:], a[:hi], a[::st], a[lo:hi], a[:], a[-3:], a[::-1], a[lo::st]]
        for row, want in enumerate(wants):
            assert count[row] == want.size, row
            np.testing.assert_array_equal(out[row, :want.size], want)


@cuda.jit
def k_rows_and_columns(m, rows, cols, corner):
    i = cuda.grid(1)
    if i < m.shape[0]:
        r = m[i, :]
        for k in range(r.size):
            rows[i, k] = r[k] * 2
    if i < m.shape[1]:
        c = m[:, i]
        for k in range(c.shape[0]):
            cols[i, k] = c[k]
    if i == 0:
        v = m[1:, ::2]
        w = v[::-1, 1:]   # a slice of a view
        for p in range(w.shape[0]):
            for q in range(w.shape[1]):
                corner[p, q] = w[p, q]


def test_rows_columns_and_slices_of_views(current, rng):
    m = rng.standard_normal((5, 7)).astype(np.float32)
    rows = np.full((5, 7), POISON, np.float32)
    cols = np.full((7, 5), POISON, np.float32)
    want = m[1:, ::2][::-1, 1:]
    corner = np.full(want.shape, POISON, np.float32)
    k_rows_and_columns[1, 8](m, rows, cols, corner)
    np.testing.assert_array_equal(rows, m * 2)
    np.testing.assert_array_equal(cols, m.T)
    np.testing.assert_array_equal(corner, want)


@cuda.jit
def k_shapes(m, out):
    v = m[1:-1, ::3]
    s = v.shape
    out[0] = s[0]
    out[1] = s[1]
    out[2] = v.size
    out[3] = v.ndim
    out[4] = m[2, 1:].shape[0]
    out[5] = m[::2].shape[0]


def test_shape_and_size_of_a_slice(current):
    m = np.zeros((6, 10), np.int32)
    out = np.full(6, POISON, np.int64)
    k_shapes[1, 1](m, out)
    v = m[1:-1, ::3]
    assert list(out) == [v.shape[0], v.shape[1], v.size, v.ndim, m[2, 1:].shape[0],
                         m[::2].shape[0]]


@cuda.jit
def k_write_through(a, lo, value):
    i = cuda.grid(1)
    b = a[lo::2]
    if i < b.size:
        b[i] = value + i
    c = a[::-1]
    if i == 0:
        c[0] = -1.5


def test_writes_through_a_slice_reach_the_array(current, rng):
    a = rng.standard_normal(21)
    want = a.copy()
    want[3::2] = 10 + np.arange(want[3::2].size)
    want[-1] = -1.5
    k_write_through[1, 32](a, 3, 10.0)
    np.testing.assert_array_equal(a, want)


@cuda.jit(device=True)
def total(v):
    s = 0.0
    for k in range(v.size):
        s += v[k]
    return s


@cuda.jit(device=True)
def fill(v, x):
    for k in range(v.shape[0]):
        v[k] = x


@cuda.jit
def k_device_functions(m, sums):
    i = cuda.grid(1)
    if i < m.shape[0]:
        sums[i] = total(m[i, 1:])
        fill(m[i, :1], 0.0)


def test_slices_passed_to_device_functions(current, rng):
    m = rng.standard_normal((9, 4))
    want = m[:, 1:].sum(axis=1)
    sums = np.full(9, POISON, np.float64)
    k_device_functions[1, 16](m, sums)
    np.testing.assert_allclose(sums, want, rtol=1e-12)
    assert np.all(m[:, 0] == 0)


@cuda.jit
def k_shared_and_local(a, out):
    t = cuda.threadIdx.x
    sh = cuda.shared.array(16, np.float32)
    sh[t] = a[t]
    cuda.syncthreads()
    loc = cuda.local.array(16, np.float32)
    for k in range(16):
        loc[k] = sh[k] * 2
    back = sh[::-1]
    tail = loc[t:]
    out[t] = back[t] + tail[0] + tail.size


def test_slices_of_shared_and_local_arrays(current, rng):
    a = rng.standard_normal(16).astype(np.float32)
    out = np.full(16, POISON, np.float32)
    k_shared_and_local[1, 16](a, out)
    t = np.arange(16)
    np.testing.assert_allclose(out, a[::-1] + 2 * a + (16 - t), rtol=1e-6)


@cuda.jit(boundscheck=True)
def k_checked_slice(a, index):
    b = a[2:6]
    b[index] = 1.0


def test_checked_indices_into_a_slice_use_its_extent(current):
    a = np.zeros(10)
    k_checked_slice[1, 1](a, -4)
    assert a[2] == 1.0
    with pytest.raises(IndexError, match="out of bounds|outside|extent|index"):
        k_checked_slice[1, 1](a, 4)     # inside a, outside the slice
    with pytest.raises(IndexError):
        k_checked_slice[1, 1](a, -5)


def test_a_constant_zero_step_is_an_error(current):
    @cuda.jit
    def k(a):
        b = a[::0]
        b[0] = 1

    with pytest.raises(simt.TypingError, match="slice step cannot be zero"):
        k[1, 1](np.zeros(3))


def test_a_slice_bound_must_be_an_integer(current):
    @cuda.jit
    def k(a):
        b = a[1.5:]
        b[0] = 1

    with pytest.raises(simt.TypingError, match="slice bound or step must be an integer"):
        k[1, 1](np.zeros(3))


# ---- tuples as indices -------------------------------------------------------------

@cuda.jit(device=True)
def swapped(i, j):
    return j, i


@cuda.jit
def k_tuple_indices(a, b, c, d):
    i, j = cuda.grid(2)
    if i < a.shape[0] and j < a.shape[1]:
        idx = (i, j)
        a[idx] = i * 10 + j
        b[cuda.grid(2)] = a[idx] + 1
        c[swapped(j, i)] = 3 * a[i, j]
        row = d[(i,)]          # a prefix: a view of the row
        row[j] = a[idx] - 1


def test_tuple_values_index_arrays(current):
    shape = (5, 6)
    a, b, c, d = (np.full(shape, POISON, np.int32) for _ in range(4))
    k_tuple_indices[(1, 1), (8, 8)](a, b, c, d)
    want = np.add.outer(np.arange(5) * 10, np.arange(6))
    np.testing.assert_array_equal(a, want)
    np.testing.assert_array_equal(b, want + 1)
    np.testing.assert_array_equal(c, 3 * want)
    np.testing.assert_array_equal(d, want - 1)


def test_a_tuple_index_longer_than_the_array_is_an_error(current):
    @cuda.jit
    def k(a):
        idx = (0, 1, 2)
        a[idx] = 1

    with pytest.raises(simt.TypingError, match="too many indices.*2-dimensional, but 3"):
        k[1, 1](np.zeros((2, 2)))


def test_a_tuple_index_must_hold_integers(current):
    @cuda.jit
    def k(a):
        idx = (0, 1.5)
        a[idx] = 1

    with pytest.raises(simt.TypingError, match="tuple of integers"):
        k[1, 1](np.zeros((2, 2)))


# arr.reshape(...) in kernels: NumPy's view of a C-contiguous array (one axis may be -1),
# with the shape as a tuple argument, as integers, or a tuple display; a shape of another
# size stops the thread (ValueError with debug=True, as Numba's).

@cuda.jit
def k_reshape_2d(a, shape, got, done):
    y = a.reshape(shape)
    for i in range(y.shape[0]):
        for j in range(y.shape[1]):
            got[i, j] = y[i, j]
    done[0] = 1


@cuda.jit
def k_reshape_forms(a, n, got3, got1):
    t = cuda.threadIdx.x
    if t == 0:
        y = a.reshape(2, n, -1)
        for i in range(y.shape[0]):
            for j in range(y.shape[1]):
                for k in range(y.shape[2]):
                    got3[i, j, k] = y[i, j, k]
    if t == 1:
        flat = a.reshape((-1,))
        k = 0
        while k < flat.size:          # writes through the view reach `a`
            got1[k] = flat[k]
            flat[k] = -flat[k]
            k += 1


@cuda.jit(device=True)
def _tile_at(a, i, j):
    return a.reshape(4, -1)[i, j]


@cuda.jit
def k_reshape_shared(a, out):
    s = cuda.shared.array(16, np.float64)
    t = cuda.threadIdx.x
    s[t] = a[t]
    cuda.syncthreads()
    m = s.reshape((4, 4))
    out[t] = m[t % 4, t // 4] + _tile_at(a, t // 4, t % 4)


@pytest.mark.parametrize("shape", [(4, 6), (8, 3), (-1, 4), (24, 1), (1, -1)])
def test_reshape_in_kernels_as_numpy(current, rng, shape):
    for source_shape in [(24,), (2, 12), (1, 8, 1, 3)]:
        a = rng.standard_normal(24).reshape(source_shape)
        want = a.reshape(shape)
        got = np.full(want.shape, np.nan)
        done = np.zeros(1, np.int64)
        k_reshape_2d[1, 1](a, shape, got, done)
        np.testing.assert_array_equal(got, want)
        assert done[0] == 1


def test_reshape_forms_writes_and_shared_arrays(current, rng):
    a = rng.standard_normal((3, 8))
    d = simt.to_device(a)
    got3 = np.full((2, 3, 4), np.nan)
    got1 = np.full(24, np.nan)
    k_reshape_forms[1, 2](d, 3, got3, got1)
    np.testing.assert_array_equal(got3, a.reshape(2, 3, -1))
    np.testing.assert_array_equal(got1, a.ravel())
    np.testing.assert_array_equal(d.get(), -a)
    b = rng.standard_normal(16)
    out = np.full(16, np.nan)
    k_reshape_shared[1, 16](b, out)
    t = np.arange(16)
    np.testing.assert_array_equal(out, b.reshape(4, 4)[t % 4, t // 4] + b.reshape(4, -1)[t // 4, t % 4])


@pytest.mark.parametrize("shape", [(5, 5), (-1, 7), (-1, -1), (0, -1), (-2, 12)])
def test_reshape_to_another_size_stops_the_thread(current, rng, shape):
    a = rng.standard_normal(24)
    got = np.full((1, 1), np.nan)
    done = np.zeros(1, np.int64)
    k_reshape_2d[1, 1](a, shape, got, done)        # as Numba without debug: the thread stops
    assert done[0] == 0 and np.isnan(got[0, 0])
    checked = cuda.jit(debug=True)(k_reshape_2d.py_func)
    with pytest.raises(ValueError, match=r"^cannot reshape array of size 24 into the shape "
                                         r"asked \(array 'a' in kernel 'k_reshape_2d'"):
        checked[1, 1](a, shape, got, done)


def test_reshape_errors(current):
    @cuda.jit
    def strided(a, out):
        y = a[::2].reshape(2, 2)
        out[0] = y[0, 0]

    with pytest.raises(simt.TypingError, match=r"reshape\(\) in kernels needs a C-contiguous"):
        strided[1, 1](np.arange(8.0), np.zeros(1))

    @cuda.jit
    def floats(a, out):
        y = a.reshape(2.0, 4)
        out[0] = y[0, 0]

    with pytest.raises(simt.TypingError, match=r"reshape\(\) takes the new shape as integers"):
        floats[1, 1](np.arange(8.0), np.zeros(1))


@cuda.jit
def k_tile_sum(a, out):
    t = cuda.threadIdx.x
    out[t] = 1.0
    out[t] = _tile_at(a, 0, 0) + t       # a device function's failed reshape stops the caller
    out[t] += 1.0


def test_a_failed_reshape_in_a_device_function_stops_the_calling_thread(current, rng):
    a = rng.standard_normal(8)
    out = np.full(4, np.nan)
    k_tile_sum[1, 4](a, out)
    np.testing.assert_array_equal(out, a[0] + np.arange(4) + 1.0)
    k_tile_sum[1, 4](a[:6], out)
    np.testing.assert_array_equal(out, np.ones(4))


def test_generated_cuda_with_reshapes_compiles():
    if not simt._core.nvrtc_compile('extern "C" __global__ void k() {}')["available"]:
        pytest.skip("NVRTC is not available")
    for kernel, types in [(k_reshape_2d, ("float64[::1]", "(int64, int64)", "float64[:, ::1]",
                                          "int64[::1]")),
                          (k_reshape_forms, ("float64[:, ::1]", "int64", "float64[:, :, ::1]",
                                             "float64[::1]")),
                          (k_reshape_shared, ("float64[::1]", "float64[::1]")),
                          (k_tile_sum, ("float64[::1]", "float64[::1]"))]:
        source = kernel.inspect_source(*types, dialect="cuda")
        result = simt._core.nvrtc_compile(source, 90)
        assert result["ok"], result["log"]
