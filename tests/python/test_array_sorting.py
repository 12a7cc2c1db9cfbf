"""simt.sort, simt.argsort, Array.sort/argsort and simt.searchsorted against NumPy's stable
sort and searchsorted, on every device. On the cpu device the public functions use NumPy
on the array's memory; the `path` parameter also runs the GPUs' generated kernels there
("kernels": as the GPUs choose, short rows by a block each), and the radix sort's passes
on every device, whatever the row length ("passes"), so every kernel is checked on every
machine."""

import numpy as np
import pytest

import simt
from simt._array_api import _sorting

from array_helpers import assert_exact, random_numbers

REAL_DTYPES = [np.bool_, np.int8, np.int16, np.int32, np.int64, np.uint8, np.uint16,
               np.uint32, np.uint64, np.float16, np.float32, np.float64]
FLOATS = [np.float16, np.float32, np.float64]
PATHS = ["public", "kernels", "passes"]


def _skip_unless_fp64(device, dtype):
    if np.dtype(dtype) == np.float64 and not device.supports_float64:
        pytest.skip(f"{device.id} has no float64")


def _sorter(device, path):
    """(sort, argsort) of the path under test: the public functions, or the kernels called
    directly (on GPUs "kernels" is the public path: skipped there)."""
    if path == "public":
        return simt.sort, simt.argsort
    if path == "kernels" and device.backend != "cpu":
        pytest.skip("the generated kernels are the public path on GPUs")
    short_rows = path == "kernels"

    def sort(x, axis=-1, descending=False):
        return _sorting.generated_sort(x, axis % x.ndim, descending, indices=False,
                                   short_rows=short_rows)

    def argsort(x, axis=-1, descending=False):
        return _sorting.generated_sort(x, axis % x.ndim, descending, indices=True,
                                   short_rows=short_rows)
    return sort, argsort


def expected_argsort(x, axis, descending):
    """NumPy's stable argsort; descending: the reversed order, ties in their order."""
    if not descending:
        return np.argsort(x, axis=axis, kind="stable")
    flipped = np.argsort(np.flip(x, axis), axis=axis, kind="stable")
    return x.shape[axis] - 1 - np.flip(flipped, axis)


def check_sorts(device, path, x, axis=-1, descending=False):
    """sort and argsort of x (a NumPy array, also given as a view) against NumPy's."""
    sort, argsort = _sorter(device, path)
    a = simt.asarray(x, device=device) if not isinstance(x, simt.Array) else x
    host = x.get() if isinstance(x, simt.Array) else x
    order = expected_argsort(host, axis, descending)
    what = f"{host.dtype} {host.shape} axis={axis} descending={descending} ({path})"
    assert_exact(argsort(a, axis=axis, descending=descending), order, "argsort " + what)
    # The values bit for bit: -0.0 stays -0.0 where it was sorted, NaN payloads stay.
    assert_exact(sort(a, axis=axis, descending=descending),
                 np.take_along_axis(host, order, axis), "sort " + what)


@pytest.mark.parametrize("path", PATHS)
@pytest.mark.parametrize("dtype", REAL_DTYPES)
def test_sort_every_dtype(device, rng, dtype, path):
    _skip_unless_fp64(device, dtype)
    info_bound = 100 if np.dtype(dtype).kind == "f" else None
    for n in (1, 2, 255, 2048, 2049):
        if info_bound is None and np.dtype(dtype).kind in "iu":
            info = np.iinfo(dtype)
            x = rng.integers(info.min, info.max, n, endpoint=True, dtype=dtype)
        else:
            x = random_numbers(rng, n, dtype, scale=100)
        for descending in (False, True):
            check_sorts(device, path, x, descending=descending)


@pytest.mark.parametrize("path", PATHS)
@pytest.mark.parametrize("dtype", [np.int8, np.uint16, np.int32, np.float32, np.bool_])
def test_argsort_is_stable_with_many_ties(device, rng, dtype, path):
    # 20_000 elements of 3 values: most of each tie spans several blocks' tiles.
    x = rng.integers(0, 3 if dtype != np.bool_ else 2, 20_000).astype(dtype)
    for descending in (False, True):
        check_sorts(device, path, x, descending=descending)


@pytest.mark.parametrize("path", PATHS)
@pytest.mark.parametrize("dtype", FLOATS)
def test_nan_sorts_last_and_signed_zeros_are_equal(device, rng, dtype, path):
    _skip_unless_fp64(device, dtype)
    x = rng.choice(np.array([0.0, -0.0, 1.5, -1.5, np.inf, -np.inf, np.nan], dtype), 3000)
    # NaNs of the other sign and another payload sort among the NaNs, stably.
    bits = np.dtype(f"u{x.itemsize}")
    negative_nan = np.array(-np.nan, dtype).view(bits) | np.array(1, bits)
    x[rng.integers(0, x.size, 50)] = negative_nan.view(dtype)
    for descending in (False, True):
        check_sorts(device, path, x, descending=descending)
    got = simt.sort(simt.asarray(x, device=device)).get()
    assert np.isnan(got[-np.isnan(x).sum():]).all() and not np.isnan(got[0])


@pytest.mark.parametrize("path", PATHS)
def test_sort_large_uses_many_blocks(device, rng, path):
    x = rng.standard_normal(100_000).astype(np.float32)
    x[::1000] = np.nan
    check_sorts(device, path, x)
    ties = rng.integers(0, 50, 100_003).astype(np.int64)
    check_sorts(device, path, ties, descending=True)


@pytest.mark.parametrize("path", PATHS)
def test_sort_along_each_axis(device, rng, path):
    for shape in [(7, 300), (300, 5), (3, 4, 50), (33, 2, 17)]:
        x = rng.integers(-20, 20, shape).astype(np.float32)
        x.flat[::7] = np.nan
        for axis in range(-len(shape), len(shape)):
            for descending in (False, True):
                check_sorts(device, path, x, axis, descending)


@pytest.mark.parametrize("path", PATHS)
def test_sort_of_non_contiguous_views(device, rng, path):
    x = rng.integers(-9, 9, (40, 60)).astype(np.int32)
    a = simt.asarray(x, device=device)
    for view in (a[::2], a[:, ::3], a[::-1, 5:], a.T):
        check_sorts(device, path, view, axis=-1)
        check_sorts(device, path, view, axis=0, descending=True)


@pytest.mark.parametrize("path", PATHS)
def test_sort_of_a_broadcast_view(device, rng, path):
    x = rng.integers(0, 5, 9).astype(np.uint8)
    repeated = simt.broadcast_to(simt.asarray(x, device=device), (4, 9))
    check_sorts(device, path, repeated, axis=-1)
    check_sorts(device, path, repeated, axis=0, descending=True)


@pytest.mark.parametrize("path", PATHS)
def test_sort_of_empty_and_single_element(device, path):
    for shape, axis in [((0,), 0), ((3, 0), -1), ((3, 0), 0), ((0, 4), 1), ((1,), 0),
                        ((5, 1), -1), ((1, 5), 0)]:
        x = np.arange(np.prod(shape), dtype=np.float32).reshape(shape)[::-1] \
            if len(shape) == 1 else np.arange(np.prod(shape), dtype=np.float32).reshape(shape)
        check_sorts(device, path, np.ascontiguousarray(x), axis)


def test_array_sort_method_sorts_in_place(device, rng):
    x = rng.integers(0, 10, (6, 40)).astype(np.int16)
    a = simt.asarray(x, device=device)
    assert a.sort(axis=0) is None
    assert_exact(a, np.sort(x, axis=0, kind="stable"), "Array.sort(axis=0)")
    a.sort()
    assert_exact(a, np.sort(np.sort(x, axis=0), axis=-1), "Array.sort()")
    assert_exact(simt.asarray(x, device=device).argsort(axis=0),
                 np.argsort(x, axis=0, kind="stable"), "Array.argsort(axis=0)")


def test_sort_errors_say_what_and_where(device):
    a = simt.asarray(np.arange(6.0).reshape(2, 3), device=device)
    with pytest.raises(np.exceptions.AxisError, match="simt.sort"):
        simt.sort(a, axis=2)
    with pytest.raises(np.exceptions.AxisError, match="simt.argsort"):
        simt.argsort(a, axis=-3)
    with pytest.raises(TypeError, match="simt.sort: axis must be an int"):
        simt.sort(a, axis=1.0)
    with pytest.raises(ValueError, match="simt.argsort: x must have at least one dimension"):
        simt.argsort(simt.asarray(np.float32(1), device=device))
    with pytest.raises(TypeError, match="simt.sort: complex arrays"):
        simt.sort(simt.asarray(np.ones(3, np.complex64), device=device))
    with pytest.raises(TypeError, match="simt.sort: x must be a simt array, not ndarray"):
        simt.sort(np.ones(3))
    with pytest.raises(ValueError, match="order="):
        a.sort(order="x")


# searchsorted


@pytest.mark.parametrize("side", ["left", "right"])
@pytest.mark.parametrize("dtype", [np.bool_, np.int16, np.uint32, np.float32, np.float64])
def test_searchsorted_matches_numpy(device, rng, dtype, side):
    _skip_unless_fp64(device, dtype)
    x1 = np.sort(random_numbers(rng, 1000, dtype, bound=30, scale=10))
    needles = random_numbers(rng, (17, 31), dtype, bound=40, scale=12)
    if np.dtype(dtype).kind == "f":
        x1 = np.sort(np.concatenate([x1, [np.nan, np.nan, np.inf]]).astype(dtype))
        needles.flat[::9] = np.nan
        needles.flat[::10] = -np.inf
    d = simt.asarray(x1, device=device)
    got = simt.searchsorted(d, simt.asarray(needles, device=device), side=side)
    assert_exact(got, np.searchsorted(x1, needles, side=side), f"searchsorted {side}")
    # A strided x1 and a strided x2.
    got = simt.searchsorted(d[::3], simt.asarray(needles, device=device)[:, ::2], side=side)
    assert_exact(got, np.searchsorted(x1[::3], needles[:, ::2], side=side), "strided")


@pytest.mark.parametrize("side", ["left", "right"])
def test_searchsorted_with_sorter_and_mixed_dtypes(device, rng, side):
    x1 = rng.integers(-50, 50, 777).astype(np.int32)
    sorter = np.argsort(x1, kind="stable")
    needles = rng.integers(-60, 60, 300) + 0.5 * rng.integers(0, 2, 300)  # float64
    if not device.supports_float64:
        needles = needles.astype(np.float32)
    got = simt.searchsorted(simt.asarray(x1, device=device),
                            simt.asarray(needles, device=device), side=side,
                            sorter=simt.asarray(sorter, device=device))
    assert_exact(got, np.searchsorted(x1, needles, side=side, sorter=sorter), "sorter")


def test_searchsorted_edges(device):
    x1 = simt.asarray(np.array([1, 2, 2, 3], np.int64), device=device)
    assert_exact(simt.searchsorted(x1, simt.asarray(np.zeros((0, 3), np.int64),
                                                    device=device)),
                 np.zeros((0, 3), np.int64), "no needles")
    assert_exact(simt.searchsorted(simt.asarray(np.zeros(0, np.int64), device=device),
                                   simt.asarray(np.array([5, -5]), device=device)),
                 np.zeros(2, np.int64), "empty x1")
    assert_exact(simt.searchsorted(x1, 2, side="right"), np.searchsorted([1, 2, 2, 3], 2,
                                                                         side="right"),
                 "a scalar needle")


def test_searchsorted_errors(device):
    x1 = simt.asarray(np.arange(5), device=device)
    with pytest.raises(ValueError, match="simt.searchsorted: side must be 'left' or 'right'"):
        simt.searchsorted(x1, x1, side="middle")
    with pytest.raises(ValueError, match="x1 must be one-dimensional"):
        simt.searchsorted(simt.asarray(np.zeros((2, 2)), device=device), x1)
    with pytest.raises(ValueError, match="sorter must have x1's shape"):
        simt.searchsorted(x1, x1, sorter=x1[:3])
    with pytest.raises(TypeError, match="sorter must be an integer array"):
        simt.searchsorted(x1, x1, sorter=simt.asarray(np.zeros(5), device=device))
    with pytest.raises(ValueError, match="simt.searchsorted: sorter holds an index out of "
                                         "range for x1 of length 5"):
        simt.searchsorted(x1, x1, sorter=simt.asarray(np.array([0, 1, 2, 3, 9]),
                                                       device=device))
    with pytest.raises(TypeError, match="simt.searchsorted: complex"):
        simt.searchsorted(simt.asarray(np.ones(3, np.complex64), device=device), x1)


def test_operations_on_two_devices_are_refused():
    devices = simt.devices()
    if len(devices) < 2:
        pytest.skip("one device")
    a = simt.asarray(np.arange(4), device=devices[0])
    b = simt.asarray(np.arange(4), device=devices[1])
    with pytest.raises(ValueError, match="simt.searchsorted: x1 is on .* x2 on"):
        simt.searchsorted(a, b)
    with pytest.raises(ValueError, match="sorter on"):
        simt.searchsorted(a, a, sorter=b)


# The radix sort's passes, each ranking (warp: CUDA's, run here on the cpu device, which
# has warp operations; thread: OpenCL's), on fresh inputs full of ties, NaNs of both signs
# and payloads, and signed zeros, at sizes around a tile, into poisoned memory.


def _rankings(device):
    return ["warp", "thread"] if device.backend == "cpu" else [_sorting._ranking(device)]


def poison_allocations(monkeypatch, *modules):
    """Every array the modules allocate through their `empty` starts as 0xA5 bytes."""
    real_empty = modules[0].empty

    def empty(shape, dtype, device):
        out = real_empty(shape, dtype, device)
        if out.size:
            out._impl.fill(b"\xa5" * out.itemsize)
        return out
    for module in modules:
        monkeypatch.setattr(module, "empty", empty)


@pytest.fixture
def poisoned(monkeypatch):
    """Every array the sort allocates starts as 0xA5 bytes, not zeros."""
    poison_allocations(monkeypatch, _sorting)


def _awkward(rng, n, dtype):
    """n elements of dtype with many ties; floats also with +-0.0, +-inf and NaNs of both
    signs and several payloads."""
    dtype = np.dtype(dtype)
    if dtype.kind == "b":
        return rng.integers(0, 2, n).astype(dtype)
    if dtype.kind in "iu":
        info = np.iinfo(dtype)
        x = rng.integers(info.min, info.max, n, endpoint=True, dtype=dtype)
        few = rng.integers(0, 5, n).astype(dtype)  # ties
        return np.where(rng.random(n) < 0.5, x, few)
    x = rng.choice(np.array([0.0, -0.0, 1.5, -1.5, np.inf, -np.inf, 2.0, -3.25], dtype), n)
    spread = rng.random(n) < 0.3
    x[spread] = random_numbers(rng, n, dtype, scale=100)[spread]
    bits = np.dtype(f"u{dtype.itemsize}")
    nans = np.array([np.nan, -np.nan], dtype).view(bits)
    for payload in (0, 1, 3):
        where = rng.random(n) < 0.03
        x.view(bits)[where] = nans[payload % 2] | np.array(payload, bits)
    return x


def _radix(ranking):
    def sort(x, axis=-1, descending=False, indices=False):
        return _sorting.generated_sort(x, axis % x.ndim, descending, indices=indices,
                                       short_rows=False, ranking=ranking)
    return sort


@pytest.mark.parametrize("dtype", REAL_DTYPES)
def test_radix_passes_at_tile_edges(device, rng, dtype, poisoned):
    _skip_unless_fp64(device, dtype)
    for ranking in _rankings(device):
        radix = _radix(ranking)
        tile = _sorting._Plan(device, np.dtype(dtype), np.dtype(np.int32), ranking).tile
        for n in (1, 2, tile - 1, tile, tile + 1, 2 * tile + 5):
            x = _awkward(rng, n, dtype)
            for descending in (False, True):
                order = expected_argsort(x, -1, descending)
                what = f"{np.dtype(dtype)} n={n} descending={descending} ({ranking})"
                a = simt.asarray(x, device=device)
                assert_exact(radix(a, descending=descending, indices=True), order,
                             "argsort " + what)
                # Bit for bit: -0.0 where it was, the NaNs' signs and payloads.
                got, want = radix(a, descending=descending).get(), x[order]
                if x.dtype == np.float16:
                    # simt's float16 values pass through float32 in kernels (cpu,
                    # OpenCL), whose NaNs it rounds to the quiet NaN of their sign:
                    # float16 NaN payloads are lost (their signs are kept).
                    got, want = np.where(np.isnan(got), np.nan, got), \
                        np.where(np.isnan(want), np.nan, want)
                bits = f"u{x.itemsize}"
                assert np.array_equal(got.view(bits), want.view(bits)), "sort " + what


@pytest.mark.parametrize("blocks_per_unit", [1, 64])
def test_radix_passes_rows_axes_and_block_shares(device, rng, monkeypatch, poisoned,
                                                 blocks_per_unit):
    # 1 block per compute unit: blocks take many tiles each; 64: one tile each.
    monkeypatch.setattr(_sorting, "BLOCKS_PER_UNIT", blocks_per_unit)
    for ranking in _rankings(device):
        radix = _radix(ranking)
        for shape, dtype in [((3, 9000), np.float32), ((300, 40), np.int16),
                             ((2, 5000, 3), np.uint8), ((40_000,), np.int64)]:
            x = _awkward(rng, int(np.prod(shape)), dtype).reshape(shape)
            a = simt.asarray(x, device=device)
            for axis in range(-len(shape), 0):
                for descending in (False, True):
                    order = expected_argsort(x, axis, descending)
                    what = f"{x.dtype} {shape} axis={axis} descending={descending} " \
                           f"({ranking})"
                    assert_exact(radix(a, axis, descending, indices=True), order,
                                 "argsort " + what)
                    assert_exact(radix(a, axis, descending),
                                 np.take_along_axis(x, order, axis), "sort " + what)


@pytest.mark.parametrize("shape,axis", [((2 ** 18 + 3,), -1), ((1, 2 ** 18 + 3), 1),
                                        ((2 ** 18 + 3, 1), 0), ((64, 4099), 1),
                                        ((4099, 64), 0), ((3, 2 ** 17 + 1), 1)])
def test_large_sorts_over_threads_are_numpys_stable_sort(device, rng, shape, axis):
    """Sorts of a MiB and more (the cpu device splits them over its threads: rows apart,
    or one row's pieces sorted then merged): NumPy's stable order exactly, ties (many
    repeated values, -0.0 beside 0.0) and NaNs included, ascending and descending."""
    xh = rng.integers(-50, 50, shape).astype(np.float32)
    flat = xh.reshape(-1)
    flat[::97] = np.nan
    flat[::89] = -0.0
    x = simt.asarray(xh, device=device)
    for descending in (False, True):
        if descending:
            want = np.flip(np.sort(np.flip(xh, axis), axis=axis, kind="stable"), axis)
            order = xh.shape[axis] - 1 - np.flip(
                np.argsort(np.flip(xh, axis), axis=axis, kind="stable"), axis)
        else:
            want = np.sort(xh, axis=axis, kind="stable")
            order = np.argsort(xh, axis=axis, kind="stable")
        got = simt.sort(x, axis=axis, descending=descending).get()
        np.testing.assert_array_equal(got, want)
        np.testing.assert_array_equal(np.signbit(got), np.signbit(want))
        np.testing.assert_array_equal(
            simt.argsort(x, axis=axis, descending=descending).get(), order)
