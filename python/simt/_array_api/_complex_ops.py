"""Element-wise functions of complex numbers: device functions in simt's kernel language,
written with real math on the parts (the formulas of C99's Annex G for finite values;
branch cuts as NumPy's, on the real axis for sqrt, log and the inverse functions).

Infinite and NaN parts take the special values of C99's Annex G, which the array API
standard restates (and NumPy's libm gives): each function tests for them first, in a
branch of its own, because the finite formulas would make NaN of inf * 0 or inf - inf
there. The branches are written for the upper half-plane's cases and extended to the
others by the functions' symmetries (conj(f(z)) == f(conj(z)), and oddness for sinh,
tanh, asinh, atanh), which copysign carries.

EXPRESSIONS maps an operation of _elementwise_ops to its expression for complex loop
dtypes; HELPERS holds the device functions those expressions call. A device function is
specialized per argument type, so one text serves complex64 and complex128 (weak float
literals keep complex64's parts float32).
"""

# log2(e) and log10(e): log2 and log10 scale log's parts by them, as NumPy's do
_LOG2E = "1.4426950408889634"
_LOG10E = "0.4342944819032518"

HELPERS = {
    "dev_cshift": '''
def dev_cshift(z, a):
    # z + a for a real a, keeping the sign of z's imaginary zero (on a branch cut it
    # decides the side; z + a as complex numbers would make -0 into +0)
    return complex(z.real + a, z.imag)
''',
    "dev_cscale": '''
def dev_cscale(z, a):
    # z * a for a real a, part by part: as complex numbers, z * a would compute
    # inf * 0 (NaN) from a's zero imaginary part
    return complex(z.real * a, z.imag * a)
''',
    "dev_cexp": '''
def dev_cexp(z):
    if z.imag == 0:  # exp(710+0j) is inf+0j, not inf * sin(0) = nan
        return complex(np.exp(z.real), z.imag)
    if math.isinf(z.real) and not math.isfinite(z.imag):
        # +inf: an infinity of no direction (inf + nan j); -inf: zero whatever the angle
        if z.real > 0:
            return complex(z.real, math.nan)
        return complex(0.0, 0.0)
    e = np.exp(z.real)
    return complex(e * np.cos(z.imag), e * np.sin(z.imag))
''',
    "dev_clog": '''
def dev_clog(z):
    return complex(np.log(np.hypot(z.real, z.imag)), np.arctan2(z.imag, z.real))
''',
    "dev_csqrt": '''
def dev_csqrt(z):
    x = z.real
    y = z.imag
    if x == 0 and y == 0:
        return complex(abs(x), y)
    if math.isinf(y):  # Annex G: +inf + yj whatever x, NaN included
        return complex(math.inf, y)
    if math.isinf(x) and not math.isnan(x):
        # +inf: inf + 0j (y's sign); -inf: 0 + inf j; with y NaN, the zero part is NaN
        if x > 0:
            return complex(x, math.copysign(0.0, y) if y == y else y)
        return complex(abs(y - y), math.copysign(math.inf, y))
    r = np.hypot(x, y)
    if x >= 0:
        t = np.sqrt((r + x) * 0.5)
        return complex(t, y / (t * 2))
    t = np.sqrt((r - x) * 0.5)
    return complex(abs(y) / (t * 2), math.copysign(t, y))
''',
    "dev_cexpm1": '''
def dev_cexpm1(z):
    if z.imag == 0:  # expm1(inf + 0j) is inf + 0j, not inf * sin(0) = nan
        return complex(np.expm1(z.real), z.imag)
    if math.isinf(z.real) and not math.isfinite(z.imag):
        # as exp's: +inf of no direction, or exp's zero less one
        if z.real > 0:
            return complex(z.real, math.nan)
        return complex(-1.0, 0.0)
    # e**x cos y - 1 = expm1(x) cos y - 2 sin(y / 2)**2: no cancellation near 0
    h = np.sin(z.imag * 0.5)
    return complex(np.expm1(z.real) * np.cos(z.imag) - h * h * 2,
                   np.exp(z.real) * np.sin(z.imag))
''',
    "dev_clog1p": '''
def dev_clog1p(z):
    x = z.real
    y = z.imag
    if math.isinf(x) or math.isinf(y):
        if math.isnan(x) or math.isnan(y):  # infinitely far, in no known direction
            return complex(math.inf, math.nan)
    if abs(x) > 1e150 or abs(y) > 1e150:  # x * (x + 2) would overflow; 1 + z is exact enough
        return dev_clog(dev_cshift(z, 1))
    return complex(np.log1p(x * (x + 2) + y * y) * 0.5, np.arctan2(y, x + 1))
''',
    "dev_csin": '''
def dev_csin(z):
    # sin z = -i sinh(iz) (C99's definition), which brings sinh's special values
    w = dev_csinh(complex(-z.imag, z.real))
    return complex(w.imag, -w.real)
''',
    "dev_ccos": '''
def dev_ccos(z):
    # cos z = cosh(iz) (C99's definition), which brings cosh's special values
    return dev_ccosh(complex(-z.imag, z.real))
''',
    "dev_csinh": '''
def dev_csinh(z):
    if z.imag == 0:
        return complex(np.sinh(z.real), z.imag)
    if not math.isfinite(z.imag) and (z.real == 0 or math.isinf(z.real)):
        # sin and cos of an infinite or NaN angle are NaN; the real part keeps x's zero
        # or infinity (Annex G: +-0 + nan j, +-inf + nan j)
        return complex(z.real, math.nan)
    return complex(np.sinh(z.real) * np.cos(z.imag), np.cosh(z.real) * np.sin(z.imag))
''',
    "dev_ccosh": '''
def dev_ccosh(z):
    if z.imag == 0:
        return complex(np.cosh(z.real), z.imag * math.copysign(1.0, z.real))
    if not math.isfinite(z.imag):
        # the angle is infinite or NaN: cosh(+-0) = 1 times NaN, with sinh(0) = 0 as the
        # imaginary part; cosh(+-inf) = +inf of no direction
        if z.real == 0:
            return complex(math.nan, 0.0)
        if math.isinf(z.real):
            return complex(math.inf, math.nan)
    return complex(np.cosh(z.real) * np.cos(z.imag), np.sinh(z.real) * np.sin(z.imag))
''',
    "dev_ctanh": '''
def dev_ctanh(z):
    x = z.real
    y = z.imag
    if y == 0:  # tanh(nan + 0j) is nan + 0j, not nan + nan j
        return complex(np.tanh(x), y)
    if not math.isfinite(y):
        # an infinite or NaN angle: tanh(+-inf) is still +-1 (the angle's effect vanishes
        # as e**-2|x|), tanh(+-0 + yj) is +-0 + nan j, anything else nan + nan j
        if math.isinf(x):
            return complex(math.copysign(1.0, x), math.copysign(0.0, y))
        if x == 0:
            return complex(x, math.nan)
        return complex(math.nan, math.nan)
    if abs(x) > 22:  # cosh(2x) overflows; tanh is +-1 to the last bit there
        return complex(math.copysign(1.0, x), np.sin(y * 2) * np.exp(-abs(x) * 2) * 2)
    # Kahan's form: no cancellation where cosh(2x) + cos(2y) would be near 0
    t = np.tan(y)
    b = t * t + 1
    s = np.sinh(x)
    d = b * s * s + 1
    return complex(b * np.sqrt(s * s + 1) * s / d, t / d)
''',
    "dev_ctan": '''
def dev_ctan(z):
    # tan z = -i tanh(i z)
    w = dev_ctanh(complex(-z.imag, z.real))
    return complex(w.imag, -w.real)
''',
    "dev_casinh": '''
def dev_casinh(z):
    # log(z + sqrt(z*z + 1)), taken where z's real part is >= 0 (no cancellation); near 0
    # as log1p(z + z*z / (sqrt(z*z + 1) + 1)), and far out as log(2z) (z*z would overflow)
    if not (math.isfinite(z.real) and math.isfinite(z.imag)):
        return dev_casinh_special(z)
    if z.real == 0 and abs(z.imag) <= 1:  # between the branch points: i asin(y), exactly
        return complex(z.real, np.arcsin(z.imag))
    flip = math.copysign(1.0, z.real) < 0  # -0 too: the imaginary axis's left side
    if flip:
        z = -z
    r = abs(z)
    if r > 1e18:
        w = dev_cshift(dev_clog(z), 0.6931471805599453)  # log 2z, the zero's sign kept
    elif r < 1:
        w = dev_clog1p(z + z * z / (dev_csqrt(dev_cshift(z * z, 1)) + 1))
    else:
        w = dev_clog(z + dev_csqrt(dev_cshift(z * z, 1)))
    if flip:
        return -w
    return w
''',
    "dev_casinh_special": '''
def dev_casinh_special(z):
    # asinh where a part is infinite or NaN (Annex G): an infinite part makes an infinite
    # real part, whose sign is x's, at the angle the infinities point to
    x = z.real
    y = z.imag
    if math.isnan(x):
        if y == 0:
            return complex(x, y)
        if math.isinf(y):
            return complex(math.inf, x)
        return complex(math.nan, math.nan)
    if math.isnan(y):
        if math.isinf(x):
            return complex(x, y)
        return complex(math.nan, math.nan)
    if math.isinf(x) and math.isinf(y):
        return complex(x, math.copysign(np.pi / 4, y))
    if math.isinf(x):
        return complex(x, math.copysign(0.0, y))
    return complex(math.copysign(math.inf, x), math.copysign(np.pi / 2, y))
''',
    "dev_casin": '''
def dev_casin(z):
    if z.imag == 0 and abs(z.real) > 1:  # on the cut: the imaginary part's sign decides
        return complex(math.copysign(1.5707963267948966, z.real),
                       math.copysign(np.arccosh(abs(z.real)), z.imag))
    # asin z = -i asinh(i z)
    w = dev_casinh(complex(-z.imag, z.real))
    return complex(w.imag, -w.real)
''',
    "dev_cacos": '''
def dev_cacos(z):
    if z.imag == 0 and abs(z.real) > 1:  # on the cut: 0 or pi exactly, not pi/2 - pi/2
        if z.real > 0:
            return complex(0.0, -math.copysign(np.arccosh(z.real), z.imag))
        return complex(np.pi, -math.copysign(np.arccosh(-z.real), z.imag))
    w = dev_casin(z)
    return complex(1.5707963267948966 - w.real, -w.imag)
''',
    "dev_cacosh": '''
def dev_cacosh(z):
    x = z.real
    y = z.imag
    if not (math.isfinite(x) and math.isfinite(y)):
        # Annex G: an infinite part gives +inf at the angle the infinities point to (the
        # imaginary part's sign is y's); NaN stays NaN, except beside an infinity (+inf
        # + nan j) and acosh(+-0 + nan j) = nan + pi/2 j (acosh(0) = pi/2 j, whatever y)
        if math.isnan(x) or math.isnan(y):
            if math.isinf(x) or math.isinf(y):
                return complex(math.inf, math.nan)
            if x == 0:
                return complex(math.nan, np.pi / 2)
            return complex(math.nan, math.nan)
        angle = np.pi / 2
        if math.isinf(x):
            angle = 0.0
            if x < 0:
                angle = np.pi
            if math.isinf(y):
                angle = np.pi / 4
                if x < 0:
                    angle = np.pi * 0.75
        return complex(math.inf, math.copysign(angle, y))
    return dev_clog(z + dev_csqrt(dev_cshift(z, 1)) * dev_csqrt(dev_cshift(z, -1)))
''',
    "dev_catanh": '''
def dev_catanh(z):
    x = z.real
    y = z.imag
    if not (math.isfinite(x) and math.isfinite(y)):
        # Annex G: an infinite part gives +-0 + +-pi/2 j (1/z vanishes); NaN stays NaN
        # except beside an infinity and atanh(+-0 + nan j) = +-0 + nan j
        if math.isnan(x) or math.isnan(y):
            if math.isinf(y):
                return complex(math.copysign(0.0, x), math.copysign(np.pi / 2, y))
            if math.isinf(x) or x == 0:
                return complex(math.copysign(0.0, x), math.nan)
            return complex(math.nan, math.nan)
        return complex(math.copysign(0.0, x), math.copysign(np.pi / 2, y))
    if y == 0 and abs(x) == 1:  # the poles: +-inf, y's zero kept
        return complex(math.copysign(math.inf, x), y)
    if x == 0:  # the imaginary axis: i atan(y), x's zero kept
        return complex(x, np.arctan(y))
    if abs(x) > 1e150 or abs(y) > 1e150:
        # 1/z + 1/(3 z**3) + ...: 1/z to the last bit (the logarithms' difference would
        # cancel to 0); the angle is +-pi/2 on y's side
        r = np.hypot(x, y)
        return complex(x / r / r, math.copysign(np.pi / 2, y))
    w = dev_clog1p(z) - dev_clog1p(-z)
    # halved part by part: w * 0.5 would be a complex product, with inf * 0 in it
    return complex(w.real * 0.5, w.imag * 0.5)
''',
    "dev_catan": '''
def dev_catan(z):
    # atan z = -i atanh(i z)
    w = dev_catanh(complex(-z.imag, z.real))
    return complex(w.imag, -w.real)
''',
    "dev_cpow": '''
def dev_cpow(z, w):
    if w.real == 0 and w.imag == 0:
        return complex(1.0, 0.0)
    if z.real == 0 and z.imag == 0:
        if w.imag == 0 and w.real > 0:
            return complex(0.0, 0.0)
        return complex(math.nan, math.nan)
    return dev_cexp(w * dev_clog(z))
''',
}

# The device functions each helper calls in turn (a module defines callees first).
CALLS = {
    "dev_csin": ["dev_csinh"],
    "dev_ccos": ["dev_ccosh"],
    "dev_ctan": ["dev_ctanh"],
    "dev_clog1p": ["dev_cshift", "dev_clog"],
    "dev_casinh": ["dev_cshift", "dev_clog", "dev_clog1p", "dev_csqrt", "dev_casinh_special"],
    "dev_casin": ["dev_cshift", "dev_clog", "dev_clog1p", "dev_csqrt", "dev_casinh_special",
                  "dev_casinh"],
    "dev_cacos": ["dev_cshift", "dev_clog", "dev_clog1p", "dev_csqrt", "dev_casinh_special",
                  "dev_casinh", "dev_casin"],
    "dev_cacosh": ["dev_cshift", "dev_clog", "dev_csqrt"],
    "dev_catanh": ["dev_cshift", "dev_clog", "dev_clog1p"],
    "dev_catan": ["dev_cshift", "dev_clog", "dev_clog1p", "dev_catanh"],
    "dev_cpow": ["dev_clog", "dev_cexp"],
}

# operation -> expression for complex loop dtypes ({T} the complex result dtype)
EXPRESSIONS = {
    "exp": "{T}(dev_cexp({0}))",
    "log": "{T}(dev_clog({0}))",
    "log2": "{T}(dev_cscale(dev_clog({0}), " + _LOG2E + "))",
    "log10": "{T}(dev_cscale(dev_clog({0}), " + _LOG10E + "))",
    "sqrt": "{T}(dev_csqrt({0}))",
    "expm1": "{T}(dev_cexpm1({0}))",
    "log1p": "{T}(dev_clog1p({0}))",
    "sin": "{T}(dev_csin({0}))",
    "cos": "{T}(dev_ccos({0}))",
    "tan": "{T}(dev_ctan({0}))",
    "sinh": "{T}(dev_csinh({0}))",
    "cosh": "{T}(dev_ccosh({0}))",
    "tanh": "{T}(dev_ctanh({0}))",
    "asin": "{T}(dev_casin({0}))",
    "acos": "{T}(dev_cacos({0}))",
    "atan": "{T}(dev_catan({0}))",
    "asinh": "{T}(dev_casinh({0}))",
    "acosh": "{T}(dev_cacosh({0}))",
    "atanh": "{T}(dev_catanh({0}))",
    "pow": "{T}(dev_cpow({0}, {1}))",
    "round": "{T}(complex(np.rint({0}.real), np.rint({0}.imag)))",
    "rint": "{T}(complex(np.rint({0}.real), np.rint({0}.imag)))",
}
