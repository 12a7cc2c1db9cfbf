"""simt.diff with prepend= and append= (the array API's, and NumPy's scalars) against
np.diff, on every device."""

import numpy as np
import pytest

import simt

from array_helpers import assert_exact, random_numbers


@pytest.mark.parametrize("dtype, end_dtype", [(np.int16, np.int16), (np.int8, np.float32),
                                              (np.float64, np.float64), (np.bool_, np.bool_),
                                              (np.uint8, np.int32)])
@pytest.mark.parametrize("axis", [0, 1, -1])
def test_diff_with_prepend_and_append_is_numpys(dtype, end_dtype, axis, device, rng):
    if np.float64 in (dtype, end_dtype) and not device.supports_float64:
        pytest.skip(f"{device.id} has no float64")
    x = random_numbers(rng, (5, 6), dtype, bound=40)
    shape = list(x.shape)
    shape[axis] = 2
    before = random_numbers(rng, tuple(shape), end_dtype, bound=40)
    shape[axis] = 3
    after = random_numbers(rng, tuple(shape), end_dtype, bound=40)
    a = simt.asarray(x, device=device)
    p, q = simt.asarray(before, device=device), simt.asarray(after, device=device)
    for n in (1, 2):
        assert_exact(simt.diff(a, axis=axis, n=n, prepend=p, append=q),
                     np.diff(x, axis=axis, n=n, prepend=before, append=after), f"n={n}")
    assert_exact(simt.diff(a, axis=axis, prepend=p), np.diff(x, axis=axis, prepend=before),
                 "prepend only")
    assert_exact(simt.diff(a, axis=axis, append=q), np.diff(x, axis=axis, append=after),
                 "append only")


def test_diff_with_scalar_ends_is_numpys(device, rng):
    # NumPy's: a scalar (or 0-d array) is one slice, in its own dtype (a Python int is
    # int64 there, not weak)
    x = random_numbers(rng, (4, 3), np.int8, bound=20)
    a = simt.asarray(x, device=device)
    assert_exact(simt.diff(a, prepend=0, append=7), np.diff(x, prepend=0, append=7), "ints")
    assert_exact(simt.diff(a, axis=0, append=simt.asarray(np.array(2, np.int8),
                                                          device=device)),
                 np.diff(x, axis=0, append=np.array(2, np.int8)), "0-d array")


def test_diff_ends_errors_name_the_argument(device):
    a = simt.asarray(np.arange(12).reshape(3, 4), device=device)
    with pytest.raises(ValueError, match=r"simt.diff: prepend must have x's shape \(3, 4\) "
                                         r"except along axis 1, not \(2, 1\)"):
        simt.diff(a, prepend=simt.asarray(np.ones((2, 1)), device=device))
    with pytest.raises(ValueError, match="simt.diff: append must have x's shape"):
        simt.diff(a, axis=0, append=simt.asarray(np.ones(4), device=device))
    with pytest.raises(TypeError, match="simt.diff: append must be a simt array or a scalar"):
        simt.diff(a, append=[1, 2, 3])
    other = [d for d in simt.devices() if d != device]
    if other:
        with pytest.raises(ValueError, match="simt.diff: x is on"):
            simt.diff(a, prepend=simt.asarray(np.ones((3, 1)), device=other[0]))
