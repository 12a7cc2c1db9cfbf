"""simt's element-wise functions (simt.add, simt.sin, ..., simt.where, simt.clip) against
NumPy on fresh random inputs, on every device.

Results must have NumPy 2's dtypes, equal NumPy's bit for bit where the operation is
exactly rounded (+ - * / sqrt, comparisons, integer operations), and be within a few ULP
otherwise. Every distinct (operation, loop dtypes, operand kinds, dimensions) compiles a
kernel, so the functions are swept with one or two dtypes each and the dtypes over a few
representative functions, not the full cross product.
"""

import numpy as np
import pytest

import simt

from array_helpers import standard_floor_divide

ALL_DTYPES = ["bool", "int8", "uint8", "int16", "int32", "int64", "uint64", "float16",
              "float32", "float64", "complex64", "complex128"]

SPECIALS = [np.nan, np.inf, -np.inf, 0.0, -0.0, 1.0, -1.0, 0.5, -2.5, 3.0]


# ------------------------------------------------------------------------------ helpers

def dev(x, device):
    return simt.to_device(np.asarray(x), device=device)


def ref(function, *args, **kwargs):
    with np.errstate(all="ignore"):
        return function(*args, **kwargs)


def random_values(rng, dtype, n, low=-100, high=100, specials=True):
    """n values of dtype: random in [low, high] (within the dtype's range), floats with
    IEEE specials (NaN, +-inf, -0.0) first."""
    dtype = np.dtype(dtype)
    if dtype.kind == "b":
        return rng.integers(0, 2, n).astype(bool)
    if dtype.kind in "iu":
        info = np.iinfo(dtype)
        return rng.integers(max(info.min, low), min(info.max, high), n, endpoint=True,
                            dtype=dtype)
    if dtype.kind == "c":
        real = random_values(rng, _real(dtype), n, low, high, specials)
        imag = random_values(rng, _real(dtype), n, low, high, specials)
        rng.shuffle(imag)
        out = np.empty(n, dtype)
        out.real, out.imag = real, imag
        return out
    values = rng.uniform(low, high, n).astype(dtype)
    if specials:
        k = min(len(SPECIALS), n)
        values[:k] = np.array(SPECIALS[:k], dtype)
        rng.shuffle(values)
    return values


def _real(dtype):
    return np.float32 if np.dtype(dtype) == np.complex64 else np.float64


def _components(x):
    if x.dtype.kind == "c":
        return [("real", x.real), ("imag", x.imag)]
    return [("", x)]


def _mismatch(mask, got, expected, inputs, what):
    index = np.argwhere(np.atleast_1d(mask))[:5]
    lines = [what]
    for i in map(tuple, index):
        g = np.atleast_1d(got)[i]
        e = np.atleast_1d(expected)[i]
        ins = [np.broadcast_to(np.atleast_1d(a), np.atleast_1d(expected).shape)[i]
               if np.ndim(a) else a for a in inputs]
        lines.append(f"  at {i}: inputs {ins!r}: simt {g!r}, NumPy {e!r}")
    return "\n".join(lines)


def _check_meta(got, expected):
    assert isinstance(got, simt.Array), f"expected a simt.Array, got {type(got).__name__}"
    host = got.get()
    expected = np.asarray(expected)
    assert host.dtype == expected.dtype, f"dtype {host.dtype}, NumPy's {expected.dtype}"
    assert host.shape == expected.shape, f"shape {host.shape}, NumPy's {expected.shape}"
    return host, expected


def assert_exact(got, expected, *inputs, signed_zeros=True, name=""):
    """got (a simt array) equals NumPy's `expected` bit for bit (NaN payloads aside; the
    sign of zero counted unless signed_zeros=False)."""
    host, expected = _check_meta(got, expected)
    for part, (g, e) in zip(("real", "imag"), zip(_components(host), _components(expected))):
        g, e = g[1], e[1]
        if g.dtype.kind == "f":
            gnan, enan = np.isnan(g), np.isnan(e)
            bad = gnan != enan
            if signed_zeros:
                bits = np.dtype(f"u{g.dtype.itemsize}")
                bad |= ~enan & ~gnan & (g.view(bits) != e.view(bits))
            else:
                bad |= ~enan & ~gnan & (g != e)
        else:
            bad = g != e
        assert not np.any(bad), _mismatch(bad, host, expected, inputs,
                                          f"{name}: not NumPy's result ({part})")


def _ulp_distance(g, e):
    bits = np.dtype(f"i{g.dtype.itemsize}")
    gi = g.view(bits).astype(np.int64)
    ei = e.view(bits).astype(np.int64)
    top = np.int64(1) << (8 * g.dtype.itemsize - 1)
    gi = np.where(gi < 0, -(gi + top), gi)  # ordered: -0.0 and 0.0 one apart
    ei = np.where(ei < 0, -(ei + top), ei)
    return np.abs(gi - ei)


RTOL = {"float32": 1e-6, "float64": 1e-14}


def assert_close(got, expected, *inputs, rtol=None, ulp=1, atol=0.0, name=""):
    """got within rtol of NumPy's result (float16: within `ulp` ULP), NaN where NumPy has
    NaN, and infinities and real zeros (their sign too) exactly where NumPy has them.
    Complex results: each part within rtol of the modulus."""
    host, expected = _check_meta(got, expected)
    is_complex = expected.dtype.kind == "c"
    with np.errstate(all="ignore"):
        modulus = np.abs(expected.astype(np.complex128)) if is_complex else None
    for part, (g, e) in zip(("real", "imag"), zip(_components(host), _components(expected))):
        g, e = g[1], e[1]
        if g.dtype.kind != "f":
            bad = g != e
        else:
            gnan, enan = np.isnan(g), np.isnan(e)
            bad = gnan != enan
            exact = ~enan & (np.isinf(e) | ((e == 0) & (not is_complex)))
            bits = np.dtype(f"u{g.dtype.itemsize}")
            bad |= exact & (g.view(bits) != e.view(bits))
            rest = ~enan & ~exact
            if g.dtype == np.float16:
                bad |= rest & (_ulp_distance(g, e) > ulp)
            else:
                tol = RTOL[g.dtype.name] if rtol is None else rtol
                with np.errstate(all="ignore"):
                    err = np.abs(g.astype(np.float64) - e.astype(np.float64))
                    scale = modulus if is_complex else np.abs(e.astype(np.float64))
                    bad |= rest & ~(err <= tol * scale + atol)
        assert not np.any(bad), _mismatch(bad, host, expected, inputs,
                                          f"{name}: not within tolerance of NumPy ({part})")


def check(name, function, *args, device, exact=True, **options):
    """simt.<name> of args (NumPy arrays copied to `device`; scalars as they are) against
    NumPy's `function` of the same: bit for bit, or (exact=False) within tolerance."""
    got = getattr(simt, name)(*[dev(a, device) if isinstance(a, np.ndarray) else a
                                for a in args])
    expected = ref(function, *args)
    if exact:
        options.pop("ulp", None)
        assert_exact(got, expected, *args, name=name, **options)
    else:
        assert_close(got, expected, *args, name=name, **options)


# ------------------------------------------------------------- the namespace's names

UNARY = ["abs", "acos", "acosh", "asin", "asinh", "atan", "atanh", "bitwise_invert", "ceil",
         "conj", "cos", "cosh", "exp", "expm1", "floor", "isfinite", "isinf", "isnan",
         "log", "log1p", "log2", "log10", "logical_not", "negative", "positive", "reciprocal",
         "round", "sign", "signbit", "sin", "sinh", "square", "sqrt", "tan", "tanh", "trunc",
         "exp2", "cbrt", "deg2rad", "rad2deg"]
BINARY = ["add", "atan2", "bitwise_and", "bitwise_left_shift", "bitwise_or",
          "bitwise_right_shift", "bitwise_xor", "copysign", "divide", "equal", "floor_divide",
          "greater", "greater_equal", "hypot", "less", "less_equal", "logaddexp",
          "logical_and", "logical_or", "logical_xor", "maximum", "minimum", "multiply",
          "not_equal", "pow", "remainder", "subtract", "fmax", "fmin"]
# NumPy's names for the same operations (simt accepts both).
ALIASES = {"true_divide": "divide", "mod": "remainder", "power": "pow", "absolute": "abs",
           "conjugate": "conj", "arcsin": "asin", "arccos": "acos", "arctan": "atan",
           "arcsinh": "asinh", "arccosh": "acosh", "arctanh": "atanh", "arctan2": "atan2",
           "invert": "bitwise_invert", "bitwise_not": "bitwise_invert",
           "left_shift": "bitwise_left_shift", "right_shift": "bitwise_right_shift",
           "fabs": "abs", "radians": "deg2rad", "degrees": "rad2deg"}


def test_every_elementwise_name_exists():
    for name in UNARY + BINARY + ["where", "clip"]:
        function = getattr(simt, name)
        assert callable(function), name
    for alias, name in ALIASES.items():
        assert getattr(simt, alias) is getattr(simt, name), alias


def test_signatures_name_the_standards_parameters():
    # inspect.signature of the function objects: positional-only as the array API's
    import inspect

    assert str(inspect.signature(simt.sin)) == "(x, /, *, out=None)"
    assert str(inspect.signature(simt.add)) == "(x1, x2, /, *, out=None)"
    assert str(inspect.signature(simt.where)) == "(condition, x1, x2, /, *, out=None)"
    assert str(inspect.signature(simt.clip)) == "(x, /, min=None, max=None, *, out=None)"
    for name in UNARY + BINARY:
        positional = [p for p in inspect.signature(getattr(simt, name)).parameters.values()
                      if p.kind is inspect.Parameter.POSITIONAL_ONLY]
        assert len(positional) == (1 if name in UNARY else 2), name


def test_wrong_argument_count_and_types(device):
    x = dev(np.arange(3.0), device)
    with pytest.raises(TypeError):
        simt.add(x)
    with pytest.raises(TypeError):
        simt.sin(x, x)
    with pytest.raises(TypeError):
        simt.add(x, "a")
    with pytest.raises(TypeError):
        simt.add(x, [1.0, 2.0, 3.0])
    with pytest.raises(TypeError):
        simt.add(x, x, out=np.empty(3))


def test_numpy_array_operand_says_copy_to_device(device):
    x = dev(np.arange(3.0), device)
    for args in [(x, np.arange(3.0)), (np.arange(3.0), x)]:
        with pytest.raises(TypeError, match="device"):
            simt.add(*args)
    with pytest.raises(TypeError, match="device"):
        simt.sin(np.arange(3.0))


def test_two_devices_raise_value_error_naming_both():
    devices = simt.devices()
    if len(devices) < 2:
        pytest.skip("needs two devices")
    a, b = devices[:2]
    x = dev(np.arange(3.0), a)
    y = dev(np.arange(3.0), b)
    for call in [lambda: simt.add(x, y), lambda: simt.add(y, x), lambda: x + y,
                 lambda: simt.where(dev(np.ones(3, bool), a), x, y),
                 lambda: simt.negative(x, out=simt.empty(3, np.float64, device=b))]:
        with pytest.raises(ValueError) as info:
            call()
        assert a.id in str(info.value) and b.id in str(info.value), str(info.value)


# ------------------------------------------------------- unary real functions, 2 dtypes

# name: (NumPy function, low, high): random inputs mostly in the function's domain (the
# specials and a few values outside it are added).
TRANSCENDENTAL = {
    "sin": (np.sin, -10, 10), "cos": (np.cos, -10, 10), "tan": (np.tan, -1.5, 1.5),
    "asin": (np.arcsin, -1, 1), "acos": (np.arccos, -1, 1), "atan": (np.arctan, -50, 50),
    "sinh": (np.sinh, -20, 20), "cosh": (np.cosh, -20, 20), "tanh": (np.tanh, -5, 5),
    "asinh": (np.arcsinh, -50, 50), "acosh": (np.arccosh, 1, 50),
    "atanh": (np.arctanh, -1, 1), "exp": (np.exp, -80, 80), "exp2": (np.exp2, -100, 100),
    "expm1": (np.expm1, -5, 5), "log": (np.log, 0, 100), "log2": (np.log2, 0, 100),
    "log10": (np.log10, 0, 100), "log1p": (np.log1p, -1, 10), "sqrt": (np.sqrt, 0, 1e6),
    "cbrt": (np.cbrt, -1000, 1000),
}


@pytest.mark.parametrize("dtype", ["float32", "float64"])
@pytest.mark.parametrize("name", sorted(TRANSCENDENTAL))
def test_unary_float_function(name, dtype, device, rng):
    function, low, high = TRANSCENDENTAL[name]
    x = random_values(rng, dtype, 300, low, high)
    x[:4] = np.array([low - 1, high + 1, 1e-30, -1e-30], dtype)  # outside the domain, tiny
    rng.shuffle(x)
    check(name, function, x, device=device, exact=name == "sqrt")


@pytest.mark.parametrize("name", ["sin", "exp", "log", "sqrt", "tanh", "atan"])
def test_unary_float16_rounds_like_numpy(name, device, rng):
    function, low, high = TRANSCENDENTAL[name]
    x = random_values(rng, "float16", 400, low, min(high, 60000))
    check(name, function, x, device=device, exact=name == "sqrt", ulp=1)


def test_unary_float_function_of_integers(device, rng):
    # NumPy: int8/uint8 (and bool) compute in float16, int16 in float32, wider in float64.
    for dtype in ["int8", "uint8", "int16", "int64", "bool"]:
        x = random_values(rng, dtype, 50, 0, 100)
        check("sqrt", np.sqrt, x, device=device)
    for dtype in ["int8", "int32"]:
        x = random_values(rng, dtype, 50, -100, 100)
        check("sin", np.sin, x, device=device, exact=False)


COMPLEX_FUNCTIONS = {"sqrt": np.sqrt, "exp": np.exp, "log": np.log, "log2": np.log2,
                     "log10": np.log10, "sin": np.sin, "cos": np.cos, "tan": np.tan,
                     "sinh": np.sinh, "cosh": np.cosh, "tanh": np.tanh, "expm1": np.expm1,
                     "log1p": np.log1p, "asin": np.arcsin, "acos": np.arccos,
                     "atan": np.arctan, "asinh": np.arcsinh, "acosh": np.arccosh,
                     "atanh": np.arctanh, "round": np.rint}


# Where a function's derivative grows without bound (its branch points and poles): the
# result there moves by many times an input's rounding, so no fixed tolerance holds for
# any two correct implementations (atan near i: a relative condition of 15 at 0.014 from
# it, and PoCL's libm differs from NumPy's there by 1.5e-14).
SINGULAR_POINTS = {"log": [0], "log2": [0], "log10": [0], "log1p": [-1],
                   "asin": [-1, 1], "acos": [-1, 1], "atan": [1j, -1j], "asinh": [1j, -1j],
                   "acosh": [-1, 1], "atanh": [-1, 1], "sqrt": [0]}


@pytest.mark.parametrize("name", sorted(COMPLEX_FUNCTIONS))
def test_unary_function_of_complex(name, device, rng):
    x = random_values(rng, "complex128", 50, -3, 3, specials=False)
    for point in SINGULAR_POINTS.get(name, []):
        near = np.abs(x - point) < 0.1
        x[near] = point + 0.1 + 0.1j  # moved off, not dropped: the array keeps its size
    check(name, COMPLEX_FUNCTIONS[name], x, device=device, exact=False)


@pytest.mark.parametrize("dtype", ["float32", "float64"])
def test_rounding_functions(dtype, device, rng):
    x = random_values(rng, dtype, 300, -20, 20)
    # Halfway cases: round is to nearest even, as NumPy's rint.
    x[:8] = np.array([0.5, 1.5, 2.5, -0.5, -1.5, -2.5, 1e20, -0.2], dtype)
    for name, function in [("floor", np.floor), ("ceil", np.ceil), ("trunc", np.trunc),
                           ("round", np.rint), ("rint", np.rint)]:
        check(name, function, x, device=device)


@pytest.mark.parametrize("dtype", ["int8", "int16", "uint8", "uint16", "uint64"])
def test_rounding_functions_of_integers_keep_dtype(dtype, device, rng):
    # round as the array API's and np.round: the integer itself, in its dtype
    x = random_values(rng, dtype, 100)
    for name, function in [("floor", np.floor), ("ceil", np.ceil), ("trunc", np.trunc),
                           ("round", np.round)]:
        check(name, function, x, device=device)


def test_rint_of_integers_is_numpys(device, rng):
    # rint is NumPy's ufunc: integers become floats (float16 for 8 bits ...), also
    # through np.rint; np.round keeps them
    x = random_values(rng, "int16", 50)
    check("rint", np.rint, x, device=device)
    assert np.rint(dev(x, device)).dtype == np.float32
    assert np.round(dev(x, device)).dtype == np.int16


def test_classification_functions(device, rng):
    x = random_values(rng, "float64", 200)
    x[:2] = [5e-324, -5e-324]  # subnormal
    for name, function in [("isnan", np.isnan), ("isinf", np.isinf),
                           ("isfinite", np.isfinite), ("signbit", np.signbit)]:
        check(name, function, x, device=device)
    # signbit sees the sign of -0.0 and of NaN
    specials = np.array([0.0, -0.0, np.nan, -np.nan, -np.inf, np.inf], np.float32)
    assert_exact(simt.signbit(dev(specials, device)), np.signbit(specials), specials)


def test_classification_of_complex_and_integers(device, rng):
    z = random_values(rng, "complex128", 100)
    for name, function in [("isnan", np.isnan), ("isinf", np.isinf),
                           ("isfinite", np.isfinite)]:
        check(name, function, z, device=device)
    i = random_values(rng, "int32", 50)
    for name, function in [("isnan", np.isnan), ("isfinite", np.isfinite),
                           ("signbit", np.signbit)]:
        check(name, function, i, device=device)


@pytest.mark.parametrize("dtype", ["int8", "float64"])
def test_arithmetic_unary(dtype, device, rng):
    x = random_values(rng, dtype, 200)
    if dtype == "int8":
        x[:3] = [-128, 127, 0]  # -(-128) and abs(-128) wrap as in NumPy
    for name, function in [("negative", np.negative), ("positive", np.positive),
                           ("abs", np.abs), ("square", np.square)]:
        check(name, function, x, device=device)
    check("sign", np.sign, x, device=device, signed_zeros=False)


def test_sign_of_negative_zero(device):
    x = np.array([-0.0, 0.0, -2.0, np.nan], np.float32)
    check("sign", np.sign, x, device=device)  # +0.0, as NumPy's


def test_sign_of_complex_negative_zero(device):
    z = np.array([complex(-0.0, 0.0), complex(0.0, -0.0), complex(-0.0, -0.0), 0j])
    check("sign", np.sign, z, device=device)


def test_unsigned_and_bool_unary(device, rng):
    u = random_values(rng, "uint64", 100, 0, 2 ** 63)
    u[:2] = [0, 2 ** 64 - 1]
    for name, function in [("negative", np.negative), ("abs", np.abs), ("sign", np.sign)]:
        check(name, function, u, device=device)
    b = random_values(rng, "bool", 50)
    for name, function in [("abs", np.abs), ("logical_not", np.logical_not),
                           ("bitwise_invert", np.invert)]:
        check(name, function, b, device=device)


def test_reciprocal(device, rng):
    x = random_values(rng, "float32", 200)
    assert_exact(simt.reciprocal(dev(x, device)), ref(np.reciprocal, x), x)
    i = random_values(rng, "int32", 200)
    i = i[i != 0]  # 1 // 0 is undefined in C and in NumPy
    i[:4] = [1, -1, 2, -2]
    assert_exact(simt.reciprocal(dev(i, device)), ref(np.reciprocal, i), i)


def test_complex_unary(device, rng):
    z = random_values(rng, "complex128", 100, specials=False)
    z[:3] = [0j, complex(-3, 0.0), complex(3, -4)]
    for name, function in [("negative", np.negative), ("positive", np.positive),
                           ("conj", np.conj)]:
        check(name, function, z, device=device)
    assert_close(simt.abs(dev(z, device)), np.abs(z), z)
    assert_close(simt.sign(dev(z, device)), np.sign(z), z)  # z / |z| (the array API's)
    assert_close(simt.square(dev(z, device)), np.square(z), z)
    # conj of a real array is the array, in its dtype
    x = random_values(rng, "float32", 20)
    assert_exact(simt.conj(dev(x, device)), np.conj(x), x)


def test_deg2rad_rad2deg(device, rng):
    x = random_values(rng, "float64", 100, -720, 720)
    for name, function in [("deg2rad", np.deg2rad), ("rad2deg", np.rad2deg)]:
        check(name, function, x, device=device, exact=False)
        # float16 (int8 and uint8 compute in it): every finite value, within 1 ULP
        h = np.arange(2 ** 16, dtype=np.uint64).astype(np.uint16).view(np.float16)
        check(name, function, h, device=device, exact=False, ulp=1)


# ------------------------------------------------------------- binary float functions

def special_pairs(dtype):
    """Every pair of SPECIALS, as two arrays."""
    s = np.array(SPECIALS, dtype)
    x, y = np.meshgrid(s, s)
    return x.ravel(), y.ravel()


def binary_inputs(rng, dtype, n=200, low=-100, high=100):
    x, y = special_pairs(dtype)
    return (np.concatenate([x, random_values(rng, dtype, n, low, high, specials=False)]),
            np.concatenate([y, random_values(rng, dtype, n, low, high, specials=False)]))


BINARY_FLOAT = {"atan2": np.arctan2, "hypot": np.hypot, "logaddexp": np.logaddexp,
                "pow": np.power}


@pytest.mark.parametrize("dtype", ["float32", "float64"])
@pytest.mark.parametrize("name", sorted(BINARY_FLOAT))
def test_binary_float_function(name, dtype, device, rng):
    x, y = binary_inputs(rng, dtype)
    if name == "pow":
        x = np.abs(x)  # real powers of negative numbers: NaN (the specials keep some)
        y = y / 10
        x[:len(SPECIALS) ** 2], y[:len(SPECIALS) ** 2] = special_pairs(dtype)
    check(name, BINARY_FLOAT[name], x, y, device=device, exact=False)


def test_copysign(device, rng):
    x, y = binary_inputs(rng, "float64")
    assert_exact(simt.copysign(dev(x, device), dev(y, device)), np.copysign(x, y), x, y)
    # the sign of -0.0, both ways
    z = np.array([1.0, -0.0, 0.0, np.inf])
    assert_exact(simt.copysign(dev(z, device), -0.0), np.copysign(z, -0.0), z)
    assert np.all(np.signbit(simt.copysign(dev(z, device), -0.0).get()))


@pytest.mark.parametrize("dtype", ["float32", "float64"])
def test_maximum_minimum_fmax_fmin(dtype, device, rng):
    x, y = binary_inputs(rng, dtype)
    for name, function in [("maximum", np.maximum), ("minimum", np.minimum),
                           ("fmax", np.fmax), ("fmin", np.fmin)]:
        # which zero max(0.0, -0.0) is, is implementation-defined (the array API)
        check(name, function, x, y, device=device, signed_zeros=False)


def test_maximum_minimum_integers_and_bool(device, rng):
    for dtype in ["int8", "uint64", "bool"]:
        x = random_values(rng, dtype, 100, 0, 2 ** 64 - 1)
        y = random_values(rng, dtype, 100, 0, 2 ** 64 - 1)
        for name, function in [("maximum", np.maximum), ("minimum", np.minimum)]:
            check(name, function, x, y, device=device)


# ------------------------------------------------------------------ arithmetic, dtypes

def arithmetic_inputs(rng, dtype, n=300):
    dtype = np.dtype(dtype)
    if dtype.kind in "iu":
        info = np.iinfo(dtype)
        x = random_values(rng, dtype, n, info.min, info.max)
        y = random_values(rng, dtype, n, -100, 100)
        k = np.arange(n) % 3 == 0
        y[k] = random_values(rng, dtype, int(k.sum()), info.min, info.max)  # overflow wraps
        x[:4] = [info.min, info.max, 0, 1]
        return x, y
    if dtype.kind == "b":
        return random_values(rng, dtype, n), random_values(rng, dtype, n)
    if dtype.kind == "f":
        return binary_inputs(rng, dtype, n)
    x = random_values(rng, dtype, n, -100, 100, specials=False)
    y = random_values(rng, dtype, n, -100, 100, specials=False)
    return x, y


@pytest.mark.parametrize("dtype", ALL_DTYPES)
@pytest.mark.parametrize("name, function", [("add", np.add), ("multiply", np.multiply)])
def test_add_multiply_every_dtype(name, function, dtype, device, rng):
    x, y = arithmetic_inputs(rng, dtype)
    # complex multiplication (a*c - b*d, ...) is not one exactly rounded operation
    exact = not (name == "multiply" and dtype.startswith("complex"))
    check(name, function, x, y, device=device, exact=exact)


@pytest.mark.parametrize("dtype", ["uint8", "int16", "int64", "uint64", "float16",
                                   "float32", "float64"])
def test_subtract(dtype, device, rng):
    x, y = arithmetic_inputs(rng, dtype)
    assert_exact(simt.subtract(dev(x, device), dev(y, device)), ref(np.subtract, x, y), x, y)


def test_subtract_bool_is_a_type_error(device):
    b = dev(np.array([True, False]), device)
    with pytest.raises(TypeError):
        simt.subtract(b, b)
    with pytest.raises(TypeError):
        simt.negative(b)


@pytest.mark.parametrize("dtype", ["bool", "int8", "uint8", "int32", "uint64", "float16",
                                   "float32", "float64", "complex64", "complex128"])
def test_divide_every_dtype(dtype, device, rng):
    x, y = arithmetic_inputs(rng, dtype)
    got = simt.divide(dev(x, device), dev(y, device))
    expected = ref(np.divide, x, y)
    if dtype.startswith("complex"):
        assert_close(got, expected, x, y)  # NumPy's complex division is Smith's
    else:
        assert_exact(got, expected, x, y)


def _nonzero(y):
    y = y.copy()
    y[y == 0] = 1
    return y


@pytest.mark.parametrize("dtype", ["int8", "uint8", "int16", "int32", "int64", "uint64",
                                   "float16", "float32", "float64"])
@pytest.mark.parametrize("name, function", [("floor_divide", standard_floor_divide),
                                            ("remainder", np.remainder)])
def test_floor_divide_remainder_every_dtype(name, function, dtype, device, rng):
    x, y = arithmetic_inputs(rng, dtype)
    if np.dtype(dtype).kind in "iu":
        y = _nonzero(y)
        if np.dtype(dtype).kind == "i":
            # INT_MIN // -1 overflows: NumPy wraps it; leave it to the test below
            y[(x == np.iinfo(dtype).min) & (y == -1)] = 1
    check(name, function, x, y, device=device)


def test_integer_division_by_zero_and_overflow_give_numpys_results(device):
    # NumPy 2: x // 0 == 0 and x % 0 == 0 for integers; INT_MIN // -1 wraps to INT_MIN.
    x = np.array([7, -7, 0, -128, -128, 127], np.int8)
    y = np.array([0, 0, 0, -1, 0, -1], np.int8)
    for name, function in [("floor_divide", np.floor_divide), ("remainder", np.remainder)]:
        check(name, function, x, y, device=device)


def test_float_floor_divide_remainder_signs(device):
    # Python's semantics: remainder has the divisor's sign; -0.0 kept as NumPy keeps it.
    x = np.array([5.0, -5.0, 5.0, -5.0, 0.0, -0.0, 1.0, np.inf, 1.0, 7.5])
    y = np.array([3.0, 3.0, -3.0, -3.0, 3.0, 3.0, np.inf, 2.0, 0.0, -0.0])
    for name, function in [("floor_divide", standard_floor_divide),
                           ("remainder", np.remainder)]:
        check(name, function, x, y, device=device)


@pytest.mark.parametrize("dtype", ["float16", "float32", "float64"])
def test_floor_divide_of_infinities_is_the_standards(dtype, device):
    # floor(x / y) where an infinity meets a finite number (NumPy: NaN for inf // 2, and
    # -1.0 for 1 // -inf, as Python's //); NumPy's elsewhere, NaN for inf // inf
    inf = np.inf
    x = np.array([inf, inf, -inf, -inf, 1.0, -1.0, 1.0, -1.0, 0.0, -0.0, inf, inf, 7.5], dtype)
    y = np.array([2.0, -2.0, 2.0, -2.0, -inf, inf, inf, -inf, -inf, inf, inf, 0.0, -inf], dtype)
    want = np.array([inf, -inf, -inf, inf, -0.0, -0.0, 0.0, 0.0, -0.0, -0.0, np.nan, inf,
                     -0.0], dtype)
    got = simt.floor_divide(dev(x, device), dev(y, device))
    assert_exact(got, want, x, y, name="floor_divide")
    sx = dev(x, device)
    sx //= dev(y, device)  # the operator, in place
    assert_exact(sx, want, x, y, name="//=")


def test_extreme_magnitudes(device):
    # floor_divide and remainder from fmod, as NumPy's (1 // 0.1 is 9); complex division
    # and modulus scaled, not overflowing in the intermediate squares
    x = np.array([1.0, 1e300, -7.5, 0.7, 1e-300, 5e15 + 1, -1e308])
    y = np.array([0.1, 3.0, 0.1, 0.1, 3e-310, 0.3, 1e-308])
    for name, function in [("floor_divide", np.floor_divide), ("remainder", np.remainder),
                           ("divide", np.divide)]:
        check(name, function, x, y, device=device)
    z = np.array([1e300 + 1e300j, 1e-300 + 1e-300j, 3 + 4j, 1e200 + 1e200j, 1e-300 + 0j])
    w = np.array([1e300 + 1e300j, 1e-300 + 2e-300j, 1 - 1j, 1 + 1j, 1e-310 + 1e-310j])
    check("divide", np.divide, z, w, device=device, exact=False)
    check("abs", np.abs, z, device=device, exact=False)
    check("sign", np.sign, z, device=device, exact=False)
    check("hypot", np.hypot, np.array([1e200, 1e-200, 3e-320]), 1e200, device=device,
          exact=False)


def test_sign_of_tiny_complex(device):
    z = np.array([1e-310 + 0j, 1e-310 + 1e-310j, 3e-320j])
    check("sign", np.sign, z, device=device, exact=False)


@pytest.mark.parametrize("dtype", ["int8", "uint8", "int64", "uint64"])
def test_integer_pow(dtype, device, rng):
    x = random_values(rng, dtype, 200, -20, 20)
    y = random_values(rng, dtype, 200, 0, 70)  # NumPy rejects negative integer powers
    y[:3] = [0, 1, 2]
    assert_exact(simt.pow(dev(x, device), dev(y, device)), ref(np.power, x, y), x, y)


def test_complex_pow(device, rng):
    x = random_values(rng, "complex128", 50, -3, 3, specials=False)
    y = random_values(rng, "complex128", 50, -2, 2, specials=False)
    assert_close(simt.pow(dev(x, device), dev(y, device)), np.power(x, y), x, y)


# ------------------------------------------------------------------------ comparisons

COMPARISONS = [("equal", np.equal), ("not_equal", np.not_equal), ("less", np.less),
               ("less_equal", np.less_equal), ("greater", np.greater),
               ("greater_equal", np.greater_equal)]


@pytest.mark.parametrize("dtype", ["float32", "float64"])
def test_comparisons_with_specials(dtype, device, rng):
    x, y = binary_inputs(rng, dtype)
    y[-50:] = x[-50:]  # some equal
    for name, function in COMPARISONS:
        check(name, function, x, y, device=device)


@pytest.mark.parametrize("dtype", ["bool", "int8", "uint8", "int16", "int32", "int64",
                                   "uint64", "float16"])
def test_less_every_dtype(dtype, device, rng):
    x, y = arithmetic_inputs(rng, dtype)
    y[:20] = x[:20]
    assert_exact(simt.less(dev(x, device), dev(y, device)), np.less(x, y), x, y)


def test_equality_of_complex(device, rng):
    x = random_values(rng, "complex64", 100)
    y = x.copy()
    y[::3] = random_values(rng, "complex64", len(y[::3]))
    for name, function in COMPARISONS[:2]:
        check(name, function, x, y, device=device)


def test_comparisons_of_mixed_integer_kinds_are_exact(device, rng):
    # int64 against uint64: NumPy compares the values exactly (no float64 rounding).
    x = np.array([-1, 2 ** 62, 2 ** 63 - 1, 0, -(2 ** 63)], np.int64)
    y = np.array([2 ** 64 - 1, 2 ** 62 + 1, 2 ** 63, 0, 2 ** 63], np.uint64)
    for name, function in COMPARISONS:
        check(name, function, x, y, device=device)
        check(name, function, y, x, device=device)
        check(name, function, x.astype(np.int8), y, device=device)
        check(name, function, y, 2 ** 63 + 1, device=device)


# ------------------------------------------------------------------ logical, bitwise

def test_logical_functions(device, rng):
    x, y = random_values(rng, "bool", 100), random_values(rng, "bool", 100)
    for name, function in [("logical_and", np.logical_and), ("logical_or", np.logical_or),
                           ("logical_xor", np.logical_xor)]:
        check(name, function, x, y, device=device)
    assert_exact(simt.logical_not(dev(x, device)), np.logical_not(x), x)


def test_logical_functions_of_numbers(device, rng):
    # NumPy takes any numbers (nonzero is true); NaN is true.
    x = random_values(rng, "float64", 100, -2, 2)
    x[::4] = 0
    y = random_values(rng, "int32", 100, -1, 1)
    for name, function in [("logical_and", np.logical_and), ("logical_xor", np.logical_xor)]:
        check(name, function, x, y, device=device)
    assert_exact(simt.logical_not(dev(x, device)), np.logical_not(x), x)


@pytest.mark.parametrize("dtype", ["bool", "int8", "uint64"])
def test_bitwise_functions(dtype, device, rng):
    x, y = arithmetic_inputs(rng, dtype)
    for name, function in [("bitwise_and", np.bitwise_and), ("bitwise_or", np.bitwise_or),
                           ("bitwise_xor", np.bitwise_xor)]:
        check(name, function, x, y, device=device)
    assert_exact(simt.bitwise_invert(dev(x, device)), np.invert(x), x)


def test_bitwise_of_floats_is_a_type_error(device):
    x = dev(np.arange(3.0), device)
    for name in ["bitwise_and", "bitwise_left_shift"]:
        with pytest.raises(TypeError):
            getattr(simt, name)(x, x)
    with pytest.raises(TypeError):
        simt.bitwise_invert(x)


@pytest.mark.parametrize("dtype", ["int16", "uint8", "int64"])
def test_shifts(dtype, device, rng):
    bits = np.dtype(dtype).itemsize * 8
    info = np.iinfo(dtype)
    x = random_values(rng, dtype, 200, info.min, info.max)
    y = random_values(rng, dtype, 200, 0, bits - 1)
    y[:4] = [0, 1, bits - 1, min(bits, info.max)]  # NumPy: a shift by the width or more
    x[:4] = [-1 if info.min else 1, info.max, info.min, -1 if info.min else info.max]
    for name, function in [("bitwise_left_shift", np.left_shift),
                           ("bitwise_right_shift", np.right_shift)]:
        check(name, function, x, y, device=device)


# ------------------------------------------------------------- layouts and broadcasting

def test_zero_dimensional(device, rng):
    x = np.array(rng.standard_normal(), np.float64)
    y = np.array(rng.standard_normal(), np.float64)
    got = simt.add(dev(x, device), dev(y, device))
    assert got.shape == ()
    assert_exact(got, np.add(x, y), x, y)
    assert_close(simt.sin(dev(x, device)), np.sin(x), x)
    # 0-d with 1-d and 2-d arrays
    v = rng.standard_normal(5)
    assert_exact(simt.add(dev(x, device), dev(v, device)), x + v, x, v)
    m = rng.standard_normal((3, 4))
    assert_exact(simt.add(dev(m, device), dev(y, device)), m + y, m, y)


def test_empty_arrays(device):
    for shape in [(0,), (0, 3), (2, 0, 4)]:
        x = np.zeros(shape, np.float32)
        assert_exact(simt.sin(dev(x, device)), np.sin(x))
        assert_exact(simt.add(dev(x, device), 1), x + 1)
        assert_exact(simt.less(dev(x, device), dev(x, device)), x < x)
    # empty broadcasts: (0, 1) with (4,) is (0, 4); int8 + float32 promotes
    a, b = np.zeros((0, 1), np.int8), np.ones(4, np.float32)
    assert_exact(simt.add(dev(a, device), dev(b, device)), a + b)
    with pytest.raises(ValueError):
        simt.add(dev(np.zeros(0), device), dev(np.zeros(2), device))


def test_broadcasting(device, rng):
    a = rng.standard_normal((3, 1))
    b = rng.standard_normal(4)
    assert_exact(simt.add(dev(a, device), dev(b, device)), a + b, a, b)
    assert_exact(simt.multiply(dev(b, device), dev(a, device)), b * a, b, a)
    c = rng.standard_normal((2, 1, 4))
    d = rng.standard_normal((3, 1))
    assert_exact(simt.add(dev(c, device), dev(d, device)), c + d)
    assert_close(simt.atan2(dev(c, device), dev(d, device)), np.arctan2(c, d))
    with pytest.raises(ValueError):
        simt.add(dev(np.zeros(3), device), dev(np.zeros(4), device))
    with pytest.raises(ValueError):
        simt.add(dev(np.zeros((2, 3)), device), dev(np.zeros((3, 2)), device))


def test_non_contiguous_and_negative_strides(device, rng):
    x = rng.standard_normal(40)
    y = rng.standard_normal(40)
    sx, sy = dev(x, device), dev(y, device)
    assert_exact(simt.add(sx[::2], sy[1::2]), x[::2] + y[1::2])
    assert_exact(simt.add(sx[::-1], sy), x[::-1] + y)
    assert_exact(simt.add(sx[::-3], sy[::3]), x[::-3] + y[::3])
    assert_close(simt.sin(sx[::-2]), np.sin(x[::-2]))
    m = rng.standard_normal((6, 8))
    n = rng.standard_normal((6, 8))
    sm, sn = dev(m, device), dev(n, device)
    assert_exact(simt.add(sm[::2, ::-1], sn[1::2]), m[::2, ::-1] + n[1::2])
    assert_exact(simt.add(sm[::-1, 2:], sn[:, :6]), m[::-1, 2:] + n[:, :6])
    assert_exact(simt.add(sm[:, 3], sn[:, 5]), m[:, 3] + n[:, 5])  # columns
    assert_exact(simt.add(sm[2], sn[:, 1:2]), m[2] + n[:, 1:2])  # (8,) with (6, 1)
    # a length-1 view of a strided array
    assert_exact(simt.add(sm[1:2, ::3], 1.0), m[1:2, ::3] + 1.0)


def test_fortran_order(device, rng):
    f = np.asfortranarray(rng.standard_normal((5, 7)))
    c = rng.standard_normal((5, 7))
    sf, sc = simt.to_device(f, device=device), dev(c, device)
    assert sf.strides == f.strides  # a transposed layout on the device
    assert_exact(simt.add(sf, sc), f + c)
    assert_exact(simt.add(sf, sf), f + f)
    assert_close(simt.sin(sf), np.sin(f))
    got = simt.subtract(sc, sf)
    assert_exact(got, c - f)
    # a Fortran array with a broadcast row
    r = rng.standard_normal(7)
    assert_exact(simt.multiply(sf, dev(r, device)), f * r)


def test_every_size_near_the_launch_boundaries(device, rng):
    # threads take several elements each, blocks of 256 on GPUs and chunks on the CPU:
    # the tails of every size must be computed, and nothing past the end written
    for n in [1, 2, 3, 4, 5, 7, 9, 255, 257, 1023, 1024, 1025, 4099, 16411]:
        x = random_values(rng, "float64", n)
        y = random_values(rng, "float64", n)
        check("add", np.add, x, y, device=device)
        check("multiply", np.multiply, x, 2.5, device=device)
        base = np.full(2 * n + 2, 12345.0)
        s = dev(base, device)
        simt.add(dev(x, device), dev(y, device), out=s[1:2 * n + 1:2])
        base[1:2 * n + 1:2] = x + y
        assert_exact(s, base, name=f"add into a strided out, n={n}")


def test_high_dimensional(device, rng):
    a = rng.standard_normal((2, 3, 1, 4, 2))
    b = rng.standard_normal((3, 5, 1, 1))
    assert_exact(simt.add(dev(a, device), dev(b, device)), a + b)
    v = dev(a, device)[:, ::-1, :, ::2, 1]
    assert_exact(simt.negative(v), -a[:, ::-1, :, ::2, 1])


# ------------------------------------------------------------------------ scalars

def test_python_scalars_either_side(device, rng):
    x = random_values(rng, "float32", 100)
    sx = dev(x, device)
    for scalar in [2, 2.5, -0.0, True, float("nan"), float("inf")]:
        assert_exact(simt.add(sx, scalar), ref(np.add, x, scalar), x)
        assert_exact(simt.add(scalar, sx), ref(np.add, scalar, x), x)
        assert_exact(simt.divide(scalar, sx), ref(np.divide, scalar, x), x)
    z = simt.multiply(sx, 1j)
    assert_exact(z, ref(np.multiply, x, 1j), x)  # complex64: the scalar is weak
    i = random_values(rng, "int8", 100)
    for scalar in [3, -128, 127, 2.5, True]:
        assert_exact(simt.multiply(dev(i, device), scalar), ref(np.multiply, i, scalar), i)
    assert_close(simt.atan2(sx, 2.0), np.arctan2(x, 2.0), x)
    assert_close(simt.atan2(2.0, sx), np.arctan2(2.0, x), x)


def test_python_scalars_rounded_to_a_narrow_float(device, rng):
    # NEP 50: the scalar converts to the array's float dtype (overflowing to inf)
    h = random_values(rng, "float16", 50)
    for scalar in [70000, 1e300, 0.1, -1e-10]:
        check("add", np.add, h, scalar, device=device)
    x = random_values(rng, "float32", 50)
    check("add", np.add, x, 1e300, device=device)
    check("multiply", np.multiply, h, 1j, device=device)  # complex64


def test_repeated_calls_check_each_python_int(device, rng):
    # a repeated call (same dtypes and layouts) takes a faster path: the range check of
    # Python ints, and exact comparisons, must hold there too
    x = random_values(rng, "int8", 40, -128, 127)
    u = random_values(rng, "uint64", 40, 0, 2 ** 64 - 1)
    sx, su = dev(x, device), dev(u, device)
    for value in [1, 5, 1000, -1000, 127, 128]:
        if -128 <= value <= 127:
            check("add", np.add, x, value, device=device)
        else:
            with pytest.raises(OverflowError):
                simt.add(sx, value)
        check("less", np.less, x, value, device=device)
        check("equal", np.equal, value, x, device=device)
    for value in [1, -1, 2 ** 64 - 1]:
        if value < 0:
            with pytest.raises(OverflowError):
                simt.subtract(su, value)
        else:
            check("subtract", np.subtract, u, value, device=device)
        check("greater", np.greater, u, value, device=device)


def test_python_int_out_of_range_raises_overflow_error(device):
    i = dev(np.array([1, 2, 3], np.int8), device)
    u = dev(np.array([1, 2, 3], np.uint8), device)
    for call in [lambda: simt.add(i, 128), lambda: simt.add(-129, i),
                 lambda: simt.multiply(u, -1), lambda: simt.add(u, 256),
                 lambda: simt.maximum(i, 1000), lambda: simt.bitwise_and(u, 2 ** 70)]:
        with pytest.raises(OverflowError):
            call()
    # in range: fine; and a float scalar promotes instead
    assert_exact(simt.add(i, 127), np.array([1, 2, 3], np.int8) + 127)
    assert_exact(simt.add(u, 300.0), np.array([1, 2, 3], np.uint8) + 300.0)


def test_comparison_with_out_of_range_python_int_is_exact(device, rng):
    x = random_values(rng, "int8", 50, -128, 127)
    x[:2] = [-128, 127]
    u = random_values(rng, "uint16", 50, 0, 2 ** 16 - 1)
    u[:2] = [0, 2 ** 16 - 1]
    for name, function in COMPARISONS:
        check(name, function, x, 300, device=device)
        check(name, function, -300, x, device=device)
    for name, function in COMPARISONS[1:3]:
        for scalar in [2 ** 64, -(2 ** 70)]:
            check(name, function, x, scalar, device=device)
            check(name, function, scalar, x, device=device)
        for scalar in [-1, 2 ** 16, -(2 ** 63), 2 ** 63]:
            check(name, function, u, scalar, device=device)


def test_comparison_of_64_bit_integers_with_out_of_range_python_int(device, rng):
    u = random_values(rng, "uint64", 50, 0, 2 ** 64 - 1)
    u[:2] = [2 ** 64 - 1, 2 ** 63]
    i = random_values(rng, "int64", 50, -(2 ** 63), 2 ** 63 - 1)
    i[:2] = [2 ** 63 - 1, -(2 ** 63)]
    for name, function in COMPARISONS:
        check(name, function, u, 2 ** 64, device=device)
        check(name, function, i, 2 ** 63, device=device)
        check(name, function, i, -(2 ** 63) - 1, device=device)
        check(name, function, -(2 ** 70), u, device=device)


def test_a_value_dependent_loop_is_not_reused_for_other_values(device):
    # x == 2**64 compares in float64 (as infinity); x == 2**53 + 1 after it must not reuse
    # that loop: in float64, 2**53 + 1 rounds to 2**53.
    x = dev(np.array([2 ** 53, 2 ** 53 + 1], np.int64), device)
    assert not (x == 2 ** 64).get().any()
    np.testing.assert_array_equal((x == 2 ** 53 + 1).get(), [False, True])


def test_numpy_scalars_are_strong(device, rng):
    x = random_values(rng, "float32", 50)
    i = random_values(rng, "int8", 50)
    sx, si = dev(x, device), dev(i, device)
    assert_exact(simt.multiply(si, np.float32(2)), i * np.float32(2), i)
    assert_exact(simt.add(sx, np.float16(1.5)), x + np.float16(1.5), x)
    assert_exact(simt.add(si, np.int64(3)), i + np.int64(3), i)
    assert_exact(simt.add(np.uint8(200), si), np.uint8(200) + i, i)
    assert_exact(simt.add(si, np.bool_(True)), i + np.bool_(True), i)
    # np.float64 and np.complex128 are subclasses of float and complex, but strong
    check("add", np.add, x, np.float64(1.5), device=device)
    check("multiply", np.multiply, np.complex128(2j), x, device=device)


# ---------------------------------------------------------------------------- out=

def test_out_poisoned_and_cast(device, rng):
    x = random_values(rng, "float32", 64)
    y = random_values(rng, "float32", 64)
    out = dev(np.full(64, -12345.0), device)  # float64: the float32 result is cast
    result = simt.add(dev(x, device), dev(y, device), out=out)
    assert result is out
    assert_exact(out, (x + y).astype(np.float64), x, y)
    # out of a wider integer type, and a bool result into int
    i = random_values(rng, "int8", 64)
    outi = dev(np.full(64, 77, np.int64), device)
    simt.multiply(dev(i, device), 3, out=outi)
    assert_exact(outi, (i * np.int8(3)).astype(np.int64), i)
    outb = dev(np.full(64, 77, np.int32), device)
    simt.less(dev(x, device), dev(y, device), out=outb)
    assert_exact(outb, (x < y).astype(np.int32), x, y)


def test_out_strided_view_leaves_the_rest(device, rng):
    x = random_values(rng, "float64", 20)
    base = np.full(40, 99.0)
    sbase = dev(base, device)
    simt.sqrt(dev(x, device), out=sbase[::2])
    base[::2] = ref(np.sqrt, x)
    assert_exact(sbase, base, x)
    # a reversed out
    sbase2 = dev(np.full(20, 7.0), device)
    simt.negative(dev(x, device), out=sbase2[::-1])
    assert_exact(sbase2, (-x)[::-1], x)


def test_out_rejections(device):
    x = dev(np.arange(4.0), device)
    with pytest.raises(TypeError):
        simt.add(x, x, out=simt.empty(4, np.int64, device=device))  # float64 -> int64
    with pytest.raises(TypeError):
        simt.sqrt(x, out=simt.empty(4, np.int32, device=device))
    with pytest.raises(TypeError):  # complex -> float
        simt.add(dev(np.ones(4, np.complex64), device), 1,
                 out=simt.empty(4, np.float64, device=device))
    with pytest.raises(ValueError):
        simt.add(x, x, out=simt.empty(5, np.float64, device=device))
    with pytest.raises(ValueError):
        simt.add(x, x, out=simt.empty((4, 1), np.float64, device=device))


def test_out_broadcasts_the_inputs(device, rng):
    # as NumPy: the inputs broadcast to out's shape
    x = random_values(rng, "float32", 5)
    out = dev(np.full((3, 5), -7.0, np.float32), device)
    simt.multiply(dev(x, device), 2.0, out=out)
    assert_exact(out, np.broadcast_to(x * np.float32(2), (3, 5)), x)


def test_out_same_kind_downcast_is_allowed(device, rng):
    x = random_values(rng, "float64", 50)
    out = dev(np.full(50, 5.0, np.float32), device)
    simt.add(dev(x, device), 1.0, out=out)
    assert_exact(out, (x + 1.0).astype(np.float32), x)
    i = random_values(rng, "int64", 50, -1000, 1000)
    outi = dev(np.full(50, 5, np.int8), device)
    simt.add(dev(i, device), 1, out=outi)
    assert_exact(outi, (i + 1).astype(np.int8), i)  # wraps as NumPy's cast


def test_out_overlapping_an_input(device, rng):
    x = random_values(rng, "float64", 30, specials=False)
    # out a shifted view of the input: NumPy's result as if the input were copied first
    s = dev(x, device)
    simt.add(s[:-1], s[1:], out=s[1:])
    expected = x.copy()
    np.add(expected[:-1], expected[1:], out=expected[1:])
    assert_exact(s, expected, x)
    s = dev(x, device)
    simt.negative(s, out=s[::-1])
    expected = x.copy()
    np.negative(expected, out=expected[::-1])
    assert_exact(s, expected, x)
    # out the input itself, element for element
    s = dev(x, device)
    simt.multiply(s, 2.0, out=s)
    assert_exact(s, x * 2.0, x)


# --------------------------------------------------------------------- where and clip

def test_where(device, rng):
    c = random_values(rng, "bool", 60)
    x = random_values(rng, "float32", 60)
    y = random_values(rng, "int16", 60)
    sc, sx, sy = dev(c, device), dev(x, device), dev(y, device)
    assert_exact(simt.where(sc, sx, sy), np.where(c, x, y), c, x, y)  # float32
    assert_exact(simt.where(sc, sx, 2.5), np.where(c, x, np.float32(2.5)), c, x)
    assert_exact(simt.where(sc, 1, sy), np.where(c, np.int16(1), y), c, y)
    # broadcasting the condition and the values
    c2 = random_values(rng, "bool", 4).reshape(4, 1)
    m = rng.standard_normal((4, 5))
    assert_exact(simt.where(dev(c2, device), dev(m, device), dev(m[0], device)),
                 np.where(c2, m, m[0]))
    # both values Python scalars: their own (weak-with-weak) promotion, as NumPy's
    assert_exact(simt.where(sc, 1, 2.5), np.where(c, 1, 2.5), c)
    assert_exact(simt.where(sc, 1, 2), np.where(c, 1, 2), c)


def test_where_scalars_follow_weak_promotion(device, rng):
    c = random_values(rng, "bool", 20)
    y = random_values(rng, "int8", 20)
    got = simt.where(dev(c, device), dev(y, device), 5)
    assert got.dtype == np.int8
    assert_exact(got, np.where(c, y, np.int8(5)), c, y)
    with pytest.raises(OverflowError):
        simt.where(dev(c, device), dev(y, device), 1000)


@pytest.mark.parametrize("dtype", ["int8", "float32"])
def test_clip(dtype, device, rng):
    x = random_values(rng, dtype, 200, -100, 100)
    sx = dev(x, device)
    assert_exact(simt.clip(sx, -10, 20), np.clip(x, -10, 20), x)
    assert_exact(simt.clip(sx, min=-5), np.clip(x, -5, None), x)
    assert_exact(simt.clip(sx, max=7), np.clip(x, None, 7), x)
    assert_exact(simt.clip(sx), x, x)
    lo = random_values(rng, dtype, 200, -50, 0)
    hi = random_values(rng, dtype, 200, 0, 50)
    assert_exact(simt.clip(sx, dev(lo, device), dev(hi, device)), np.clip(x, lo, hi), x)
    if dtype == "int8":
        # bounds out of the dtype's range clip to it (the array API), result int8
        assert_exact(simt.clip(sx, -1000, 1000), x, x)
    out = dev(np.full(200, 3, dtype), device)
    simt.clip(sx, -1, 1, out=out)
    assert_exact(out, np.clip(x, -1, 1), x)


@pytest.mark.parametrize("dtype", ["float16", "float32", "float64"])
def test_nextafter_steps_as_numpy(dtype, device, rng):
    info = np.finfo(dtype)
    edges = [0.0, -0.0, 1.0, 1.0, np.inf, -np.inf, np.nan, float(info.smallest_subnormal),
             3.0, -float(info.smallest_subnormal), float(info.max), float(info.tiny), 0.5]
    toward = [1.0, -1.0, 2.0, 0.0, 0.0, 0.0, 1.0, 0.0, np.nan, 5.0, np.inf, 0.0, 0.0]
    x = np.concatenate([np.array(edges, dtype),
                        (rng.standard_normal(300) * 10.0 ** rng.integers(-6, 5, 300)).astype(dtype)])
    y = np.concatenate([np.array(toward, dtype), (rng.standard_normal(300) * 100).astype(dtype)])
    check("nextafter", np.nextafter, x, y, device=device)


@pytest.mark.parametrize("name", ["asinh", "asin", "acos", "acosh", "exp", "sinh", "cosh",
                                  "sin", "cos", "sqrt", "log"])
def test_complex_functions_near_zero_on_cuts_and_far_out(name, device):
    # Tiny arguments (no cancellation), both sides of the branch cuts (a signed zero
    # picks the side), large ones (no overflow of z * z), exp(710 + 0j) without NaN.
    z = np.array([1e-10 + 0j, 1e-20 + 0j, 1e-10 + 1e-10j, complex(-1e-12, 3e-13),
                  complex(-0.0, 710.0), complex(0.0, -710.0), complex(-2.0, -0.0),
                  complex(-2.0, 0.0), complex(2.0, -0.0), 1e30 + 1e30j, 3 + 4j])
    if name in ("exp", "sinh", "cosh"):
        z = np.concatenate([z[:4], [710 + 0j, -710 + 0j, 5 + 0j]])
    if name in ("sin", "cos"):
        z = np.concatenate([z[:4], [710j, complex(0.0, -710.0), 3 + 4j]])
    function = getattr(np, {"asinh": "arcsinh", "asin": "arcsin", "acos": "arccos",
                            "acosh": "arccosh"}.get(name, name))
    check(name, function, z, device=device, exact=False, rtol=1e-13)


@pytest.mark.parametrize("dtype", [np.complex64, np.complex128, np.float32, np.int16])
def test_real_and_imag(device, rng, dtype):
    # The array API's real and imag: the parts' dtype, NumPy's values (copies here).
    if np.dtype(dtype).kind == "c":
        host = (rng.standard_normal(50) + 1j * rng.standard_normal(50)).astype(dtype)
    else:
        host = (rng.standard_normal(50) * 10).astype(dtype)
    if np.dtype(dtype).itemsize * (1 if np.dtype(dtype).kind != "c" else 0.5) == 8 \
            and not device.supports_float64:
        pytest.skip("no double precision")
    x = simt.asarray(host, device=device)
    for name in ("real", "imag"):
        got = getattr(simt, name)(x)
        want = getattr(np, name)(host)
        assert got.dtype == want.dtype, name
        np.testing.assert_array_equal(got.get(), want, err_msg=name)
