"""CuPy's ``cupy.testing`` assertions: NumPy's, with simt arrays compared as their host
copies, so ``simt.testing.assert_allclose(numpy_result, simt_result)`` checks a device
result against a NumPy reference on any device.

The arguments may be simt arrays, NumPy arrays, lists or scalars, in any mix; the
tolerances and messages are NumPy's (``numpy.testing``), the defaults CuPy's.
"""

import numpy as np

from ._array import Array

__all__ = ["assert_allclose", "assert_array_almost_equal", "assert_array_almost_equal_nulp",
           "assert_array_equal", "assert_array_less", "assert_array_list_equal",
           "assert_array_max_ulp"]


def _host(x):
    return x.get() if isinstance(x, Array) else x


def assert_allclose(actual, desired, rtol=1e-7, atol=0, err_msg="", verbose=True):
    """|actual - desired| <= atol + rtol * |desired| elementwise (numpy.testing's)."""
    np.testing.assert_allclose(_host(actual), _host(desired), rtol=rtol, atol=atol,
                               err_msg=err_msg, verbose=verbose)


def assert_array_almost_equal(x, y, decimal=6, err_msg="", verbose=True):
    """Equal to `decimal` places (numpy.testing's)."""
    np.testing.assert_array_almost_equal(_host(x), _host(y), decimal=decimal, err_msg=err_msg,
                                         verbose=verbose)


def assert_array_almost_equal_nulp(x, y, nulp=1):
    """Equal within `nulp` units in the last place, relative to the larger (numpy.testing's)."""
    np.testing.assert_array_almost_equal_nulp(_host(x), _host(y), nulp=nulp)


def assert_array_max_ulp(a, b, maxulp=1, dtype=None):
    """At most `maxulp` units in the last place apart (numpy.testing's)."""
    np.testing.assert_array_max_ulp(_host(a), _host(b), maxulp=maxulp, dtype=dtype)


def assert_array_equal(x, y, err_msg="", verbose=True, strict=False):
    """Equal shapes and elements (numpy.testing's; strict=True also compares dtypes, and
    does not broadcast a scalar)."""
    np.testing.assert_array_equal(_host(x), _host(y), err_msg=err_msg, verbose=verbose,
                                  strict=strict)


def assert_array_list_equal(xlist, ylist, err_msg="", verbose=True):
    """Two sequences of arrays, equal in length and pairwise (assert_array_equal)."""
    xlist, ylist = list(xlist), list(ylist)
    if len(xlist) != len(ylist):
        raise AssertionError(f"the lists differ in length: {len(xlist)} and {len(ylist)}")
    for k, (x, y) in enumerate(zip(xlist, ylist)):
        assert_array_equal(x, y, err_msg=f"item {k}: {err_msg}" if err_msg else f"item {k}",
                           verbose=verbose)


def assert_array_less(x, y, err_msg="", verbose=True):
    """x < y elementwise (numpy.testing's)."""
    np.testing.assert_array_less(_host(x), _host(y), err_msg=err_msg, verbose=verbose)
