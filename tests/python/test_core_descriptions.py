"""The C++ side's readers the Python package builds on: `_core.parse_signature` (the one
reader of the signatures users write) and `_core.Global` (what a kernel's resolved
globals are, src/python/globals.cpp)."""

import math

import numpy as np
import pytest

import simt
from simt import cuda
from simt import _core
from simt._resolve import describe


@pytest.mark.parametrize("text, expected", [
    ("void(float32[:], int64)", (None, ["float32[:]", "int64"])),
    ("(float32[::1], float32)", (None, ["float32[::1]", "float32"])),
    ("float32(float32, int32)", ("float32", ["float32", "int32"])),
    ("none(int32)", (None, ["int32"])),
    ("float32[:], int64", (None, ["float32[:]", "int64"])),
    ("void((int64, float32), f8)", (None, ["(int64, float32)", "float64"])),
    ("f8(boolean, intp, double, float_, b1)",
     ("float64", ["bool", "int64", "float64", "float32", "bool"])),
    ("float32(float32, CPointer(i4))", ("float32", ["float32", "CPointer(int32)"])),
    ("void()", (None, [])),
])
def test_parse_signature(text, expected):
    assert _core.parse_signature(text) == expected


def test_parse_signature_types_are_normalize_types():
    _, params = _core.parse_signature("void(f4[:, ::1], readonly i8[::1, :], u1)")
    assert params == [_core.normalize_type(t) for t in ("f4[:, ::1]", "readonly i8[::1, :]",
                                                        "u1")]


@pytest.mark.parametrize("text, what", [
    ("void(float32[:], int65)", "argument 2 'int65', which is not a type"),
    ("foo(int32)", "the result type 'foo'"),
    ("void(int32", "does not balance its brackets"),
    ("void(CPointer(float32[:]))", "CPointer takes a number type"),
])
def test_bad_signatures_name_the_text_and_the_fault(text, what):
    with pytest.raises(ValueError) as error:
        _core.parse_signature(text)
    assert f"'{text}'" in str(error.value) and what in str(error.value)


def test_one_alias_table_two_vocabularies():
    numba, numpy = _core.scalar_aliases(numba=True), _core.scalar_aliases()
    assert numba["float_"] == "float32" and numpy["float_"] == "float64"
    assert numba["byte"] == "uint8" and numpy["byte"] == "int8"
    assert numba["boolean"] == "bool" and "boolean" not in numpy
    for alias, name in numpy.items():
        assert _core.normalize_type(alias) == name


def test_descriptions_are_globals():
    assert describe(math).kind == "module"
    assert describe(math.sin).kind == "function"
    assert describe(3).kind == describe(2.5).kind == describe(True).kind == "constant"
    assert describe(2 ** 70).kind == "unsupported"
    assert describe(np.float32(1)).kind == "constant"
    assert describe(np.float32).kind == describe(np.dtype("f8")).kind == "dtype"
    assert describe((1, 2.0)).kind == "tuple"
    assert describe(np.arange(4)).kind == "constant_array"
    assert describe(ValueError).kind == "exception"
    assert describe(object()).kind == "unsupported"
    assert describe(cuda.float32).kind == "dtype"


def test_objects_describe_themselves():
    @simt.func
    def twice(x):
        return 2 * x

    assert describe(twice).kind == "device_function"
    declared = cuda.declare_device("twice_c", "float32(float32)", link=[])
    assert describe(declared).kind == "foreign"


def test_the_reader_takes_only_globals():
    function = _core.Function("def k(a):\n    a[0] = n\n", "<test>")
    with pytest.raises(TypeError, match="simt._core.Global"):
        function.generate(["float64[:]"], {"n": ("int", 3)}, "cpp")
    generated = function.generate(["float64[:]"], {"n": _core.Global.number(3)}, "cpp")
    assert "3" in generated["source"]
