"""Type promotion: simt's (C++) promotion table against NumPy 2's, NEP 50 weak scalars included."""

import itertools
import warnings

import numpy as np
import pytest

import simt
from simt import _core

SCALARS = ["bool", "int8", "int16", "int32", "int64", "uint8", "uint16", "uint32", "uint64",
           "float16", "float32", "float64", "complex64", "complex128"]
# A weak Python scalar, as simt names it, and a value of that kind for NumPy.
WEAK = {"int": ("int64", 1), "float": ("float64", 1.0), "complex": ("complex128", 1j)}


@pytest.mark.parametrize("a", SCALARS)
def test_strong_pairs_match_numpy_result_type(a):
    for b in SCALARS:
        assert _core.promote(a, False, b, False) == np.result_type(a, b).name, (a, b)


@pytest.mark.parametrize("a", SCALARS)
def test_promotion_is_symmetric(a):
    for b in SCALARS:
        assert _core.promote(a, False, b, False) == _core.promote(b, False, a, False), (a, b)
        for weak, _ in WEAK.values():
            assert _core.promote(weak, True, a, False) == _core.promote(a, False, weak, True)


def _numpy_weak(dtype, value):
    """NumPy 2's result dtype of `strong array + Python scalar` (NEP 50), or None if rejected."""
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        try:
            return (np.zeros(1, dtype) + value).dtype.name
        except (TypeError, OverflowError, Warning):
            return None


@pytest.mark.parametrize("kind", list(WEAK))
@pytest.mark.parametrize("strong", SCALARS)
def test_weak_python_scalars_follow_nep50(strong, kind):
    weak, value = WEAK[kind]
    expected = _numpy_weak(strong, value)
    if expected is None:
        pytest.skip(f"NumPy rejects {strong} + {value!r}")
    assert _core.promote(weak, True, strong, False) == expected
    assert _core.promote(strong, False, weak, True) == expected


def test_weak_with_weak_is_the_python_result():
    assert _core.promote("int64", True, "int64", True) == "int64"
    assert _core.promote("int64", True, "float64", True) == "float64"
    assert _core.promote("float64", True, "complex128", True) == "complex128"


def test_normalize_type_spellings():
    for spelling, name in [("float32", "float32"), ("bool", "bool"), ("int", "int64"),
                           ("float", "float64"), ("complex", "complex128"), ("f4", "float32"),
                           ("float32[:, ::1]", "float32[:, ::1]"),
                           ("(int8, float32)", "(int8, float32)")]:
        assert _core.normalize_type(spelling) == name
    for bad in ["float128", "str", "", "np.float32"]:
        with pytest.raises(ValueError):
            _core.normalize_type(bad)


# -------------------------------------------------------------- through inference (sema)

@simt.kernel
def k_add(a, b, out):
    x = a[0] + b[0]
    y = a[0] * b[0]
    z = a[0] - 1
    w = b[0] * 2.5


PAIRS = [("int8", "int16"), ("uint8", "int8"), ("uint16", "int16"), ("int32", "uint32"),
         ("int64", "uint64"), ("uint64", "int8"), ("uint8", "float16"), ("int16", "float16"),
         ("int32", "float32"), ("int64", "float32"), ("float16", "float32"),
         ("float32", "float64"), ("float32", "complex64"), ("float64", "complex64"),
         ("int8", "complex64"), ("bool", "int8"), ("bool", "float16"), ("uint32", "uint64"),
         ("float16", "complex64"), ("uint64", "uint64")]


@pytest.mark.parametrize("ta, tb", PAIRS)
def test_inferred_types_are_numpy_results(ta, tb):
    a, b = np.zeros(1, ta), np.zeros(1, tb)
    types = k_add.inspect_types(a, b, a)
    assert types["x"] == np.result_type(ta, tb).name
    assert types["y"] == np.result_type(ta, tb).name
    assert types["w"] == (b * 2.5).dtype.name  # a weak float literal
    if ta != "bool":
        assert types["z"] == (a - 1).dtype.name  # a weak int literal


@simt.kernel
def k_python_scalar_args(a, s):
    x = a[0] + s


@pytest.mark.parametrize("value, name", [(1, "int64"), (1.5, "float64"), (2j, "complex128"),
                                         (True, "bool")])
def test_python_number_arguments(value, name):
    a = np.zeros(1, np.float32)
    types = k_python_scalar_args.inspect_types(a, value)
    assert types["s"] == name
    assert types["x"] == np.result_type(np.float32, np.dtype(name)).name


@pytest.mark.parametrize("dtype", SCALARS)
def test_numpy_scalar_arguments_are_strong(dtype):
    """A NumPy scalar argument keeps its dtype (it is not weak like a Python number)."""
    a = np.zeros(1, np.int8)
    types = k_python_scalar_args.inspect_types(a, np.zeros(1, dtype)[0])
    assert types["s"] == dtype
    assert types["x"] == np.result_type(np.int8, dtype).name


@simt.kernel
def k_numpy_functions(a):
    x = np.sqrt(a[0])
    y = np.sin(a[0])
    z = np.arctan2(a[0], a[0])


@pytest.mark.parametrize("dtype", [t for t in SCALARS if not t.startswith("complex")])
def test_numpy_function_result_types(dtype):
    types = k_numpy_functions.inspect_types(np.zeros(1, dtype))
    z = np.zeros(1, dtype)
    with np.errstate(all="ignore"):
        assert types["x"] == np.sqrt(z).dtype.name
        assert types["y"] == np.sin(z).dtype.name
        assert types["z"] == np.arctan2(z, z).dtype.name
