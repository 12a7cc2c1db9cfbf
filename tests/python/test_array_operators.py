"""simt.Array's operators (+ - * / // % ** & | ^ << >>, their reflected and in-place
forms, comparisons, unary - + abs ~) and conversions (bool, int, float, complex, index)
against NumPy's on fresh random inputs, on every device.

Result dtypes are checked over every pair of dtypes and every Python scalar kind on empty
arrays (type resolution only: an empty result launches no kernel, so compiles nothing);
values on a few dtypes, bit for bit.
"""

import operator
import warnings

import numpy as np
import pytest

import simt

from array_helpers import assert_exact, standard_floor_divide

DTYPES = ["bool", "int8", "uint8", "int16", "int32", "int64", "uint64", "float16",
          "float32", "float64", "complex64", "complex128"]

BINARY = {"+": operator.add, "-": operator.sub, "*": operator.mul, "/": operator.truediv,
          "//": operator.floordiv, "%": operator.mod, "**": operator.pow,
          "&": operator.and_, "|": operator.or_, "^": operator.xor, "<<": operator.lshift,
          ">>": operator.rshift}
IN_PLACE = {"+": operator.iadd, "-": operator.isub, "*": operator.imul,
            "/": operator.itruediv, "//": operator.ifloordiv, "%": operator.imod,
            "**": operator.ipow, "&": operator.iand, "|": operator.ior, "^": operator.ixor,
            "<<": operator.ilshift, ">>": operator.irshift}
COMPARE = {"<": operator.lt, "<=": operator.le, ">": operator.gt, ">=": operator.ge,
           "==": operator.eq, "!=": operator.ne}


def dev(x, device):
    return simt.to_device(np.asarray(x), device=device)


def ref(function, *args):
    """NumPy's result of the operator (// as simt's: the standard's at infinities; //= in
    place as NumPy's in-place operators are)."""
    with np.errstate(all="ignore"), warnings.catch_warnings():
        warnings.simplefilter("ignore")
        if function is operator.floordiv:
            return standard_floor_divide(*args)
        if function is operator.ifloordiv:
            target, other = args
            target[...] = standard_floor_divide(target, other)
            return target
        return function(*args)


def assert_close(got, expected, what="", rtol=1e-14):
    """As assert_exact, but within rtol (for ** of floats, not exactly rounded)."""
    assert isinstance(got, simt.Array), f"{what}: got {type(got).__name__}, not simt.Array"
    host = got.get()
    assert host.dtype == expected.dtype, f"{what}: dtype {host.dtype}, NumPy's {expected.dtype}"
    np.testing.assert_allclose(host, expected, rtol=rtol, atol=0, equal_nan=True,
                               err_msg=what)


def random_values(rng, dtype, n, low=-100, high=100):
    dtype = np.dtype(dtype)
    if dtype.kind == "b":
        return rng.integers(0, 2, n).astype(bool)
    if dtype.kind in "iu":
        info = np.iinfo(dtype)
        return rng.integers(max(info.min, low), min(info.max, high), n, endpoint=True,
                            dtype=dtype)
    values = rng.uniform(low, high, n)
    if dtype.kind == "c":
        values = values + 1j * rng.uniform(low, high, n)
    values = values.astype(dtype)
    if dtype.kind == "f" and n >= 8:
        values[:6] = [np.nan, np.inf, -np.inf, 0.0, -0.0, 1.0]
        rng.shuffle(values)
    return values


def _outcome(function, *args):
    """The dtype of function(*args), or the exception type it raises."""
    try:
        with np.errstate(all="ignore"), warnings.catch_warnings():
            warnings.simplefilter("ignore")
            result = function(*args)
    except (TypeError, ValueError, OverflowError) as e:
        return type(e)
    return result.dtype if isinstance(result, simt.Array) else np.asarray(result).dtype


def _skipped(symbol, *dtypes):
    """Complex operands of ** (not implemented: test_array_elementwise's xfail) and of
    ordering comparisons (the array API leaves them undefined; simt rejects them)."""
    complex_operand = any(np.dtype(d).kind == "c" for d in dtypes)
    return complex_operand and symbol in ("**", "<", "<=", ">", ">=")


def _kind(value):
    return value.dtype if hasattr(value, "dtype") else np.asarray(value).dtype


def _normalize(outcome):
    # NumPy's UFuncTypeError and its subclasses are TypeErrors
    if isinstance(outcome, type) and issubclass(outcome, TypeError):
        return TypeError
    return outcome


# ------------------------------------------------- result dtypes (no kernel launched)

@pytest.mark.parametrize("left", DTYPES)
def test_operator_result_dtypes_match_numpy_for_every_dtype_pair(left, device):
    a = dev(np.zeros(0, left), device)
    na = np.zeros(0, left)
    for right in DTYPES:
        b = dev(np.zeros(0, right), device)
        nb = np.zeros(0, right)
        for symbol, op in {**BINARY, **COMPARE}.items():
            if _skipped(symbol, left, right):
                continue
            expected = _normalize(_outcome(op, na, nb))
            got = _normalize(_outcome(op, a, b))
            assert got == expected, f"{left} {symbol} {right}: simt {got}, NumPy {expected}"


@pytest.mark.parametrize("dtype", DTYPES)
def test_python_scalars_are_weak(dtype, device):
    # NEP 50: the array's dtype wins within a kind; the scalar's kind can lift it.
    a = dev(np.zeros(0, dtype), device)
    na = np.zeros(0, dtype)
    for scalar in [True, 1, -1, 2.5, 1j, 127, 255, 300, -129, 2 ** 63, 2 ** 64]:
        for symbol, op in {**BINARY, **COMPARE}.items():
            if _skipped(symbol, dtype, _kind(scalar)):
                continue
            if dtype == "bool" and symbol in COMPARE and scalar in (2 ** 63, 2 ** 64):
                continue  # NumPy raises OverflowError (int64 loop); simt compares exactly
            for args, nargs in [((a, scalar), (na, scalar)), ((scalar, a), (scalar, na))]:
                expected = _normalize(_outcome(op, *nargs))
                got = _normalize(_outcome(op, *args))
                assert got == expected, f"{args[0]!r} {symbol} {args[1]!r} ({dtype}): " \
                                        f"simt {got}, NumPy {expected}"


@pytest.mark.parametrize("dtype", ["int8", "uint8", "float16", "float32", "complex64"])
def test_numpy_scalars_are_strong(dtype, device):
    a = dev(np.zeros(0, dtype), device)
    na = np.zeros(0, dtype)
    for scalar in [np.bool_(True), np.int8(1), np.uint8(1), np.int64(1), np.uint64(1),
                   np.float16(1), np.float32(1), np.float64(1), np.complex64(1),
                   np.complex128(1)]:
        for symbol, op in {"+": operator.add, "*": operator.mul,
                           "/": operator.truediv}.items():
            expected = _normalize(_outcome(op, na, scalar))
            assert _normalize(_outcome(op, a, scalar)) == expected, (dtype, symbol, scalar)
            expected = _normalize(_outcome(op, scalar, na))
            assert _normalize(_outcome(op, scalar, a)) == expected, (scalar, symbol, dtype)


def test_zero_dimensional_results_are_arrays(device):
    a = dev(np.array(2.0), device)
    b = dev(np.array(3, np.int8), device)
    for result in [a + b, a * 2, 2 - b, a < b, -a, ~b, abs(b)]:
        assert isinstance(result, simt.Array) and result.shape == ()
    assert float(a + b) == 5.0


# --------------------------------------------------------------------------- values

@pytest.mark.parametrize("dtype", ["int64", "float64"])
def test_binary_operators(dtype, device, rng):
    x = random_values(rng, dtype, 100)
    y = random_values(rng, dtype, 100)
    if dtype == "int64":
        y[y == 0] = 3
    sx, sy = dev(x, device), dev(y, device)
    for symbol, op in BINARY.items():
        if dtype == "float64" and symbol in "&|^<<>>":
            continue
        a, b = x, y
        if symbol == "**":
            b = np.abs(y) % 5 if dtype == "int64" else y / 10
        if symbol in ("<<", ">>"):
            b = np.abs(y) % 64
        compare = assert_close if symbol == "**" and dtype == "float64" else assert_exact
        compare(op(sx, dev(b, device) if b is not y else sy), ref(op, a, b),
                f"{dtype} {symbol}")


@pytest.mark.parametrize("dtype", ["int64", "float64"])
def test_reflected_operators_with_python_scalars(dtype, device, rng):
    x = random_values(rng, dtype, 100)
    if dtype == "int64":
        x[x == 0] = 7
    sx = dev(x, device)
    # every operator of floats; of integers, those whose integer code differs (each
    # scalar side compiles a kernel)
    for symbol, op in BINARY.items():
        if symbol in ("&", "|", "^", "<<", ">>", "+", "*") if dtype == "float64" else \
                symbol in ("|", "^", "+", "*", "/", ">>"):
            continue
        scalar = 3 if dtype == "int64" else 2.5
        if symbol in ("<<", ">>"):
            x2 = np.abs(x) % 60
            assert_exact(op(scalar, dev(x2, device)), ref(op, scalar, x2), f"3 {symbol} x")
            assert_exact(op(dev(x2, device), scalar), ref(op, x2, scalar), f"x {symbol} 3")
            continue
        if symbol == "**" and dtype == "int64":
            x2 = np.abs(x) % 20
            assert_exact(op(scalar, dev(x2, device)), ref(op, scalar, x2), "3 ** x")
            assert_exact(op(sx, 2), ref(op, x, 2), "x ** 2")
            continue
        compare = assert_close if symbol == "**" else assert_exact
        compare(op(scalar, sx), ref(op, scalar, x), f"{scalar} {symbol} {dtype} x")
        compare(op(sx, scalar), ref(op, x, scalar), f"{dtype} x {symbol} {scalar}")


def test_numpy_scalar_on_the_left_gives_a_simt_array(device, rng):
    x = random_values(rng, "int8", 50)
    f = random_values(rng, "float32", 50)
    sx, sf = dev(x, device), dev(f, device)
    assert_exact(np.float32(2) * sx, np.float32(2) * x, "np.float32(2) * int8")
    assert_exact(np.float64(1.5) + sf, np.float64(1.5) + f, "np.float64(1.5) + float32")
    assert_exact(np.int16(3) - sx, np.int16(3) - x, "np.int16(3) - int8")


def test_numpy_scalar_on_the_left_of_a_comparison(device, rng):
    # NumPy hands the scalar to __array_ufunc__ as a 0-d ndarray.
    f = random_values(rng, "float32", 50)
    sf = dev(f, device)
    assert_exact(np.float32(1) < sf, np.float32(1) < f, "np.float32(1) < float32")
    assert_exact(np.int8(1) == sf, np.int8(1) == f, "np.int8(1) == float32")
    assert_exact(np.add(np.array(2.5), sf), np.add(np.array(2.5), f), "0-d + float32")


def test_numpy_array_operand_raises_type_error(device):
    x = dev(np.arange(3.0), device)
    n = np.arange(3.0)
    for op in [operator.add, operator.mul, operator.lt, operator.eq, operator.pow]:
        with pytest.raises(TypeError, match="device"):
            op(x, n)
        with pytest.raises(TypeError, match="device"):
            op(n, x)
    with pytest.raises(TypeError, match="device"):
        x += n
    y = n.copy()
    with pytest.raises(TypeError, match="device"):
        y += x


def test_unsupported_operand_types(device):
    x = dev(np.arange(3.0), device)
    for other in ["a", None, [1.0, 2.0, 3.0], object()]:
        with pytest.raises(TypeError):
            x + other
        with pytest.raises(TypeError):
            other * x
        with pytest.raises(TypeError):
            x < other


def test_two_devices(device):
    others = [d for d in simt.devices() if d != device]
    if not others:
        pytest.skip("needs two devices")
    x = dev(np.arange(3.0), device)
    y = dev(np.arange(3.0), others[0])
    for op in [operator.add, operator.lt, operator.iadd]:
        with pytest.raises(ValueError) as info:
            op(x, y)
        assert device.id in str(info.value) and others[0].id in str(info.value)


@pytest.mark.parametrize("dtype", ["float64", "int64", "uint64"])
def test_comparison_operators(dtype, device, rng):
    x = random_values(rng, dtype, 100, 0 if dtype == "uint64" else -100)
    y = random_values(rng, dtype, 100, 0 if dtype == "uint64" else -100)
    y[::4] = x[::4]
    sx, sy = dev(x, device), dev(y, device)
    for symbol, op in COMPARE.items():
        assert_exact(op(sx, sy), op(x, y), f"{dtype} {symbol}")
    scalar = 5 if dtype != "float64" else 0.5
    for symbol, op in [("<", operator.lt), ("==", operator.eq)]:
        assert_exact(op(sx, scalar), op(x, scalar), f"{dtype} x {symbol} {scalar}")
        assert_exact(op(scalar, sx), op(scalar, x), f"{scalar} {symbol} {dtype} x")


def test_comparison_with_out_of_range_python_int(device, rng):
    x = random_values(rng, "int8", 60, -128, 127)
    sx = dev(x, device)
    for symbol, op in COMPARE.items():
        assert_exact(op(sx, 1000), op(x, 1000), f"int8 {symbol} 1000")
        assert_exact(op(-1000, sx), op(-1000, x), f"-1000 {symbol} int8")
    u = random_values(rng, "uint8", 60, 0, 255)
    assert_exact(dev(u, device) < -1, u < -1, "uint8 < -1")
    assert_exact(dev(u, device) != -1, u != -1, "uint8 != -1")


def test_unary_operators(device, rng):
    f = random_values(rng, "float64", 100)
    i = random_values(rng, "int64", 100, -2 ** 63, 2 ** 63 - 1)
    i[:2] = [-2 ** 63, 2 ** 63 - 1]
    b = random_values(rng, "bool", 100)
    sf, si, sb = dev(f, device), dev(i, device), dev(b, device)
    assert_exact(-sf, -f, "-float64")
    assert_exact(+sf, +f, "+float64")
    assert_exact(abs(sf), abs(f), "abs(float64)")
    assert_exact(-si, -i, "-int64")
    assert_exact(abs(si), abs(i), "abs(int64)")
    assert_exact(~si, ~i, "~int64")
    assert_exact(~sb, ~b, "~bool")
    u = random_values(rng, "uint8", 50, 0, 255)
    assert_exact(~dev(u, device), ~u, "~uint8")
    assert_exact(-dev(u, device), -u, "-uint8")  # wraps, as NumPy's
    with pytest.raises(TypeError):
        ~sf
    with pytest.raises(TypeError):
        -sb


# ------------------------------------------------------------------------- in place

def test_in_place_returns_the_same_array(device, rng):
    x = random_values(rng, "float64", 40)
    s = dev(x, device)
    t = s
    t += 1.5
    assert t is s
    t *= dev(x, device)
    assert t is s
    assert_exact(s, (x + 1.5) * x, "(x + 1.5) * x in place")


@pytest.mark.parametrize("dtype", ["int64", "float64"])
def test_in_place_operators(dtype, device, rng):
    x = random_values(rng, dtype, 80)
    y = random_values(rng, dtype, 80)
    if dtype == "int64":
        y[y == 0] = 3
    for symbol, op in IN_PLACE.items():
        if dtype == "float64" and symbol in "&|^<<>>":
            continue
        b = y
        if symbol == "**":
            b = np.abs(y) % 5 if dtype == "int64" else y / 10
        if symbol in ("<<", ">>"):
            b = np.abs(y) % 64
        if dtype == "int64" and symbol == "/":
            with pytest.raises(TypeError):  # float64 into int64: not 'same_kind'
                op(dev(x, device), dev(b, device))
            continue
        s = dev(x, device)
        expected = x.copy()
        ref(op, expected, b)
        result = op(s, dev(b, device))
        assert result is s
        compare = assert_close if symbol == "**" and dtype == "float64" else assert_exact
        compare(s, expected, f"{dtype} {symbol}=")


def test_in_place_casts_the_result(device, rng):
    cases = [("float32", "float64"), ("int16", "int64"), ("int32", "int8"),
             ("uint8", "bool"), ("complex64", "float64"), ("float16", "float32")]
    for target, source in cases:
        x = random_values(rng, target, 50, 0, 100)
        y = random_values(rng, source, 50, 0, 100)
        s = dev(x, device)
        s += dev(y, device)
        expected = x.copy()
        ref(operator.iadd, expected, y)
        assert_exact(s, expected, f"{target} += {source}")
    # Python scalars: weak, so the array keeps its dtype
    x = random_values(rng, "float32", 50)
    s = dev(x, device)
    s *= 3.1
    expected = x.copy()
    ref(operator.imul, expected, 3.1)
    assert_exact(s, expected, "float32 *= 3.1")


def test_in_place_rejects_unsafe_casts_and_overflow(device):
    def make(dtype):
        return dev(np.arange(4).astype(dtype), device)

    for target, op, value in [("int32", operator.iadd, 1.5), ("int32", operator.itruediv, 2),
                              ("bool", operator.iadd, 1), ("float32", operator.iadd, 1j)]:
        s = make(target)
        with pytest.raises(TypeError):
            op(s, value)
        assert_exact(s, np.arange(4).astype(target), f"{target} untouched")
    with pytest.raises(TypeError):
        s = make("int16")
        s += make("float16")
    with pytest.raises(OverflowError):
        s = make("int8")
        s += 1000
    with pytest.raises(OverflowError):
        s = make("uint8")
        s -= 256


def test_in_place_with_overlapping_views(device, rng):
    x = random_values(rng, "float64", 50)
    m = rng.standard_normal((6, 7))
    cases = [
        lambda a: a[1:].__iadd__(a[:-1]),
        lambda a: a[:-1].__iadd__(a[1:]),
        lambda a: a[::-1].__imul__(a),
        lambda a: a[::2].__isub__(a[1::2]),
        lambda a: a[5:25].__iadd__(a[::-1][10:30]),
    ]
    for k, case in enumerate(cases):
        s = dev(x, device)
        case(s)
        expected = x.copy()
        ref(case, expected)
        assert_exact(s, expected, f"overlapping case {k}")
    s = dev(m, device)
    s[1:] += s[:-1]
    e = m.copy()
    e[1:] += e[:-1]
    assert_exact(s, e, "m[1:] += m[:-1]")


def test_in_place_on_a_strided_subscript(device, rng):
    # a[key] += b is a[key] = a[key].__iadd__(b): the assignment back into a strided view
    x = rng.standard_normal(20)
    m = rng.standard_normal((6, 7))
    s = dev(x, device)
    s[::2] += 1.0
    e = x.copy()
    e[::2] += 1.0
    assert_exact(s, e, "x[::2] += 1")
    s = dev(m, device)
    s[:, 1] *= 2.0
    e = m.copy()
    e[:, 1] *= 2.0
    assert_exact(s, e, "m[:, 1] *= 2")
    s = dev(m, device)
    s[:, ::-1] -= s
    e = m.copy()
    e[:, ::-1] -= e
    assert_exact(s, e, "m[:, ::-1] -= m")


def test_in_place_on_strided_and_broadcast(device, rng):
    m = rng.standard_normal((4, 6))
    row = rng.standard_normal(6)
    s = dev(m, device)
    s += dev(row, device)  # broadcast the right operand
    assert_exact(s, m + row, "m += row")
    s = dev(m, device)
    view = s[::2, 1::2]
    view *= 2.0
    e = m.copy()
    e[::2, 1::2] *= 2.0
    assert_exact(s, e, "strided view *= 2")


def test_in_place_result_too_big_for_the_target(device):
    row = dev(np.zeros(6), device)
    m = dev(np.zeros((4, 6)), device)
    with pytest.raises(ValueError):
        row += m
    with pytest.raises(ValueError):
        simt.add(m, row, out=row)


# ---------------------------------------------------------------------- conversions

def test_python_conversions(device):
    assert bool(dev(np.array([1.0]), device)) is True
    assert bool(dev(np.array(0), device)) is False
    assert bool(dev(np.array(np.nan), device)) is True
    assert bool(dev(np.array([[0j]]), device)) is False
    i = int(dev(np.array(-2.7), device))
    assert i == -2 and type(i) is int
    assert int(dev(np.array([2 ** 64 - 1], np.uint64), device)) == 2 ** 64 - 1
    assert int(dev(np.array(-2 ** 63, np.int64), device)) == -2 ** 63
    f = float(dev(np.array([[3]], np.int8), device))
    assert f == 3.0 and type(f) is float
    assert float(dev(np.array(np.float16(0.1)), device)) == float(np.float16(0.1))
    assert np.signbit(float(dev(np.array(-0.0), device)))
    assert float(dev(np.array(np.inf, np.float32), device)) == float("inf")
    c = complex(dev(np.array(1.5 - 2j, np.complex64), device))
    assert c == 1.5 - 2j and type(c) is complex
    assert complex(dev(np.array(2.0), device)) == 2 + 0j
    with pytest.raises(TypeError):
        float(dev(np.array(1 + 2j), device))  # as Python's float(1 + 2j)


def test_index_conversion(device):
    n = dev(np.array(2, np.int32), device)
    assert operator.index(n) == 2
    assert [10, 20, 30][n] == 30
    assert list(range(10))[dev(np.array(1), device):dev(np.array(4, np.uint8), device)] == \
        [1, 2, 3]
    for bad in [np.array(2.0), np.array(True), np.array([2])]:
        with pytest.raises(TypeError):
            operator.index(dev(bad, device))


def test_conversions_of_several_or_no_elements(device):
    many = dev(np.arange(3.0), device)
    with pytest.raises(ValueError):
        bool(many)  # ambiguous, as NumPy says
    for convert in [int, float, complex]:
        with pytest.raises(TypeError):
            convert(many)
    empty = dev(np.zeros(0), device)
    for convert in [int, float, complex]:
        with pytest.raises(TypeError):
            convert(empty)
    with pytest.raises((TypeError, ValueError)):  # NumPy: ValueError (ambiguous)
        bool(empty)


def test_arrays_are_not_hashable(device):
    with pytest.raises(TypeError):
        hash(dev(np.arange(3), device))


def test_array_namespace(device):
    x = dev(np.arange(3.0), device)
    assert x.__array_namespace__() is simt
    assert x.__array_namespace__(api_version="2024.12") is simt
    assert x.__array_namespace__(api_version=None) is simt
    assert simt.__array_api_version__ == "2024.12"
    with pytest.raises(ValueError):
        x.__array_namespace__(api_version="2019.01")


def test_integers_to_negative_integer_powers_are_numpys_error(device, rng):
    base = rng.integers(1, 5, 10)
    x = simt.asarray(base, device=device)
    exponents = rng.integers(0, 3, 10)
    exponents[rng.integers(0, 10)] = -1
    for exponent in (-1, np.int8(-2), simt.asarray(exponents, device=device)):
        with pytest.raises(ValueError, match="Integers to negative integer powers"):
            np.power(base, exponent.get() if isinstance(exponent, simt.Array) else exponent)
        with pytest.raises(ValueError, match="Integers to negative integer powers"):
            x ** exponent
        with pytest.raises(ValueError, match="Integers to negative integer powers"):
            simt.pow(x, exponent)
    with pytest.raises(ValueError, match="Integers to negative integer powers"):
        2 ** simt.asarray(exponents, device=device)
    # Empty operands compute nothing, hence no error; uint64 ** int8 computes in float64.
    assert_exact(simt.asarray(base[:0], device=device) ** -1, base[:0] ** -1)
    unsigned = base.astype(np.uint64)
    np.testing.assert_allclose((simt.asarray(unsigned, device=device) ** np.int8(-2)).get(),
                               unsigned ** np.int8(-2))
    # Non-negative integer exponents, unsigned ones and float results are computed.
    assert_exact(x ** simt.asarray(np.abs(exponents), device=device), base ** np.abs(exponents))
    assert_exact(x ** np.uint8(3), base ** np.uint8(3))
    np.testing.assert_allclose((x ** -1.0).get(), base ** -1.0)
