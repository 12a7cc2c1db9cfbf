"""simt's data type functions (astype, Array.astype, can_cast, result_type, finfo, iinfo,
isdtype) and the namespace's dtype names, against NumPy and the array API standard, on
every device.

Conversions must equal NumPy's bit for bit, except float to integer of values outside the
integer's range (and NaN), which simt saturates where NumPy's result is undefined in C:
those inputs are left out.
"""

import warnings

import numpy as np
import pytest

import simt

from array_helpers import assert_exact

DTYPES = ["bool", "int8", "uint8", "int16", "int32", "int64", "uint64", "float16",
          "float32", "float64", "complex64", "complex128"]
# The cast matrix on a representative subset (every pair), plus every dtype to and from
# float32, and to int16: each pair compiles a kernel.
CORE = ["bool", "int8", "uint64", "float16", "float64", "complex64"]
CAST_PAIRS = sorted({(a, b) for a in CORE for b in CORE}
                    | {(a, "float32") for a in DTYPES} | {("float32", b) for b in DTYPES}
                    | {(a, "int16") for a in DTYPES})


def dev(x, device):
    return simt.to_device(np.asarray(x), device=device)


def numpy_astype(x, dtype):
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")  # ComplexWarning, overflow in cast
        return x.astype(dtype)


def cast_inputs(rng, source, target, n=200):
    """Values of `source` whose conversion to `target` NumPy defines: floats to integers
    only within the integer's range (no NaN, no negatives to unsigned), IEEE specials
    otherwise; integers over their whole range (narrowing wraps, as NumPy's)."""
    source, target = np.dtype(source), np.dtype(target)
    if source.kind == "b":
        return rng.integers(0, 2, n).astype(bool)
    if source.kind in "iu":
        info = np.iinfo(source)
        x = rng.integers(info.min, info.max, n, endpoint=True, dtype=source)
        x[: n // 2] = rng.integers(max(info.min, -300), min(info.max, 300), n // 2,
                                   endpoint=True)
        x[n // 2: n // 2 + 2] = [info.min, info.max]
        return x
    real = np.dtype(f"f{source.itemsize // 2}") if source.kind == "c" else source
    if target.kind in "iu":
        info = np.iinfo(target)
        low = 0.0 if target.kind == "u" else float(info.min)
        high = min(float(info.max), 1e18, float(np.finfo(real).max))
        values = rng.uniform(max(low, -high), high, n)
        values[: n // 2] = rng.uniform(max(low, -300), min(high, 300), n // 2)
        values[:4] = [0.0, -0.0, 0.9, 1.9 if low == 0 else -0.7]
        values = values.astype(real)
        whole = np.trunc(values.astype(np.float64))
        values = values[(whole >= low) & (whole <= float(info.max))]
    else:
        values = rng.standard_normal(n) * 10.0 ** rng.integers(-6, 6, n)
        values[:8] = [np.nan, np.inf, -np.inf, 0.0, -0.0, 1e300, -1e-300, 65520.0]
        with np.errstate(over="ignore"):
            values = values.astype(real)
    if source.kind == "c":
        imag = rng.standard_normal(len(values)).astype(real)
        imag[: len(values) // 4] = 0
        return (values + 1j * imag).astype(source)
    return values


@pytest.mark.parametrize("source, target", CAST_PAIRS)
def test_astype(source, target, device, rng):
    x = cast_inputs(rng, source, target)
    got = simt.astype(dev(x, device), target)
    assert_exact(got, numpy_astype(x, target), f"{source} -> {target}")


def test_astype_complex_to_bool(device):
    # nonzero: either part (the real part alone would make 1j False)
    z = np.array([0j, 1j, 1 + 0j, complex(0, -0.0), complex(np.nan, 0)], np.complex64)
    assert_exact(simt.astype(dev(z, device), bool), z.astype(bool), "complex64 -> bool")


def test_astype_rounding(device):
    # float64 -> float16 rounds once (not through float32), int64 -> float32 once
    # (not through float64), ties to even; overflow gives inf, underflow zero.
    f = np.array([1 + 2 ** -11 + 2 ** -30, 1 + 2 ** -11, 1 + 3 * 2 ** -11, 65519.99, 65520.0,
                  2 ** -25 + 2 ** -40, 2 ** -25, 1.5 * 2 ** -24, 1e-310, -1e-310,
                  2 ** 24 + 1, 1 + 2 ** -24 + 2 ** -60])
    assert_exact(simt.astype(dev(f, device), np.float16), numpy_astype(f, np.float16),
                 "float64 -> float16")
    assert_exact(simt.astype(dev(f, device), np.float32), f.astype(np.float32),
                 "float64 -> float32")
    i = np.array([2 ** 60 + 2 ** 36 + 1, 2 ** 62 + 2 ** 38 + 2 ** 37 + 1,
                  -(2 ** 61) - 2 ** 37 - 1, 2 ** 53 + 1, 2 ** 63 - 1, -(2 ** 63),
                  2 ** 24 + 1, 65520, -65519], np.int64)
    for target in [np.float32, np.float16, np.float64]:
        assert_exact(simt.astype(dev(i, device), target), numpy_astype(i, target),
                     f"int64 -> {np.dtype(target)}")
    u = np.array([2 ** 64 - 1, 2 ** 63 + 2 ** 39 + 1, 2 ** 63, 1], np.uint64)
    assert_exact(simt.astype(dev(u, device), np.float32), u.astype(np.float32),
                 "uint64 -> float32")


def test_astype_float_to_int_truncates(device, rng):
    x = rng.uniform(-1000, 1000, 300)
    x[:6] = [-0.99, 0.99, -1.5, 1.5, -0.0, 2.5]
    for target in [np.int32, np.int64, np.int8]:
        y = x if target != np.int8 else x / 8
        assert_exact(simt.astype(dev(y, device), target), y.astype(target),
                     f"float64 -> {np.dtype(target)}")


def test_astype_layouts(device, rng):
    m = rng.standard_normal((5, 6)).astype(np.float32)
    f = np.asfortranarray(m)
    s = dev(m, device)
    for view, expected in [(s[::2], m[::2]), (s[::-1, 1::2], m[::-1, 1::2]),
                           (simt.to_device(f, device=device), f)]:
        got = simt.astype(view, np.float64)
        assert_exact(got, expected.astype(np.float64), "astype of a view")
    assert_exact(simt.astype(dev(np.array(2.5), device), np.int8), np.int8(2), "0-d")
    assert_exact(simt.astype(dev(np.zeros((0, 3)), device), np.float32),
                 np.zeros((0, 3), np.float32), "empty")


def test_astype_copy_and_method(device, rng):
    x = rng.standard_normal(10)
    s = dev(x, device)
    assert simt.astype(s, np.float64, copy=False) is s
    copied = simt.astype(s, np.float64)
    assert copied is not s
    assert_exact(copied, x)
    s += 1.0  # the copy is its own memory
    assert_exact(copied, x)
    assert_exact(s.astype(np.float32), (x + 1.0).astype(np.float32), "Array.astype")
    assert s.astype(np.float64, copy=False) is s
    assert_exact(s.astype("int16"), (x + 1.0).astype(np.int16), "astype('int16')")


def test_astype_method_takes_numpys_keywords(device, rng):
    # Dask's astype (and NumPy code) passes casting= and order=.
    x = rng.standard_normal((3, 4))
    s = dev(x, device)
    assert_exact(s.astype(np.float32, casting="same_kind", order="C"), x.astype(np.float32))
    assert_exact(s.astype(np.int32, casting="unsafe", order="K"), x.astype(np.int32))
    with pytest.raises(TypeError, match="cannot cast from float64 to int32 under casting='safe'"):
        s.astype(np.int32, casting="safe")
    with pytest.raises(ValueError, match="order='F'"):
        s.astype(np.float32, order="F")


def test_astype_to_another_device(device, rng):
    others = [d for d in simt.devices() if d != device]
    if not others:
        pytest.skip("needs two devices")
    x = rng.standard_normal(10).astype(np.float32)
    got = simt.astype(dev(x, device), np.float64, device=others[0])
    assert got.device == others[0]
    assert_exact(got, x.astype(np.float64))


def test_astype_rejects_non_arrays():
    with pytest.raises(TypeError):
        simt.astype(np.arange(3), np.float32)
    with pytest.raises(TypeError):
        simt.astype([1, 2], np.float32)


# ------------------------------------------------------------------- can_cast

@pytest.mark.parametrize("casting", [None, "safe", "same_kind", "unsafe", "no", "equiv"])
def test_can_cast_matches_numpy(casting, device):
    for source in DTYPES:
        array = dev(np.zeros(1, source), device)
        for target in DTYPES:
            args = () if casting is None else (casting,)
            expected = np.can_cast(source, target, *args)
            assert simt.can_cast(np.dtype(source), np.dtype(target), *args) is bool(expected), \
                (source, target, casting)
            assert simt.can_cast(array, target, *args) is bool(expected), \
                (source, target, casting)


def test_can_cast_takes_dtype_spellings():
    assert simt.can_cast(simt.int8, simt.float32)
    assert not simt.can_cast(simt.float64, simt.float32)
    assert simt.can_cast("int16", "int32")


# ---------------------------------------------------------------- result_type

def test_result_type_every_pair(device):
    for a in DTYPES:
        array = dev(np.zeros(0, a), device)
        for b in DTYPES:
            expected = np.result_type(a, b)
            assert simt.result_type(np.dtype(a), np.dtype(b)) == expected, (a, b)
            assert simt.result_type(array, np.dtype(b)) == expected, (a, b)
            assert simt.result_type(np.dtype(b), array) == expected, (b, a)


def test_result_type_python_scalars_are_weak(device):
    for a in DTYPES:
        array = dev(np.zeros(0, a), device)
        for scalar in [True, 1, 2.5, 1j]:
            expected = np.result_type(np.zeros(0, a), scalar)
            assert simt.result_type(array, scalar) == expected, (a, scalar)
            assert simt.result_type(scalar, np.dtype(a)) == expected, (scalar, a)


def test_result_type_of_several():
    assert simt.result_type(simt.int8, simt.uint8, simt.float16) == np.float16
    assert simt.result_type(simt.int8, simt.uint16, simt.float32, 1j) == np.complex64
    assert simt.result_type(simt.float32) == np.float32
    assert simt.result_type(simt.uint64, simt.int64) == np.float64
    with pytest.raises(ValueError):
        simt.result_type()


# -------------------------------------------------------------- finfo, iinfo

@pytest.mark.parametrize("dtype", ["float16", "float32", "float64", "complex64",
                                   "complex128"])
def test_finfo(dtype, device):
    ours = simt.finfo(np.dtype(dtype))
    theirs = np.finfo(dtype)
    for name in ["bits", "eps", "max", "min", "smallest_normal", "dtype"]:
        assert getattr(ours, name) == getattr(theirs, name), name
    assert simt.finfo(dev(np.zeros(1, dtype), device)).eps == theirs.eps
    # the array API: a complex dtype's finfo is its real component's
    if dtype.startswith("complex"):
        assert ours.dtype == np.dtype("float32" if dtype == "complex64" else "float64")


@pytest.mark.parametrize("dtype", ["int8", "uint8", "int16", "int32", "int64", "uint16",
                                   "uint32", "uint64"])
def test_iinfo(dtype, device):
    ours = simt.iinfo(np.dtype(dtype))
    theirs = np.iinfo(dtype)
    for name in ["bits", "max", "min", "dtype"]:
        assert getattr(ours, name) == getattr(theirs, name), name
    assert simt.iinfo(dev(np.zeros(1, dtype), device)).max == theirs.max


@pytest.mark.parametrize("dtype", ["float16", "float32", "float64", "complex64",
                                   "complex128"])
def test_finfo_fields_are_python_numbers(dtype):
    # the array API: Python floats (bits an int), not NumPy scalars
    info = simt.finfo(np.dtype(dtype))
    for name in ["eps", "max", "min", "smallest_normal"]:
        assert type(getattr(info, name)) is float, name
    assert type(info.bits) is int
    assert info.tiny == np.finfo(dtype).tiny and info.resolution == np.finfo(dtype).resolution


@pytest.mark.parametrize("dtype", ["int8", "uint8", "int64", "uint64"])
def test_iinfo_fields_are_python_ints(dtype):
    info = simt.iinfo(np.dtype(dtype))
    assert all(type(getattr(info, name)) is int for name in ["bits", "max", "min"])


def test_finfo_iinfo_reject_the_other_kind():
    with pytest.raises(ValueError):
        simt.iinfo(np.float32)
    with pytest.raises(ValueError):
        simt.finfo(np.int32)
    with pytest.raises(TypeError, match="simt.finfo"):
        simt.finfo("not a dtype")


# -------------------------------------------------------------------- isdtype

KINDS = {
    "bool": {"bool"},
    "signed integer": {"int8", "int16", "int32", "int64"},
    "unsigned integer": {"uint8", "uint16", "uint32", "uint64"},
    "integral": {"int8", "int16", "int32", "int64", "uint8", "uint16", "uint32", "uint64"},
    "real floating": {"float16", "float32", "float64"},
    "complex floating": {"complex64", "complex128"},
    "numeric": set(DTYPES + ["uint16", "uint32"]) - {"bool"},
}


def test_isdtype():
    for name in DTYPES + ["uint16", "uint32"]:
        dtype = np.dtype(name)
        for kind, members in KINDS.items():
            assert simt.isdtype(dtype, kind) is (name in members), (name, kind)
        assert simt.isdtype(dtype, ("bool", "complex floating")) is \
            (name in KINDS["bool"] | KINDS["complex floating"])
        assert simt.isdtype(dtype, dtype)
        assert simt.isdtype(dtype, (np.dtype("int8"), "real floating")) is \
            (name == "int8" or name in KINDS["real floating"])
    assert not simt.isdtype(simt.float32, simt.float64)
    with pytest.raises(ValueError):
        simt.isdtype(simt.float32, "floating")


# ---------------------------------------------------------- dtypes of the namespace

def test_namespace_dtypes():
    for name in ["int8", "int16", "int32", "int64", "uint8", "uint16", "uint32", "uint64",
                 "float32", "float64", "complex64", "complex128"]:
        assert np.dtype(getattr(simt, name)) == np.dtype(name), name
    # dtypes compare equal to arrays' dtypes
    x = simt.zeros(2, simt.float32)
    assert x.dtype == simt.float32
    assert simt.astype(x, simt.int16).dtype == simt.int16


def test_namespace_has_bool_dtype():  # the array API's name for it
    assert np.dtype(simt.bool) == np.dtype(bool)


def test_float64_on_a_device_without_it_is_a_type_error(device, monkeypatch):
    """An OpenCL device without cl_khr_fp64 (simulated: every device here has it) refuses
    float64 and complex128 operations by name, before compiling anything."""
    from simt import _launch

    x = simt.zeros(4, dtype=np.float64, device=device)
    z = simt.zeros((2, 2), dtype=np.complex128, device=device)
    monkeypatch.setattr(_launch, "has_float64", lambda d: False)
    with pytest.raises(TypeError, match=f"{device.id}.*cannot compute in float64"):
        simt.sin(x[::2])  # a layout no earlier test planned
    with pytest.raises(TypeError, match="cannot compute in float64"):
        simt.sum(x[1:])
    with pytest.raises(TypeError, match="cannot compute in complex128"):
        z[:, :1] @ z[:1]
    f = simt.zeros(4, dtype=np.float32, device=device)
    assert simt.sin(f[::3]).dtype == np.float32  # float32 still runs
