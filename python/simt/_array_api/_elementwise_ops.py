"""The element-wise operations: for each, NumPy's ufunc (whose type resolution simt takes
as its own, so result dtypes are NumPy's and the array API's) and the expression, in
simt's kernel language, that computes one element from operands already converted to the
loop's dtypes ({0}, {1}, {2}).

An expression may depend on the loop dtype's kind (b bool, i signed, u unsigned, f float,
c complex; "*" any other). Some call device functions (`dev_*`) given in HELPERS, which the
generated module defines before the kernel. `{T}` is the loop's output dtype (np.float32).
"""

import numpy as np

from . import _complex_ops

# name: (NumPy ufunc, {kind: expression}).
_ARITHMETIC = {
    "add": (np.add, {"*": "{0} + {1}"}),
    "subtract": (np.subtract, {"*": "{0} - {1}"}),
    "multiply": (np.multiply, {"*": "{0} * {1}"}),
    "divide": (np.divide, {"*": "{0} / {1}"}),
    "floor_divide": (np.floor_divide, {"f": "dev_floor_divide({0}, {1})", "*": "{0} // {1}"}),
    "remainder": (np.remainder, {"*": "{0} % {1}"}),
    "pow": (np.power, {"*": "{0} ** {1}"}),
    "negative": (np.negative, {"*": "-{0}"}),
    "positive": (np.positive, {"*": "{0}"}),
    "abs": (np.absolute, {"b": "{0}", "u": "{0}", "*": "abs({0})"}),
    "square": (np.square, {"*": "{0} * {0}"}),
    "reciprocal": (np.reciprocal, {"i": "dev_int_reciprocal({0})", "u": "dev_int_reciprocal({0})",
                                   "*": "{T}(1) / {0}"}),
    "sign": (np.sign, {"b": "{0}", "u": "{T}(1) if {0} > 0 else {T}(0)",
                       "c": "dev_complex_sign({0})",
                       "*": "{T}(1) if {0} > 0 else ({T}(-1) if {0} < 0 else "
                            "({T}(0) if {0} == 0 else {0}))"}),  # sign(-0.0) is +0.0; NaN stays
    "maximum": (np.maximum, {"b": "{0} or {1}", "*": "np.maximum({0}, {1})"}),
    "minimum": (np.minimum, {"b": "{0} and {1}", "*": "np.minimum({0}, {1})"}),
    "fmax": (np.fmax, {"f": "{1} if {0} != {0} else ({0} if {1} != {1} else np.maximum({0}, {1}))",
                       "b": "{0} or {1}", "*": "np.maximum({0}, {1})"}),
    "fmin": (np.fmin, {"f": "{1} if {0} != {0} else ({0} if {1} != {1} else np.minimum({0}, {1}))",
                       "b": "{0} and {1}", "*": "np.minimum({0}, {1})"}),
    "conj": (np.conjugate, {"c": "{T}(complex({0}.real, -{0}.imag))", "*": "{0}"}),
    # The array API's real and imag (copies: simt has no views that reinterpret a dtype).
    # np.absolute's type resolution is theirs: complex64 -> float32, real types kept.
    "real": (np.absolute, {"c": "{0}.real", "*": "{0}"}),
    "imag": (np.absolute, {"c": "{0}.imag", "*": "{T}(0)"}),
}

_COMPARISONS = {
    "equal": (np.equal, {"*": "{0} == {1}"}),
    "not_equal": (np.not_equal, {"*": "{0} != {1}"}),
    "less": (np.less, {"*": "{0} < {1}"}),
    "less_equal": (np.less_equal, {"*": "{0} <= {1}"}),
    "greater": (np.greater, {"*": "{0} > {1}"}),
    "greater_equal": (np.greater_equal, {"*": "{0} >= {1}"}),
}

_LOGICAL_AND_BITWISE = {
    "logical_and": (np.logical_and, {"c": "({0} != 0) and ({1} != 0)",
                                     "*": "bool({0}) and bool({1})"}),
    "logical_or": (np.logical_or, {"c": "({0} != 0) or ({1} != 0)",
                                   "*": "bool({0}) or bool({1})"}),
    "logical_xor": (np.logical_xor, {"c": "({0} != 0) != ({1} != 0)",
                                     "*": "bool({0}) != bool({1})"}),
    "logical_not": (np.logical_not, {"c": "{0} == 0", "*": "not {0}"}),
    "bitwise_and": (np.bitwise_and, {"b": "{0} and {1}", "*": "{0} & {1}"}),
    "bitwise_or": (np.bitwise_or, {"b": "{0} or {1}", "*": "{0} | {1}"}),
    "bitwise_xor": (np.bitwise_xor, {"b": "{0} != {1}", "*": "{0} ^ {1}"}),
    "bitwise_invert": (np.invert, {"b": "not {0}", "*": "~{0}"}),
    "bitwise_left_shift": (np.left_shift, {"*": "{0} << {1}"}),
    "bitwise_right_shift": (np.right_shift, {"*": "{0} >> {1}"}),
}

_INTEGER_IDENTITY = {"b": "{0}", "i": "{0}", "u": "{0}"}


def _float_function(np_name):
    return {"*": f"np.{np_name}({{0}})"}


_FUNCTIONS = {name: (getattr(np, np_name), _float_function(np_name)) for name, np_name in (
    ("sin", "sin"), ("cos", "cos"), ("tan", "tan"), ("asin", "arcsin"), ("acos", "arccos"),
    ("atan", "arctan"), ("sinh", "sinh"), ("cosh", "cosh"), ("tanh", "tanh"),
    ("asinh", "arcsinh"), ("acosh", "arccosh"), ("atanh", "arctanh"), ("exp", "exp"),
    ("exp2", "exp2"), ("expm1", "expm1"), ("log", "log"), ("log2", "log2"),
    ("log10", "log10"), ("log1p", "log1p"), ("sqrt", "sqrt"), ("cbrt", "cbrt"))}
_FUNCTIONS.update({
    "floor": (np.floor, dict(_INTEGER_IDENTITY, **{"*": "np.floor({0})"})),
    "ceil": (np.ceil, dict(_INTEGER_IDENTITY, **{"*": "np.ceil({0})"})),
    "trunc": (np.trunc, dict(_INTEGER_IDENTITY, **{"*": "np.trunc({0})"})),
    # round keeps an integer dtype (the array API's and np.round's rule: _elementwise's
    # Round); rint is NumPy's ufunc, whose integer loops give floats
    "round": (np.rint, dict(_INTEGER_IDENTITY, **{"*": "np.rint({0})"})),
    "rint": (np.rint, dict(_INTEGER_IDENTITY, **{"*": "np.rint({0})"})),
    "isnan": (np.isnan, {"f": "np.isnan({0})", "c": "np.isnan({0}.real) or np.isnan({0}.imag)",
                         "*": "False"}),
    "isinf": (np.isinf, {"f": "np.isinf({0})", "c": "np.isinf({0}.real) or np.isinf({0}.imag)",
                         "*": "False"}),
    "isfinite": (np.isfinite, {"f": "np.isfinite({0})",
                               "c": "np.isfinite({0}.real) and np.isfinite({0}.imag)",
                               "*": "True"}),
    "signbit": (np.signbit, {"f": "math.copysign(1.0, {0}) < 0", "u": "False",
                             "*": "{0} < 0"}),
    "atan2": (np.arctan2, {"*": "np.arctan2({0}, {1})"}),
    "hypot": (np.hypot, {"*": "np.hypot({0}, {1})"}),
    "copysign": (np.copysign, {"*": "np.copysign({0}, {1})"}),
    # float16 computes in float32, whose step is finer: its own device function.
    "nextafter": (np.nextafter, {"float16": "{T}(dev_nextafter_half(np.float32({0}), "
                                            "np.float32({1})))",
                                 "*": "np.nextafter({0}, {1})"}),
    "logaddexp": (np.logaddexp, {"*": "dev_logaddexp({0}, {1})"}),
    "deg2rad": (np.deg2rad, {"*": "{0} * {T}(0.017453292519943295)"}),
    "rad2deg": (np.rad2deg, {"*": "{0} * {T}(57.29577951308232)"}),
})

OPERATIONS = {**_ARITHMETIC, **_COMPARISONS, **_LOGICAL_AND_BITWISE, **_FUNCTIONS}
for _name, _text in _complex_ops.EXPRESSIONS.items():
    OPERATIONS[_name][1]["c"] = _text

# The operations simt computes on complex numbers; the others raise TypeError for them
# (NumPy's complex ordering, and the real-only functions: floor, atan2, hypot, ...).
COMPLEX = {"add", "subtract", "multiply", "divide", "negative", "positive", "abs", "square",
           "reciprocal", "sign", "conj", "real", "imag", "equal", "not_equal", "logical_and", "logical_or",
           "logical_xor", "logical_not", "isnan", "isinf", "isfinite",
           *_complex_ops.EXPRESSIONS}

# Other names of the same operations: NumPy's (which the array API renamed) and aliases.
ALIASES = {
    "true_divide": "divide", "mod": "remainder", "power": "pow", "absolute": "abs",
    "conjugate": "conj", "arcsin": "asin", "arccos": "acos", "arctan": "atan",
    "arcsinh": "asinh", "arccosh": "acosh", "arctanh": "atanh", "arctan2": "atan2",
    "invert": "bitwise_invert", "bitwise_not": "bitwise_invert", "left_shift":
    "bitwise_left_shift", "right_shift": "bitwise_right_shift",
    "fabs": "abs", "radians": "deg2rad", "degrees": "rad2deg",
}

# Device functions the expressions call: written once, defined in the generated module
# of each kernel that uses them.
HELPERS = {
    "dev_floor_divide": '''
def dev_floor_divide(a, b):
    # NumPy's floor division (exact: from the remainder), except where an infinity meets a
    # finite number: there the array API's floor(a / b), +-inf for inf // finite (NumPy:
    # NaN) and +-0 for finite // inf (NumPy: -1.0 when the signs differ, as Python's //)
    if math.isinf(a) and math.isfinite(b):
        return a / b
    if math.isfinite(a) and math.isinf(b):
        return np.floor(a / b)
    return a // b
''',
    "dev_logaddexp": '''
def dev_logaddexp(x, y):
    if x == y:  # also both infinite: log(2 e**x), never inf - inf
        return x + 0.6931471805599453
    big = np.maximum(x, y)
    return big + np.log1p(np.exp(np.minimum(x, y) - big))
''',
    "dev_int_reciprocal": '''
def dev_int_reciprocal(x):
    if x > 0:
        return 1 // x
    if x == 0:
        return x
    return -(1 // -x)  # C's division, as NumPy's: truncated
''',
    "dev_complex_sign": '''
def dev_complex_sign(z):
    r = abs(z)
    if r == 0:
        return z - z  # +0 in both parts, whatever the zero's signs
    # Each part divided by the real modulus: a complex division would scale a subnormal
    # modulus's reciprocal to inf.
    return complex(z.real / r, z.imag / r)
''',
    "dev_nextafter_half": '''
def dev_nextafter_half(x, y):
    # the float16 next to x toward y, in float32 arithmetic (exact for these values)
    if x != x or y != y:
        return x + y
    if x == y:
        return y
    if x == 0:
        return math.copysign(np.float32(5.960464477539063e-08), y)  # 2**-24
    if np.isinf(x):
        return math.copysign(np.float32(65504.0), x)
    m, e = math.frexp(x)
    toward_zero = (x > 0) == (y < x)
    bits = e - 11
    if toward_zero and abs(m) == 0.5:
        bits = e - 12  # below a power of two the step halves
    step = math.ldexp(np.float32(1.0), max(bits, -24))
    if toward_zero:
        return math.copysign(abs(x) - step, x)  # -2**-24 steps to -0.0
    return math.copysign(abs(x) + step, x)
''',
    "dev_compare_iu": '''
def dev_compare_iu(a, b):
    if a < 0:
        return -1
    u = np.uint64(a)
    if u < b:
        return -1
    if u > b:
        return 1
    return 0
''',
    **_complex_ops.HELPERS,
}


def helpers_for(text):
    """The device functions an expression calls, callees first."""
    names = [name for name in HELPERS if name + "(" in text]
    for name in list(names):
        names[:0] = [callee for callee in _complex_ops.CALLS.get(name, []) if callee not in names]
    return [HELPERS[name] for name in names]
