"""The array namespace's manipulation functions (reshape, broadcasting, joining, axes,
flip, roll, tile, repeat) and Array's methods naming them, against NumPy's on every
device: values exact, dtypes and shapes NumPy's; views where NumPy gives views."""

import numpy as np
import pytest

import simt

AxisError = np.exceptions.AxisError


def check(result, expected):
    """`result` is a simt array with exactly NumPy's `expected`: dtype, shape, values."""
    assert isinstance(result, simt.Array), type(result)
    expected = np.asarray(expected)
    assert result.dtype == expected.dtype, (result.dtype, expected.dtype)
    assert result.shape == expected.shape, (result.shape, expected.shape)
    np.testing.assert_array_equal(result.get(), expected)


def layouts(device, host):
    """(simt array, the NumPy array it holds) for `host` in several layouts: C order,
    Fortran order, reversed (negative strides), strided, and a transposed view."""
    base = simt.to_device(host, device=device)
    wide = simt.to_device(np.repeat(host, 2, axis=-1), device=device)
    return [
        (base, host),
        (simt.to_device(np.asfortranarray(host), device=device), host),
        (base[::-1], host[::-1]),
        (wide[..., ::2], host),
        (simt.transpose(base), host.T),
    ]


def shares_memory(make, device, host):
    """Whether make(x) views x's memory: x is zeroed after and the result read back."""
    base = simt.to_device(host, device=device)
    result = make(base)
    base.fill(0)
    return not np.any(result.get())


def other_device(device):
    found = [d for d in simt.devices() if d != device]
    if not found:
        pytest.skip("needs a second device")
    return found[0]


# --- reshape ----------------------------------------------------------------------------------

def test_reshape_matches_numpy_in_every_layout(device, rng):
    host = rng.integers(-1000, 1000, size=(4, 6)).astype(np.int32)
    for x, h in layouts(device, host):
        for shape in [(24,), (-1,), (2, 12), (3, -1, 2), (1, 24, 1), (6, 4), (2, 2, 2, 3)]:
            check(simt.reshape(x, shape), np.reshape(h, shape))
        check(x.reshape(8, 3), h.reshape(8, 3))
        check(x.reshape((3, 8)), h.reshape((3, 8)))
        check(x.reshape([2, -1]), h.reshape([2, -1]))
        check(x.reshape(6, 4, order="F"), h.reshape(6, 4, order="F"))
        check(x.ravel(), h.ravel())
        check(simt.ravel(x, order="F"), np.ravel(h, order="F"))
        check(x.flatten(), h.flatten())
        check(x.flatten(order="F"), h.flatten(order="F"))


def test_reshape_views_exactly_where_numpy_does(device, rng):
    host = (rng.integers(1, 100, size=(4, 6, 2))).astype(np.int32)
    cases = [
        (lambda a: a, (48,)),
        (lambda a: a, (2, 2, 12)),
        (lambda a: a[:, ::2], (12, 2)),   # the kept axes still merge
        (lambda a: a[:, ::2], (24,)),     # they do not: a copy
        (lambda a: a[::-1], (4, 12)),
        (lambda a: a[::-1], (48,)),
        (lambda a: a.transpose((1, 0, 2)), (6, 8)),
        (lambda a: a.transpose((1, 0, 2)), (24, 2)),
        (lambda a: a[:, 2:3], (4, 2)),
        (lambda a: a[:, :, 0], (2, 12)),
    ]
    for view, shape in cases:
        expected = np.reshape(view(host), shape)
        numpy_views = np.shares_memory(expected, host)
        assert shares_memory(lambda a: simt.reshape(view(a), shape), device, host) == \
            numpy_views, (shape, view(host).strides)
        check(simt.reshape(view(simt.to_device(host, device=device)), shape), expected)
    assert not shares_memory(lambda a: simt.reshape(a, (48,), copy=True), device, host)
    assert not shares_memory(lambda a: a.flatten(), device, host)
    assert shares_memory(lambda a: a.ravel(), device, host)
    with pytest.raises(ValueError, match="without copying"):
        simt.reshape(simt.to_device(host, device=device)[:, ::2], (24,), copy=False)


def test_reshape_of_0d_and_empty_arrays(device):
    scalar = simt.asarray(np.float32(2.5), device=device)
    check(simt.reshape(scalar, (1, 1)), np.reshape(np.float32(2.5), (1, 1)))
    check(simt.reshape(scalar, ()), np.float32(2.5))
    check(simt.reshape(simt.reshape(scalar, (1,)), ()), np.float32(2.5))
    empty = simt.zeros((0, 4), device=device)
    check(simt.reshape(empty, (2, 0, 3)), np.zeros((2, 0, 3)))
    check(simt.reshape(empty, (-1, 2)), np.zeros((0, 2)))
    with pytest.raises(ValueError, match="size 0"):
        simt.reshape(empty, (-1, 0))


def test_reshape_errors_say_what(device):
    x = simt.zeros(6, device=device)
    with pytest.raises(ValueError, match=r"simt.reshape: cannot reshape an array of size 6 "
                                         r"into shape \(4,\)"):
        simt.reshape(x, (4,))
    with pytest.raises(ValueError, match="at most one -1"):
        simt.reshape(x, (-1, -1))
    with pytest.raises(ValueError, match="size 6"):
        x.reshape(4, -1)
    with pytest.raises(TypeError, match="shape"):
        simt.reshape(x, "6")


# --- broadcasting -----------------------------------------------------------------------------

def test_broadcast_to_and_broadcast_arrays(device, rng):
    host = rng.standard_normal((3, 1)).astype(np.float32)
    x = simt.to_device(host, device=device)
    for shape in [(3, 1), (3, 4), (2, 3, 5), (0, 3, 0)]:
        view = simt.broadcast_to(x, shape)
        check(view, np.broadcast_to(host, shape))
    assert simt.broadcast_to(x, (2, 3, 4)).strides == (0, 4, 0)
    # Repeated elements are read-only, as NumPy's: a write through one would change others.
    assert simt.broadcast_to(x, (3, 4)).readonly and not simt.broadcast_to(x, (3, 1)).readonly
    with pytest.raises(ValueError, match="read-only"):
        simt.add(x, x, out=simt.broadcast_to(x, (3, 4)))
    check(simt.broadcast_to(simt.asarray(7, device=device), (2, 2)), np.full((2, 2), 7))
    with pytest.raises(ValueError, match=r"shape \(3, 1\) to shape \(4,\)"):
        simt.broadcast_to(x, (4,))
    with pytest.raises(ValueError, match=r"\(3, 2, 2, 3\)"):
        simt.broadcast_to(x, (2, 3)[::-1] + (2, 3))

    row = rng.integers(0, 9, size=4)
    a, b = simt.broadcast_arrays(x, simt.to_device(row, device=device))
    ea, eb = np.broadcast_arrays(host, row)
    check(a, ea)
    check(b, eb)
    with pytest.raises(ValueError, match=r"\(3, 1\) \(2, 4\)"):
        simt.broadcast_arrays(x, simt.zeros((2, 4), device=device))
    with pytest.raises(ValueError, match="two devices"):
        simt.broadcast_arrays(x, simt.zeros(1, device=other_device(device)))


# --- joining ----------------------------------------------------------------------------------

def test_concat_matches_numpy(device, rng):
    hosts = [rng.integers(-50, 50, size=(2, n, 3)).astype(np.int32) for n in (1, 4, 0, 2)]
    arrays = [simt.to_device(h, device=device) for h in hosts]
    for axis in (1, -2):
        check(simt.concat(arrays, axis=axis), np.concatenate(hosts, axis=axis))
    check(simt.concat(arrays, axis=None), np.concatenate(hosts, axis=None))
    # Mixed layouts and dtypes: promoted as NumPy promotes.
    f = rng.standard_normal((2, 3, 3)).astype(np.float32)
    mixed = [arrays[1][:, ::-1], simt.to_device(np.asfortranarray(f), device=device)]
    check(simt.concat(mixed, axis=1), np.concatenate([hosts[1][:, ::-1], f], axis=1))
    check(simt.concatenate(mixed, axis=1, dtype=np.float32),
          np.concatenate([hosts[1][:, ::-1], f], axis=1, dtype=np.float32))
    out = simt.full((2, 7, 3), -1, dtype=np.int32, device=device)
    assert simt.concatenate([arrays[1], arrays[3], arrays[0]], axis=1, out=out) is out
    check(out, np.concatenate([hosts[1], hosts[3], hosts[0]], axis=1))
    with pytest.raises(TypeError, match="cannot cast"):  # into out's dtype, as NumPy
        simt.concatenate(mixed, axis=1, out=out)
    stacked = simt.full((2, 2, 4, 3), -1.0, dtype=np.float32, device=device)
    assert simt.stack([arrays[1], arrays[1]], out=stacked) is stacked
    check(stacked, np.stack([hosts[1], hosts[1]]).astype(np.float32))


def test_concat_errors(device):
    a, b = simt.zeros((2, 3), device=device), simt.zeros((3, 3), device=device)
    with pytest.raises(ValueError, match=r"array 1 \(3, 3\)"):
        simt.concat([a, b], axis=1)
    with pytest.raises(ValueError, match="dimensions"):
        simt.concat([a, simt.zeros(3, device=device)])
    with pytest.raises(ValueError, match="0-d"):
        simt.concat([simt.zeros((), device=device)])
    with pytest.raises(AxisError):
        simt.concat([a, b], axis=2)
    with pytest.raises(ValueError, match="at least one"):
        simt.concat([])
    with pytest.raises(TypeError, match="cannot cast"):
        simt.concatenate([a, b], dtype=np.int32)
    with pytest.raises(ValueError, match="two devices"):
        simt.concat([a, simt.zeros((2, 3), device=other_device(device))])


def test_stack_unstack_and_the_numpy_stacks(device, rng):
    hosts = [rng.standard_normal((3, 4)) for _ in range(3)]
    arrays = [simt.to_device(h, device=device) for h in hosts]
    for axis in (0, 1, 2, -1):
        check(simt.stack(arrays, axis=axis), np.stack(hosts, axis=axis))
    check(simt.stack([arrays[0][::-1], arrays[1].T.T]), np.stack([hosts[0][::-1], hosts[1]]))
    with pytest.raises(ValueError, match="one shape"):
        simt.stack([arrays[0], arrays[0][:2]])
    with pytest.raises(AxisError):
        simt.stack(arrays, axis=3)
    parts = simt.unstack(arrays[0], axis=1)
    assert isinstance(parts, tuple) and len(parts) == 4
    for part, expected in zip(parts, np.moveaxis(hosts[0], 1, 0)):
        check(part, expected)

    ones = [rng.standard_normal(4), rng.standard_normal(4)]
    one_d = [simt.to_device(h, device=device) for h in ones]
    for name in ("vstack", "hstack", "dstack", "column_stack"):
        check(getattr(simt, name)(one_d), getattr(np, name)(ones))
        check(getattr(simt, name)(arrays[:2]), getattr(np, name)(hosts[:2]))
    zero_d = [simt.asarray(1.5, device=device), simt.asarray(2.5, device=device)]
    check(simt.hstack(zero_d), np.hstack([1.5, 2.5]))
    check(simt.vstack(zero_d), np.vstack([1.5, 2.5]))
    for name in ("atleast_1d", "atleast_2d", "atleast_3d"):
        for x, h in [(zero_d[0], np.float64(1.5)), (one_d[0], ones[0]), (arrays[0], hosts[0])]:
            check(getattr(simt, name)(x), getattr(np, name)(h))


# --- axes -------------------------------------------------------------------------------------

def test_axis_views_match_numpy(device, rng):
    host = rng.standard_normal((2, 1, 3, 1))
    for x, h in layouts(device, host)[:3]:
        check(simt.expand_dims(x), np.expand_dims(h, 0))
        check(simt.expand_dims(x, axis=-1), np.expand_dims(h, -1))
        check(simt.expand_dims(x, axis=(0, 3, -1)), np.expand_dims(h, (0, 3, -1)))
        check(simt.squeeze(x), np.squeeze(h))
        check(simt.squeeze(x, axis=1), np.squeeze(h, axis=1))
        check(simt.squeeze(x, (1, -1)), np.squeeze(h, (1, -1)))
        check(x.squeeze(), h.squeeze())
        check(simt.permute_dims(x, (3, 0, 2, 1)), np.transpose(h, (3, 0, 2, 1)))
        check(simt.transpose(x), np.transpose(h))
        check(x.transpose(2, 0, 1, 3), h.transpose(2, 0, 1, 3))
        check(x.transpose((1, 3, 2, 0)), h.transpose((1, 3, 2, 0)))
        check(x.T, h.T)
        check(x.mT, h.mT)
        check(simt.matrix_transpose(x), np.matrix_transpose(h))
        check(simt.swapaxes(x, 0, 2), np.swapaxes(h, 0, 2))
        check(x.swapaxes(-1, 1), h.swapaxes(-1, 1))
        check(simt.moveaxis(x, 0, -1), np.moveaxis(h, 0, -1))
        check(simt.moveaxis(x, (0, 2), (3, 0)), np.moveaxis(h, (0, 2), (3, 0)))
    scalar = simt.asarray(3.0, device=device)
    check(simt.expand_dims(scalar, axis=(0, 1)), np.expand_dims(3.0, (0, 1)))
    check(scalar.T, np.float64(3.0))
    assert shares_memory(lambda a: simt.permute_dims(a, (2, 1, 0, 3)), device, host + 10)


def test_axis_errors_are_numpys(device):
    x = simt.zeros((2, 1, 3), device=device)
    for call in [lambda: simt.expand_dims(x, axis=4), lambda: simt.squeeze(x, axis=3),
                 lambda: simt.flip(x, axis=-4), lambda: simt.swapaxes(x, 0, 3),
                 lambda: simt.permute_dims(x, (0, 1, 3)), lambda: simt.moveaxis(x, 3, 0),
                 lambda: simt.unstack(x, axis=3), lambda: simt.roll(x, 1, axis=5)]:
        with pytest.raises(AxisError):
            call()
        with pytest.raises(IndexError):  # AxisError is both, as NumPy's
            call()
    with pytest.raises(ValueError, match="extent 2"):
        simt.squeeze(x, axis=0)
    with pytest.raises(ValueError, match="repeated axis"):
        simt.expand_dims(x, axis=(1, 1))
    with pytest.raises(ValueError, match="do not match"):
        simt.permute_dims(x, (0, 1))
    with pytest.raises(ValueError, match="repeated axis"):
        simt.permute_dims(x, (0, 1, 1))
    with pytest.raises(ValueError, match="at least 2"):
        simt.matrix_transpose(simt.zeros(3, device=device))
    with pytest.raises(TypeError, match="simt array"):
        simt.flip(np.zeros(3))


def test_flip_gives_negative_stride_views(device, rng):
    host = rng.integers(0, 100, size=(3, 4, 5)).astype(np.int64)
    for x, h in layouts(device, host):
        for axis in (None, 0, -1, (0, 2), (1,)):
            check(simt.flip(x, axis=axis), np.flip(h, axis=axis))
    x = simt.to_device(host, device=device)
    assert simt.flip(x, axis=1).strides == (160, -40, 8)
    check(simt.flip(simt.flip(x)), host)
    check(simt.flip(simt.zeros((0, 3), device=device)), np.zeros((0, 3)))
    check(simt.flip(simt.asarray(5, device=device)), np.flip(np.int64(5)))
    assert shares_memory(lambda a: simt.flip(a), device, host + 1)


# --- roll, tile, repeat -----------------------------------------------------------------------

def test_roll_matches_numpy(device, rng):
    host = rng.integers(-99, 99, size=(3, 4, 5)).astype(np.int64)
    shift = int(rng.integers(-20, 20))
    for x, h in layouts(device, host):
        for s, axis in [(shift, None), (shift, 0), (-shift, -1), ((1, 2), (0, 2)),
                        (3, (1, 2)), ((1, -2, 5), (1, 1, 0)), (0, 1), (4, 1)]:
            check(simt.roll(x, s, axis=axis), np.roll(h, s, axis=axis))
    check(simt.roll(simt.zeros((0, 2), device=device), 3, axis=0), np.zeros((0, 2)))
    check(simt.roll(simt.asarray(1.5, device=device), 3), np.roll(np.float64(1.5), 3))
    with pytest.raises(ValueError, match="different lengths"):
        simt.roll(simt.to_device(host, device=device), (1, 2), axis=(0, 1, 2))


def test_tile_matches_numpy(device, rng):
    host = rng.integers(-9, 9, size=(2, 3)).astype(np.int64)
    for x, h in layouts(device, host):
        for reps in [2, (2, 1), (1, 3), (2, 2, 2), (3, 0), (1, 1)]:
            check(simt.tile(x, reps), np.tile(h, reps))
    check(simt.tile(simt.asarray(4, device=device), (2, 3)), np.tile(np.int64(4), (2, 3)))
    copy = simt.tile(simt.to_device(host, device=device), 1)
    assert not shares_memory(lambda a: simt.tile(a, 1), device, host + 20)
    check(copy, host)
    with pytest.raises(ValueError, match="non-negative"):
        simt.tile(copy, -1)


def test_repeat_matches_numpy(device, rng):
    host = rng.integers(-9, 9, size=(3, 4)).astype(np.int64)
    counts = rng.integers(0, 4, size=4)
    for x, h in layouts(device, host)[:4]:
        check(simt.repeat(x, 2), np.repeat(h, 2))
        check(simt.repeat(x, 3, axis=1), np.repeat(h, 3, axis=1))
        check(simt.repeat(x, 0, axis=0), np.repeat(h, 0, axis=0))
        check(simt.repeat(x, counts.tolist(), axis=1), np.repeat(h, counts, axis=1))
        check(simt.repeat(x, [2], axis=0), np.repeat(h, [2], axis=0))
        check(x.repeat(2, axis=-1), h.repeat(2, axis=-1))
    x = simt.to_device(host, device=device)
    device_counts = simt.to_device(counts[:3], device=device)
    check(simt.repeat(x, device_counts, axis=0), np.repeat(host, counts[:3], axis=0))
    flat = rng.integers(0, 3, size=12)
    check(simt.repeat(x.T, flat), np.repeat(host.T, flat))
    check(simt.repeat(simt.asarray(7, device=device), 3), np.repeat(7, 3))
    with pytest.raises(ValueError, match="3 repeats for an axis of extent 4"):
        simt.repeat(x, [1, 2, 3], axis=1)
    with pytest.raises(ValueError, match="non-negative"):
        simt.repeat(x, -1)
    with pytest.raises(TypeError, match="integers"):
        simt.repeat(x, 1.5)


# --- fill and copy ----------------------------------------------------------------------------

def test_fill_writes_every_element_of_any_layout(device, rng):
    poison = -12345
    value = int(rng.integers(-100, 100))
    a = simt.full((4, 6), poison, dtype=np.int32, device=device)
    a.fill(value)
    check(a, np.full((4, 6), value, np.int32))
    b = simt.full((4, 6), poison, dtype=np.int32, device=device)
    b[:, ::2].fill(2.7)  # converted as NumPy's astype: 2
    expected = np.full((4, 6), poison, np.int32)
    expected[:, ::2] = 2
    check(b, expected)
    b[::-1].T.fill(simt.asarray(np.int32(value), device=device))
    check(b, np.full((4, 6), value, np.int32))
    c = simt.zeros(3, dtype=np.float32, device=device)
    c.fill(simt.asarray([1.5], device=device))
    check(c, np.full(3, 1.5, np.float32))
    with pytest.raises(ValueError, match="scalar"):
        c.fill(simt.zeros(3, device=device))
    f = simt.to_device(np.asfortranarray(np.zeros((3, 4), np.int8)), device=device)
    f.fill(5)  # dense in Fortran order
    f[:2].fill(-3)  # strided
    expected = np.full((3, 4), 5, np.int8)
    expected[:2] = -3
    check(f, expected)
    with pytest.raises(OverflowError):  # as NumPy's fill
        f.fill(300)


def test_copy_of_views_keeps_values_and_gives_numpys_layout(device, rng):
    host = rng.standard_normal((4, 6))
    base = simt.to_device(host, device=device)
    fortran = simt.to_device(np.asfortranarray(host), device=device)
    for view, h in [(base[::-1, 1::2], host[::-1, 1::2]), (base.T, host.T),
                    (fortran, np.asfortranarray(host)),
                    (base, host), (base[1:3], host[1:3])]:
        copy = view.copy()
        check(copy, h)
        assert copy.strides == np.copy(h, order="C").strides
        assert view.copy(order="F").strides == np.copy(h, order="F").strides
        check(view.copy(order="F"), h)
        assert view.copy(order="K").strides == h.copy(order="K").strides
    copy = base[::2].copy()
    base.fill(0)
    check(copy, host[::2])


def test_flags_describe_the_layout(device, rng):
    host = rng.standard_normal((3, 4))
    base = simt.to_device(host, device=device)
    for view, h in [(base, host), (base.T, host.T), (base[:, ::2], host[:, ::2]),
                    (base[:1], host[:1]), (simt.reshape(base, (1, 12)), host.reshape(1, 12))]:
        assert view.flags.c_contiguous == h.flags.c_contiguous
        assert view.flags["F_CONTIGUOUS"] == h.flags["F_CONTIGUOUS"]
        assert view.flags.writeable
