"""The array API's inspection namespace (simt.__array_namespace_info__()) and constants
(e pi inf nan newaxis), against the standard and what simt's own functions do."""

import math

import numpy as np
import pytest

import simt
from simt._array_api import _info


def test_constants_are_python_floats_and_none():
    assert simt.e == math.e and type(simt.e) is float
    assert simt.pi == math.pi and type(simt.pi) is float
    assert simt.inf == math.inf and type(simt.inf) is float
    assert math.isnan(simt.nan) and type(simt.nan) is float
    assert simt.newaxis is None


def test_newaxis_inserts_an_axis(device):
    x = simt.asarray(np.arange(6.0).reshape(2, 3), device=device)
    assert x[:, simt.newaxis].shape == (2, 1, 3)


def test_info_is_reachable_from_an_array(device):
    x = simt.zeros(3, device=device)
    info = x.__array_namespace__().__array_namespace_info__()
    for name in ["capabilities", "default_device", "default_dtypes", "devices", "dtypes"]:
        assert callable(getattr(info, name)), name


def test_capabilities():
    caps = simt.__array_namespace_info__().capabilities()
    assert caps["boolean indexing"] is True
    assert caps["data-dependent shapes"] is True
    assert isinstance(caps["max dimensions"], int)


def test_max_dimensions_is_the_runtimes_limit():
    # the constant restates the runtime's abi::kMaxDims: an array of that rank is made,
    # one more axis is refused
    limit = simt.__array_namespace_info__().capabilities()["max dimensions"]
    assert simt.zeros((1,) * limit, device=simt.devices()[-1]).ndim == limit
    with pytest.raises(ValueError, match="dimensions"):
        simt.zeros((1,) * (limit + 1), device=simt.devices()[-1])


def test_default_device_is_where_arrays_are_made(device):
    info = simt.__array_namespace_info__()
    with simt.use_device(device):
        assert info.default_device() == device
        assert simt.zeros(1).device == info.default_device()


def test_devices_are_simts():
    assert simt.__array_namespace_info__().devices() == list(simt.devices())


def test_default_dtypes_are_what_creation_gives(device):
    defaults = simt.__array_namespace_info__().default_dtypes(device=device)
    assert set(defaults) == {"real floating", "complex floating", "integral", "indexing"}
    assert simt.zeros(1, device=device).dtype == defaults["real floating"]
    assert simt.full(1, 1j, device=device).dtype == defaults["complex floating"]
    assert simt.arange(3, device=device).dtype == defaults["integral"]
    assert simt.argsort(simt.zeros(3, device=device)).dtype == defaults["indexing"]
    assert simt.__array_namespace_info__().default_dtypes(device=device.id) == defaults


STANDARD = ["bool", "int8", "int16", "int32", "int64", "uint8", "uint16", "uint32", "uint64",
            "float32", "float64", "complex64", "complex128"]


def test_dtypes_are_the_standards_the_device_computes_in(device):
    found = simt.__array_namespace_info__().dtypes(device=device)
    expected = [n for n in STANDARD
                if device.supports_float64 or n not in ("float64", "complex128")]
    assert list(found) == expected
    assert all(found[name] == np.dtype(name) for name in found)


@pytest.mark.parametrize("kind", ["bool", "signed integer", "unsigned integer", "integral",
                                  "real floating", "complex floating", "numeric"])
def test_dtypes_of_a_kind_agree_with_isdtype(kind):
    found = simt.__array_namespace_info__().dtypes(device="cpu", kind=kind)
    assert list(found) == [n for n in STANDARD if simt.isdtype(np.dtype(n), kind)]


def test_dtypes_of_several_kinds():
    info = simt.__array_namespace_info__()
    found = info.dtypes(device="cpu", kind=("bool", "complex floating"))
    assert list(found) == ["bool", "complex64", "complex128"]


def test_a_device_without_double_precision_lists_no_float64(monkeypatch):
    monkeypatch.setattr(_info, "has_float64", lambda device: False)
    found = simt.__array_namespace_info__().dtypes(device="cpu")
    assert "float64" not in found and "complex128" not in found and "float32" in found


def test_bad_kind_and_device_are_named():
    info = simt.__array_namespace_info__()
    with pytest.raises(ValueError, match="kind"):
        info.dtypes(kind="floating")
    with pytest.raises(TypeError, match="device"):
        info.dtypes(device=3)
    with pytest.raises(TypeError, match="device"):
        info.default_dtypes(device=3.5)
