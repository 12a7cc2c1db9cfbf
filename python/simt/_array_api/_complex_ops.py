"""Element-wise functions of complex numbers: device functions in simt's kernel language,
written with real math on the parts (the formulas of C99's Annex G for finite values;
branch cuts as NumPy's, on the real axis for sqrt, log and the inverse functions).

EXPRESSIONS maps an operation of _elementwise_ops to its expression for complex loop
dtypes; HELPERS holds the device functions those expressions call. A device function is
specialized per argument type, so one text serves complex64 and complex128 (weak float
literals keep complex64's parts float32).
"""

_LN2 = "0.6931471805599453"
_LN10 = "2.302585092994046"

HELPERS = {
    "dev_cshift": '''
def dev_cshift(z, a):
    # z + a for a real a, keeping the sign of z's imaginary zero (on a branch cut it
    # decides the side; z + a as complex numbers would make -0 into +0)
    return complex(z.real + a, z.imag)
''',
    "dev_cexp": '''
def dev_cexp(z):
    if z.imag == 0:  # exp(710+0j) is inf+0j, not inf * sin(0) = nan
        return complex(np.exp(z.real), z.imag)
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
    r = np.hypot(x, y)
    if x >= 0:
        t = np.sqrt((r + x) * 0.5)
        return complex(t, y / (t * 2))
    t = np.sqrt((r - x) * 0.5)
    return complex(abs(y) / (t * 2), math.copysign(t, y))
''',
    "dev_cexpm1": '''
def dev_cexpm1(z):
    # e**x cos y - 1 = expm1(x) cos y - 2 sin(y / 2)**2: no cancellation near 0
    h = np.sin(z.imag * 0.5)
    return complex(np.expm1(z.real) * np.cos(z.imag) - h * h * 2,
                   np.exp(z.real) * np.sin(z.imag))
''',
    "dev_clog1p": '''
def dev_clog1p(z):
    x = z.real
    y = z.imag
    return complex(np.log1p(x * (x + 2) + y * y) * 0.5, np.arctan2(y, x + 1))
''',
    "dev_csin": '''
def dev_csin(z):
    if z.real == 0:  # 0 * cosh(y) would be nan where cosh overflows
        return complex(z.real, np.sinh(z.imag))
    return complex(np.sin(z.real) * np.cosh(z.imag), np.cos(z.real) * np.sinh(z.imag))
''',
    "dev_ccos": '''
def dev_ccos(z):
    if z.real == 0:
        return complex(np.cosh(z.imag), -z.real * math.copysign(1.0, z.imag))
    return complex(np.cos(z.real) * np.cosh(z.imag), -(np.sin(z.real) * np.sinh(z.imag)))
''',
    "dev_csinh": '''
def dev_csinh(z):
    if z.imag == 0:
        return complex(np.sinh(z.real), z.imag)
    return complex(np.sinh(z.real) * np.cos(z.imag), np.cosh(z.real) * np.sin(z.imag))
''',
    "dev_ccosh": '''
def dev_ccosh(z):
    if z.imag == 0:
        return complex(np.cosh(z.real), z.imag * math.copysign(1.0, z.real))
    return complex(np.cosh(z.real) * np.cos(z.imag), np.sinh(z.real) * np.sin(z.imag))
''',
    "dev_ctanh": '''
def dev_ctanh(z):
    x = z.real
    y = z.imag
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
    flip = math.copysign(1.0, z.real) < 0  # -0 too: the imaginary axis's left side
    if flip:
        z = -z
    r = abs(z)
    if r > 1e18:
        w = dev_clog(z) + 0.6931471805599453
    elif r < 1:
        w = dev_clog1p(z + z * z / (dev_csqrt(dev_cshift(z * z, 1)) + 1))
    else:
        w = dev_clog(z + dev_csqrt(dev_cshift(z * z, 1)))
    if flip:
        return -w
    return w
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
    w = dev_casin(z)
    return complex(1.5707963267948966 - w.real, -w.imag)
''',
    "dev_cacosh": '''
def dev_cacosh(z):
    return dev_clog(z + dev_csqrt(dev_cshift(z, 1)) * dev_csqrt(dev_cshift(z, -1)))
''',
    "dev_catanh": '''
def dev_catanh(z):
    return (dev_clog1p(z) - dev_clog1p(-z)) * 0.5
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
    "dev_ctan": ["dev_ctanh"],
    "dev_casinh": ["dev_cshift", "dev_clog", "dev_clog1p", "dev_csqrt"],
    "dev_casin": ["dev_cshift", "dev_clog", "dev_clog1p", "dev_csqrt", "dev_casinh"],
    "dev_cacos": ["dev_cshift", "dev_clog", "dev_clog1p", "dev_csqrt", "dev_casinh", "dev_casin"],
    "dev_cacosh": ["dev_cshift", "dev_clog", "dev_csqrt"],
    "dev_catanh": ["dev_clog1p"],
    "dev_catan": ["dev_clog1p", "dev_catanh"],
    "dev_cpow": ["dev_clog", "dev_cexp"],
}

# operation -> expression for complex loop dtypes ({T} the complex result dtype)
EXPRESSIONS = {
    "exp": "{T}(dev_cexp({0}))",
    "log": "{T}(dev_clog({0}))",
    "log2": "{T}(dev_clog({0}) / " + _LN2 + ")",
    "log10": "{T}(dev_clog({0}) / " + _LN10 + ")",
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
}
