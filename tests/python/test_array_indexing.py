"""Indexing simt arrays as NumPy indexes its arrays: ints, slices, Ellipsis, None, integer
index arrays and boolean masks, read and assigned; take, take_along_axis, nonzero and
argwhere. Every result is compared with NumPy's on fresh random inputs, on every device."""

import numpy as np
import pytest

import simt
from simt._array import Array
from simt._array_api import _indexing




def put(host, device):
    return simt.to_device(host, device=device)


def check(got, expected):
    assert isinstance(got, Array)
    host = got.get()
    assert host.shape == expected.shape
    assert host.dtype == expected.dtype
    np.testing.assert_array_equal(host, expected)


def on_device(key, device):
    """The key with its NumPy arrays as simt arrays on device."""
    items = key if isinstance(key, tuple) else (key,)
    moved = tuple(put(k, device) if isinstance(k, np.ndarray) else k for k in items)
    return moved if isinstance(key, tuple) else moved[0]


# ----------------------------------------------------------------------------------------
# Basic indexing: views


BASIC_KEYS = [
    (1, 2, 3), (-1, 0, -2), 1, (slice(None), 2), (Ellipsis, 1), (1, Ellipsis, 2),
    (slice(1, None, 2), slice(None, None, -1)), (None, 1), (slice(None), None, Ellipsis, None),
    (slice(-2, 0, -1), None, 3), (), Ellipsis, (0, slice(5, 1)),
]


def test_basic_indexing_gives_views(device, rng):
    host = rng.standard_normal((3, 4, 5))
    x = put(host, device)
    for key in BASIC_KEYS:
        got = x[key]
        check(got, np.asarray(host[key]))
        if got.size:
            # A view: it shares x's memory.
            assert got._impl.buffer_bytes == x._impl.buffer_bytes
    # All-integer keys give 0-d arrays, views as well.
    element = x[1, -1, 2]
    assert isinstance(element, Array) and element.shape == ()
    assert float(element) == host[1, -1, 2]
    x[1, -1, 2] = 7.5
    assert float(element) == 7.5


def test_basic_indexing_of_views(device, rng):
    host = rng.standard_normal((6, 5))
    x = put(host, device)[::-2, 1:]
    view = host[::-2, 1:]
    for key in [(1, -1), (slice(None, None, -1),), (None, slice(1, 3), None), (Ellipsis, 0)]:
        check(x[key], np.asarray(view[key]))
    zero = put(np.array(2.5), device)
    check(zero[()], np.array(2.5))
    check(zero[None], np.array([2.5]))
    check(zero[...], np.array(2.5))


# ----------------------------------------------------------------------------------------
# Integer index arrays


@pytest.mark.parametrize("dtype", [np.int32, np.int64])
def test_integer_arrays(device, rng, dtype):
    host = rng.standard_normal((5, 4, 3))
    x = put(host, device)
    i = rng.integers(-5, 5, 7).astype(dtype)
    j = rng.integers(-4, 4, (2, 3)).astype(dtype)
    k = rng.integers(-3, 3, (3,)).astype(dtype)
    for key in [i, (i,), (slice(None), j), (Ellipsis, k), (j, slice(None), k), (j, 1, k),
                (2, j), (j, k, 0), (i, Ellipsis)]:
        check(x[on_device(key, device)], host[key])
    one = put(rng.standard_normal(9), device)
    check(one[put(i, device)], one.get()[i])
    # Host index arrays and lists are copied to x's device.
    check(x[[0, -1, 2]], host[[0, -1, 2]])
    check(x[i], host[i])
    check(x[[[1], [2]], :, [0, 2]], host[[[1], [2]], :, [0, 2]])


def test_broadcast_index_arrays(device, rng):
    host = rng.integers(0, 100, (4, 5, 6))
    x = put(host, device)
    a = rng.integers(-4, 4, (3, 1))
    b = rng.integers(-5, 5, (1, 2))
    c = rng.integers(0, 6, (2,))
    for key in [(a, b), (a, b, c), (a, slice(None), c), (slice(1, 3), b, c), (a, 2, c),
                (np.array(1), b)]:
        check(x[on_device(key, device)], host[key])


def test_advanced_dimension_placement(device, rng):
    # NumPy's rule: the broadcast dimensions of adjacent advanced indices (ints count as
    # advanced with them) replace them in place; advanced indices separated by a slice,
    # None or Ellipsis put them first.
    host = rng.standard_normal((2, 3, 4, 5))
    x = put(host, device)
    i = rng.integers(0, 2, (2, 2))
    j = rng.integers(-3, 3, (2,))
    keys = [
        (slice(None), i, j),                   # adjacent: in place
        (i, slice(None), j),                   # separated by a slice: first
        (1, slice(None), j),                   # an int counts as advanced
        (slice(None), 1, j),                   # adjacent int and array: in place
        (slice(None), i, None, j),             # separated by None
        (slice(None), i, Ellipsis, j),         # separated by an Ellipsis
        (slice(None), slice(None), j, i),      # adjacent at the end
        (slice(None), j[:1], slice(1, 3), i),  # separated
        (None, 0, i, slice(None), None),
    ]
    for key in keys:
        expected = host[key]
        got = x[on_device(key, device)]
        assert got.shape == expected.shape, key
        check(got, expected)


def test_non_contiguous_and_reversed_x(device, rng):
    host = rng.standard_normal((6, 7, 4))
    base = put(host, device)
    i = rng.integers(-3, 3, (2, 2))
    for x, view in [(base[::-1], host[::-1]), (base[1::2, ::-3], host[1::2, ::-3]),
                    (base[:, 2, ::-1], host[:, 2, ::-1])]:
        for key in [(i,), (slice(None), i), (i, slice(None, None, -1), 0)]:
            key = key[:x.ndim]
            check(x[on_device(key, device)], view[key])
        mask = rng.random(view.shape[:2]) < 0.5
        check(x[put(mask, device)], view[mask])
    # Index arrays that are themselves strided views.
    index = put(rng.integers(0, 6, 10), device)[::-3]
    check(base[index], host[index.get()])


def test_empty_results(device, rng):
    host = rng.standard_normal((3, 4))
    x = put(host, device)
    nothing = np.zeros(0, np.int64)
    check(x[[]], host[[]])
    check(x[put(nothing, device)], host[nothing])
    check(x[:, put(nothing, device)], host[:, nothing])
    check(x[:0, [1, 2]], host[:0, [1, 2]])
    check(x[put(np.zeros((3, 4), bool), device)], host[np.zeros((3, 4), bool)])
    check(x[np.zeros((2, 0), np.int32)], host[np.zeros((2, 0), np.int32)])


# ----------------------------------------------------------------------------------------
# Boolean masks


def test_masks(device, rng):
    host = rng.standard_normal((4, 5, 3))
    x = put(host, device)
    whole = rng.random((4, 5, 3)) < 0.4
    leading = rng.random((4, 5)) < 0.5
    first = np.isin(np.arange(4), rng.permutation(4)[:2])  # two true: broadcasts with [0, 2]
    middle = rng.random((5, 3)) < 0.5
    keys = [whole, leading, first, (slice(None), middle), (Ellipsis, middle),
            (first, slice(None), [0, 2]), (1, middle), (leading, [2, 0, 1, 1][:1]),
            np.zeros((4, 5), bool), np.ones((4, 5, 3), bool), np.ones(4, bool)]
    for key in keys:
        check(x[on_device(key, device)], host[key])
    # NumPy masks and lists of bools too; Python bools and 0-d masks add a dimension.
    check(x[leading], host[leading])
    check(x[list(first)], host[list(first)])
    check(x[True], host[True])
    check(x[False], host[False])
    check(x[1, ..., True], host[1, ..., True])
    check(x[put(np.array(True), device)], host[np.array(True)])


def test_masks_of_strided_x_and_mask(device, rng):
    host = rng.integers(0, 50, (6, 8), dtype=np.int32)
    x = put(host, device)[::2, ::-1]  # not one stride over its dimensions
    view = host[::2, ::-1]
    mask = rng.random((3, 8)) < 0.5
    check(x[put(mask, device)], view[mask])
    strided_mask = put(rng.random((6, 8)) < 0.5, device)[::2]
    check(x[strided_mask], view[strided_mask.get()])


@pytest.mark.parametrize("dtype", [np.bool_, np.uint8, np.complex64])
def test_other_dtypes(device, rng, dtype):
    host = (rng.integers(0, 3, (4, 5)) + (1j if dtype == np.complex64 else 0)).astype(dtype)
    x = put(host, device)
    index = rng.integers(0, 5, 3).astype(np.uint8)  # unsigned index arrays too
    check(x[:, put(index, device)], host[:, index])
    mask = rng.random((4, 5)) < 0.5
    check(x[put(mask, device)], host[mask])
    host[mask] = host[0, 0]
    x[put(mask, device)] = x[0, 0]
    check(x, host)


# ----------------------------------------------------------------------------------------
# Assignment


POISON = -999.0


def test_setitem_basic(device, rng):
    shape = (4, 5, 6)
    for key, value in [((1, 2), 3.5), ((slice(None), 1), rng.standard_normal(6)),
                       ((slice(None, None, -2), slice(1, 4)), rng.standard_normal((2, 3, 1))),
                       ((Ellipsis, 0), rng.standard_normal((1, 1, 4, 5))),
                       ((None, 2, slice(None, None, -1)), rng.standard_normal((1, 5, 6))),
                       ((0, 0, 0), np.float32(1.25)), (Ellipsis, 2)]:
        host = np.full(shape, POISON)
        x = put(host, device)
        host[key] = value
        x[key] = put(value, device) if isinstance(value, np.ndarray) else value
        check(x, host)
    # NumPy values are copied to the device; values convert to x's dtype.
    host = np.zeros((3, 4), np.int32)
    x = put(host, device)
    values = rng.standard_normal(4) * 10
    host[1] = values
    x[1] = values
    host[::-1, 2] = [1, 2, 3]
    x[::-1, 2] = [1, 2, 3]
    check(x, host)
    # Any host data NumPy reads as an array: a range, a buffer.
    host[0] = range(4)
    x[0] = range(4)
    host[2, 1:] = memoryview(np.array([7, 8, 9], np.int32))
    x[2, 1:] = memoryview(np.array([7, 8, 9], np.int32))
    check(x, host)
    with pytest.raises(OverflowError):
        x[0, 0] = 2 ** 40


@pytest.mark.parametrize("dtype", [np.int8, np.int32, np.uint64])
def test_float_scalars_into_integer_arrays_as_numpy(device, rng, dtype):
    """NumPy turns a float scalar into an integer element as int() does: NaN is a
    ValueError, an infinity or a value past the dtype an OverflowError, never INT_MIN.
    (NumPy stores a NumPy float32 NaN into an unsigned array as 0: simt raises there too.)"""
    host = rng.integers(0, 100, 6).astype(dtype)
    x = simt.asarray(host, device=device)
    for bad, error in ((float("nan"), ValueError), (np.float32("nan"), ValueError),
                       (float("inf"), OverflowError), (-np.inf, OverflowError),
                       (1e30, OverflowError), (-1.5 if dtype == np.uint64 else 1e20,
                                               OverflowError)):
        if not (np.dtype(dtype).kind == "u" and isinstance(bad, np.floating)):
            with pytest.raises(error):
                host[1] = bad
        with pytest.raises(error):
            x[1] = bad
        with pytest.raises(error):
            x[2:4] = bad
    for good in (7.9, np.float64(3.2), np.float16(5.5)):
        host[0] = good
        x[0] = good
        host[3:] = good
        x[3:] = good
    np.testing.assert_array_equal(x.get(), host)


@pytest.mark.parametrize("dtype", [np.int32, np.int64])
def test_setitem_integer_arrays(device, rng, dtype):
    shape = (5, 4, 3)
    i = rng.permutation(5)[:3].astype(dtype) - 2  # distinct, some negative
    k = rng.permutation(3)[:2].astype(dtype)
    cases = [
        (i, 7.0),
        ((i, slice(None), k[:1]), rng.standard_normal((3, 4))),
        ((slice(None), [1, -1]), rng.standard_normal((3,))),            # broadcast value
        ((i[:, None], slice(1, 3), k), rng.standard_normal((1, 2, 2))),  # separated: first
        ((1, [0, 3], k), rng.standard_normal(2).astype(np.float32)),    # converted
    ]
    for key, value in cases:
        host = np.full(shape, POISON)
        x = put(host, device)[::-1]  # assignment into a reversed view
        view = host[::-1]
        view[key] = value
        x[on_device(key, device)] = put(value, device) if isinstance(value, np.ndarray) \
            else value
        check(x, view)


def test_setitem_masks(device, rng):
    shape = (4, 5, 3)
    whole = rng.random(shape) < 0.5
    leading = rng.random((4, 5)) < 0.5
    middle = rng.random(5) < 0.5
    cases = [
        (whole, 0.0), (leading, rng.standard_normal(3)), ((slice(None), middle), 2.5),
        (whole, rng.standard_normal(int(whole.sum()))),
        (leading, rng.standard_normal((int(leading.sum()), 3))),
        ((1, middle), rng.standard_normal((int(middle.sum()), 3))),
        ((middle[:4], slice(None), 0), -1.0),
        (np.zeros(shape, bool), 5.0), (np.ones((4, 5), bool), rng.standard_normal(3)),
    ]
    for key, value in cases:
        host = np.full(shape, POISON)
        x = put(host, device)
        host[key] = value
        x[on_device(key, device)] = put(value, device) if isinstance(value, np.ndarray) \
            else value
        check(x, host)


def test_setitem_repeated_indices_and_overlap(device, rng):
    # a[idx] += 1 reads, adds and writes: a repeated index is incremented once (NumPy).
    host = rng.integers(0, 10, 8)
    x = put(host, device)
    idx = np.array([0, 3, 3, -1, 0])
    host[idx] += 1
    x[put(idx, device)] += 1
    check(x, host)
    # The index array and the value share x's memory: read before x is written.
    host = np.array([3, 0, 2, 1, 4])
    x = put(host, device)
    host[host] = host[::-1].copy()
    x[x] = x[::-1]
    check(x, host)


# ----------------------------------------------------------------------------------------
# Errors


def test_index_errors(device, rng):
    host = rng.standard_normal((3, 4))
    x = put(host, device)
    cases = [
        ((3,), "index 3 is out of bounds for axis 0 with size 3"),
        ((0, -5), "index -5 is out of bounds for axis 1 with size 4"),
        ((np.array([0, 3]),), "index 3 is out of bounds for axis 0 with size 3"),
        ((slice(None), np.array([-5], np.int32)),
         "index -5 is out of bounds for axis 1 with size 4"),
        ((np.array([2 ** 63], np.uint64),), "out of bounds for axis 0"),
        ((slice(0, 0), [9]), "index 9 is out of bounds for axis 1"),
        ((np.zeros(4, bool),), "boolean index did not match indexed array along axis 0"),
        ((slice(None), np.zeros((4, 1), bool)), "too many indices"),
        ((np.zeros((3, 5), bool),), "along axis 1; size of axis is 4 but size of "
                                    "corresponding boolean axis is 5"),
        ((0, 0, 0), "too many indices"),
        ((np.array([0, 1]), np.array([0, 1, 2])), "shape mismatch"),
        ((1.5,), "only integers"),
        ((np.array([0.5]),), "integer or boolean"),
        ((Ellipsis, Ellipsis), "single ellipsis"),
    ]
    for key, message in cases:
        with pytest.raises(IndexError, match=message.replace("(", r"\(")):
            x[on_device(key, device)]
    # An assignment with an index out of range changes nothing.
    with pytest.raises(IndexError, match="index 7 is out of bounds"):
        x[put(np.array([0, 7, 1]), device)] = 1.0
    with pytest.raises(IndexError, match="boolean index did not match"):
        x[put(np.zeros((2, 4), bool), device)] = 1.0
    with pytest.raises(ValueError, match="could not be broadcast"):
        x[[0, 1]] = put(np.zeros(3), device)
    check(x, host)


# ----------------------------------------------------------------------------------------
# Functions


def test_nonzero_and_argwhere(device, rng):
    for shape in [(17,), (5, 6), (3, 4, 5)]:
        host = rng.standard_normal(shape)
        host[host < 0.3] = 0
        host.reshape(-1)[0] = np.nan  # NaN is non-zero
        x = put(host, device)
        for got, expected in zip(_indexing.nonzero(x), np.nonzero(host)):
            check(got, expected)
        check(_indexing.argwhere(x), np.argwhere(host))
    mask = rng.random((6, 7)) < 0.5
    reversed_mask = put(mask, device)[::-1, 1::2]
    for got, expected in zip(reversed_mask.nonzero(), np.nonzero(mask[::-1, 1::2])):
        check(got, expected)
    values = (rng.integers(0, 2, 9) * 1j).astype(np.complex64)
    check(_indexing.nonzero(put(values, device))[0], np.nonzero(values)[0])
    for empty in [np.zeros((2, 3), bool), np.zeros(0)]:
        for got, expected in zip(_indexing.nonzero(put(empty, device)), np.nonzero(empty)):
            check(got, expected)
    with pytest.raises(ValueError, match="0-d"):
        _indexing.nonzero(put(np.array(1.0), device))


def test_compaction_over_many_blocks(device, rng):
    # Large enough that GPUs split it over many tiles and the CPU over every chunk.
    host = rng.random(300_001) < 0.3
    x = put(host, device)
    check(_indexing.nonzero(x)[0], np.nonzero(host)[0])
    values = rng.integers(0, 1000, host.size, dtype=np.int32)
    check(put(values, device)[x], values[host])


def test_take(device, rng):
    host = rng.standard_normal((4, 5, 6))
    x = put(host, device)
    i = rng.integers(-5, 5, 7)
    check(_indexing.take(x, put(i, device), axis=1), np.take(host, i, axis=1))
    check(_indexing.take(x, put(i.astype(np.int32), device), axis=-1),
          np.take(host, i, axis=-1))
    check(_indexing.take(x[0, 0], put(i, device)), np.take(host[0, 0], i))
    flat = rng.integers(-120, 120, (2, 3))
    check(_indexing.take(x[:, ::-1], flat), np.take(host[:, ::-1], flat))
    with pytest.raises(IndexError, match="out of bounds"):
        _indexing.take(x, put(np.array([6]), device), axis=2)
    with pytest.raises(np.exceptions.AxisError):
        _indexing.take(x, put(i, device), axis=3)


def test_take_along_axis(device, rng):
    host = rng.standard_normal((3, 4, 5))
    x = put(host, device)
    for axis in (0, 1, -1):
        order = np.argsort(host, axis=axis)
        check(_indexing.take_along_axis(x, put(order, device), axis=axis),
              np.take_along_axis(host, order, axis=axis))
    # Broadcast against each other outside the axis; negative indices; a reversed x.
    index = rng.integers(-5, 5, (3, 1, 2))
    check(_indexing.take_along_axis(x[:, ::-1], put(index, device), axis=2),
          np.take_along_axis(host[:, ::-1], index, axis=2))
    index = rng.integers(0, 4, (1, 2, 5)).astype(np.int32)
    check(_indexing.take_along_axis(x[:1], put(index, device), axis=1),
          np.take_along_axis(host[:1], index, axis=1))
    with pytest.raises(IndexError, match="out of bounds"):
        _indexing.take_along_axis(x, put(np.full((3, 4, 1), 5), device), axis=2)
    with pytest.raises(ValueError, match="rank"):
        _indexing.take_along_axis(x, put(np.zeros((3, 4), np.int64), device), axis=1)


def test_broadcast_error_of_an_assignment_is_numpys(device):
    x = put(np.arange(35), device)
    with pytest.raises(ValueError, match=r"could not broadcast input array from shape \(2,3\) "
                                         r"into shape \(35,\)"):
        x[:] = put(np.ones((1, 2, 3)), device)


@pytest.mark.parametrize("dtype", [np.int64, np.int32, np.uint16])
def test_one_index_array_into_a_vector(device, rng, dtype):
    """x[index] of a 1-D x (the one-launch gather): index's shape, negative indices from
    the end, strided and reversed x, and an out-of-range index an IndexError that leaves
    the next gather unaffected (the device's flag is cleared), from two threads too."""
    import threading

    xh = rng.standard_normal(1000).astype(np.float32)
    x = simt.asarray(xh, device=device)
    low = 0 if np.dtype(dtype).kind == "u" else -1000
    for shape in [(7,), (3, 4), (0,)]:
        ih = rng.integers(low, 1000, shape).astype(dtype)
        got = x[simt.asarray(ih, device=device)]
        assert got.shape == shape
        np.testing.assert_array_equal(got.get(), xh[ih])
    ih = rng.integers(0, 300, 50).astype(dtype)
    np.testing.assert_array_equal(x[::-3][simt.asarray(ih, device=device)].get(), xh[::-3][ih])
    with pytest.raises(IndexError, match="index 1000 is out of bounds for axis 0 with size"):
        x[simt.asarray(np.array([3, 1000], dtype), device=device)]
    again = x[simt.asarray(np.array([3, 999], dtype), device=device)]
    np.testing.assert_array_equal(again.get(), xh[[3, 999]])
    errors = []

    def gather(bad):
        try:
            for _ in range(20):
                index = simt.asarray(np.array([1, 1000 if bad else 2], dtype), device=device)
                try:
                    np.testing.assert_array_equal(x[index].get(), xh[[1, 2]])
                    assert not bad
                except IndexError:
                    assert bad
        except BaseException as error:  # noqa: BLE001 (reported by the main thread)
            errors.append(error)

    threads = [threading.Thread(target=gather, args=(k % 2 == 1,)) for k in range(4)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    assert not errors, errors
