"""Property-based tests (hypothesis) of broadcasting and type promotion on every device:
shapes, dtypes and Python scalars drawn at random, each result compared with NumPy's."""

import numpy as np
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from hypothesis.extra import numpy as hnp

import simt
from array_helpers import random_numbers

# A few dtypes of each kind: every pair is a new kernel to compile (a second each on
# PoCL), so the draws stay within a small set; the examples then vary shapes and values.
DTYPES = ["bool", "int8", "uint8", "int32", "uint64", "float32", "float64"]
SETTINGS = settings(max_examples=25, deadline=None,
                    suppress_health_check=[HealthCheck.function_scoped_fixture])


def _values(rng, shape, dtype):
    return random_numbers(rng, shape, dtype, bound=100, scale=10.0)


@SETTINGS
@given(shapes=hnp.mutually_broadcastable_shapes(num_shapes=2, min_dims=0, max_dims=4,
                                                max_side=5),
       seed=st.integers(0, 2 ** 32 - 1), transpose=st.booleans())
def test_broadcasting_matches_numpy(device, shapes, seed, transpose):
    rng = np.random.default_rng(seed)
    a = _values(rng, shapes.input_shapes[0], "float32")
    b = _values(rng, shapes.input_shapes[1][::-1] if transpose else shapes.input_shapes[1],
                "float32")
    if transpose:
        b = b.T  # a non-contiguous operand of the drawn shape
    x, y = simt.asarray(a, device=device), simt.asarray(b, device=device)
    got = x * y - x
    want = a * b - a
    assert got.shape == want.shape == shapes.result_shape
    np.testing.assert_array_equal(got.get(), want)


@SETTINGS
@given(left=st.sampled_from(DTYPES), right=st.sampled_from(DTYPES),
       name=st.sampled_from(["add", "multiply", "maximum", "less", "equal"]),
       seed=st.integers(0, 2 ** 32 - 1))
def test_promotion_of_two_arrays_matches_numpy(device, left, right, name, seed):
    rng = np.random.default_rng(seed)
    a, b = _values(rng, (3, 4), left), _values(rng, (4,), right)
    got = getattr(simt, name)(simt.asarray(a, device=device), simt.asarray(b, device=device))
    with np.errstate(all="ignore"):
        want = getattr(np, name)(a, b)
    assert got.dtype == want.dtype, (left, right, name)
    np.testing.assert_array_equal(got.get(), want)


@SETTINGS
@given(dtype=st.sampled_from(DTYPES),
       scalar=st.one_of(st.booleans(), st.integers(-300, 300),
                        st.floats(-1e3, 1e3, allow_nan=False, width=32)),
       seed=st.integers(0, 2 ** 32 - 1))
def test_python_scalars_are_weak_as_in_numpy(device, dtype, scalar, seed):
    a = _values(np.random.default_rng(seed), (5,), dtype)
    x = simt.asarray(a, device=device)
    try:
        with np.errstate(all="ignore"):
            want = a + scalar
    except (OverflowError, TypeError) as error:
        with pytest.raises(type(error)):
            x + scalar
        return
    got = x + scalar
    assert got.dtype == want.dtype, (dtype, scalar)
    np.testing.assert_array_equal(got.get(), want)
