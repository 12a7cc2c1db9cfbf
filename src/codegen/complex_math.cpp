// The complex functions of cmath and NumPy (exp, log, sqrt, the trigonometric and
// hyperbolic functions and their inverses, rect, and **), as helper text over the complex
// struct ($T, with parts re and im of type $R) and the real math functions: the same
// generated math on every backend. Finite values by the formulas CPython's cmath uses where
// they keep the last bits (Kahan's for the inverse functions, log1p near |z| = 1, tanh's
// form without cancellation); infinite and NaN parts, and the signs of zero parts, as C99's
// Annex G gives them, where CPython's cmath differs from it, as CPython's (which
// tests/python/test_complex_math.py checks on every device).
#include <string>

#include "codegen/helpers.h"

namespace simt::codegen {

namespace {

constexpr const char* kExp = R"($Q$T $N($T z) {
  // C99 G.6.3.1: a zero angle keeps the result real (exp(inf + 0i) = inf + 0i, exp(NaN +
  // 0i) = NaN + 0i); exp(+inf + yi) for y infinite or NaN is +inf + NaN i (no direction),
  // exp(-inf + yi) +0 + 0i.
  $T r;
  $R x = z.re, y = z.im;
  if (y == 0) {
    r.re = $exp(x);
    r.im = y;
    return r;
  }
  if ($isinf(x) && !$isfinite(y)) {
    r.re = x > 0 ? x : ($R)0;
    r.im = x > 0 ? y - y : ($R)0;
    return r;
  }
  $R m = $exp(x);
  r.re = m * $cos(y);
  r.im = m * $sin(y);
  return r;
}
)";

constexpr const char* kLog = R"($Q$T $N($T z) {
  $T r;
  $R ax = $fabs(z.re), ay = $fabs(z.im);
  $R h = $hypot(ax, ay);
  if (h >= ($R)0.71 && h <= ($R)1.73) {
    // Near |z| = 1, log|z| = log1p((m - 1)(m + 1) + n^2) / 2 (m, n the larger and smaller
    // part): log(h) would lose h's rounding error relative to a result near 0.
    $R m = ax > ay ? ax : ay, n = ax > ay ? ay : ax;
    r.re = $log1p((m - 1) * (m + 1) + n * n) * ($R)0.5;
  } else {
    r.re = $log(h);
  }
  r.im = $atan2(z.im, z.re);
  return r;
}
)";

// cmath.log(z, base), log(z) / log(base), for complex64 in $V (Dialect::complex64_work,
// double where the device has it): in float the two logs and the division compound to
// about 8 ulps; in double the result is float's within an ulp. (Other types divide their
// own logs: $log_c keeps log|z| exact near |z| = 1, which double needs and float here gets
// from the wider type.) The division is Smith's, as $div_c's.
constexpr const char* kLogBase = R"($Q$T $N($T z, $T b) {
  $V zr = ($V)z.re, zi = ($V)z.im, br = ($V)b.re, bi = ($V)b.im;
  $V lz_re = $wide_log($wide_hypot(zr, zi)), lz_im = $wide_atan2(zi, zr);
  $V lb_re = $wide_log($wide_hypot(br, bi)), lb_im = $wide_atan2(bi, br);
  $T r;
  if ($wide_fabs(lb_re) >= $wide_fabs(lb_im)) {
    $V ratio = lb_im / lb_re, denom = lb_re + lb_im * ratio;
    r.re = ($R)((lz_re + lz_im * ratio) / denom);
    r.im = ($R)((lz_im - lz_re * ratio) / denom);
  } else {
    $V ratio = lb_re / lb_im, denom = lb_im + lb_re * ratio;
    r.re = ($R)((lz_re * ratio + lz_im) / denom);
    r.im = ($R)((lz_im * ratio - lz_re) / denom);
  }
  return r;
}
)";

constexpr const char* kLog10 = R"($Q$T $N($T z) {
  $T r = $log_c(z);
  r.re = r.re * ($R)0.43429448190325182765;
  r.im = r.im * ($R)0.43429448190325182765;
  return r;
}
)";

constexpr const char* kSqrt = R"($Q$T $N($T z) {
  // C99 G.6.4.2: sqrt(x +- inf i) = +inf +- inf i, even for x NaN; sqrt(-inf + yi) =
  // +0 + inf i, sqrt(+inf + yi) = +inf + 0i (y's sign), the zero part NaN beside a NaN y.
  $T r;
  $R x = z.re, y = z.im;
  if (x == 0 && y == 0) {
    r.re = 0;
    r.im = y;
    return r;
  }
  if ($isinf(y)) {
    r.re = $fabs(y);
    r.im = y;
    return r;
  }
  if ($isinf(x)) {
    if (x > 0) {
      r.re = x;
      r.im = y == y ? $copysign(($R)0, y) : y;
    } else {
      r.re = y - y;  // NaN beside a NaN y, else 0
      r.im = $copysign(-x, y);
    }
    return r;
  }
  // Principal root; scaled by 1/8 inside where hypot could overflow.
  $R ax = $fabs(x), ay = $fabs(y), s;
  if (ax < 1 && ay < 1) {
    s = $sqrt((ax + $hypot(ax, ay)) * ($R)0.5);
  } else {
    ax = ax * ($R)0.125;
    s = 2 * $sqrt(ax + $hypot(ax, ay * ($R)0.125));
  }
  $R d = $fabs(y) / (2 * s);
  if (x >= 0) {
    r.re = s;
    r.im = $copysign(d, y);
  } else {
    r.re = d;
    r.im = $copysign(s, y);
  }
  return r;
}
)";

constexpr const char* kSinh = R"($Q$T $N($T z) {
  // C99 G.6.2.5: a zero angle keeps the result real; an infinite or NaN angle makes NaN
  // parts, but for sinh(+-0 + yi) = +-0 + NaN i and sinh(+-inf + yi) = +-inf + NaN i.
  $T r;
  $R x = z.re, y = z.im;
  if (y == 0) {
    r.re = $sinh(x);
    r.im = y;
    return r;
  }
  if (!$isfinite(y) && (x == 0 || $isinf(x))) {  // the real part's sign is unspecified: +
    r.re = $fabs(x);
    r.im = y - y;
    return r;
  }
  if ($isinf(x)) {  // infinite in y's direction, not inf * cos(y) = NaN where cos(y) is 0
    r.re = $copysign(x, $cos(y)) * $copysign(($R)1, x);
    r.im = $copysign(x, $sin(y));
    return r;
  }
  r.re = $cos(y) * $sinh(x);
  r.im = $sin(y) * $cosh(x);
  return r;
}
)";

constexpr const char* kCosh = R"($Q$T $N($T z) {
  // C99 G.6.2.4: cosh(x + 0i) is real (the zero's sign x's times y's); an infinite or NaN
  // angle makes NaN parts but for cosh(+-0 + yi) = NaN + 0i and cosh(+-inf + yi) = +inf +
  // NaN i.
  $T r;
  $R x = z.re, y = z.im;
  if (y == 0) {
    r.re = $cosh(x);
    r.im = x == x ? y * $copysign(($R)1, x) : ($R)0;
    return r;
  }
  if (!$isfinite(y) && (x == 0 || $isinf(x))) {
    r.re = x == 0 ? y - y : $fabs(x);
    r.im = x == 0 ? ($R)0 : y - y;
    return r;
  }
  if ($isinf(x)) {  // infinite in y's direction (cosh is even: x's sign turns it)
    r.re = $copysign(x, $cos(y));
    r.im = $copysign(x, $sin(y)) * $copysign(($R)1, x);
    return r;
  }
  r.re = $cos(y) * $cosh(x);
  r.im = $sin(y) * $sinh(x);
  return r;
}
)";

constexpr const char* kTanh = R"($Q$T $N($T z) {
  // C99 G.6.2.6: tanh(NaN + 0i) = NaN + 0i; tanh(+-inf + yi) = +-1 + 0i (the zero's sign
  // sin 2y's, + for y infinite or NaN: the angle's effect vanishes as e^-2|x|); an infinite
  // or NaN y makes NaN + NaN i otherwise (C99's; C11's +-0 + NaN i for x = +-0 is not
  // CPython's).
  $T r;
  $R x = z.re, y = z.im;
  if (y == 0) {
    r.re = $tanh(x);
    r.im = y;
    return r;
  }
  if ($isinf(x)) {
    r.re = $copysign(($R)1, x);
    r.im = $isfinite(y) ? $copysign(($R)0, $sin(2 * y)) : ($R)0;
    return r;
  }
  if (!$isfinite(y)) {
    r.re = y - y;
    r.im = y - y;
    return r;
  }
  if ($fabs(x) > 20) {  // |tanh x| is 1 to the last bit of a double; cosh x would overflow
    r.re = $copysign(($R)1, x);
    r.im = 4 * $sin(y) * $cos(y) * $exp(-2 * $fabs(x));
    return r;
  }
  // tanh(x + yi) = (tanh x (1 + tan^2 y) + i tan y sech^2 x) / (1 + tanh^2 x tan^2 y): no
  // cancellation near the poles, where cosh 2x + cos 2y would be near 0. In $V, the
  // dialect's type for it (Dialect::complex64_work), with its math functions.
  $V tx = $wide_tanh(($V)x), ty = $wide_tan(($V)y), cx = 1 / $wide_cosh(($V)x);
  $V txty = tx * ty;
  $V d = 1 + txty * txty;
  r.re = ($R)(tx * (1 + ty * ty) / d);
  r.im = ($R)(ty / d * cx * cx);
  return r;
}
)";

// cos z = cosh(iz) (C99's definition, which carries cosh's special values).
constexpr const char* kCos = R"($Q$T $N($T z) {
  $T iz;
  iz.re = -z.im;
  iz.im = z.re;
  return $cosh_c(iz);
}
)";

constexpr const char* kAsinh = R"($Q$T $N($T z) {
  $T r;
  $R x = z.re, y = z.im;
  if (!$isfinite(x) || !$isfinite(y)) {
    // C99 G.6.2.2: an infinite part makes +-inf (x's sign) at the angle the infinities
    // point to; NaN stays NaN but for asinh(NaN + 0i) = NaN + 0i and asinh(NaN +- inf i) =
    // +-inf + NaN i.
    $R quarter = ($R)0.78539816339744830962;
    if (x != x) {
      r.re = $isinf(y) ? $fabs(y) : x;
      r.im = y == 0 ? y : x;
    } else if (y != y) {
      r.re = $isinf(x) ? x : y;
      r.im = y;
    } else if ($isinf(x)) {
      r.re = x;
      r.im = $copysign($isinf(y) ? quarter : ($R)0, y);
    } else {
      r.re = $copysign(y, x);
      r.im = $copysign(2 * quarter, y);
    }
    return r;
  }
  // Kahan's: with s1 = sqrt(1 + iz) and s2 = sqrt(1 - iz), asinh z = asinh(Im(conj(s1)
  // s2)) + i atan2(y, Re(s1 s2)): no cancellation, no overflow (the roots grow as |z|^1/2).
  $T a, b;
  a.re = 1 + y;
  a.im = -x;
  b.re = 1 - y;
  b.im = x;
  a = $sqrt_c(a);
  b = $sqrt_c(b);
  r.re = $asinh(a.re * b.im - b.re * a.im);
  r.im = $atan2(y, a.re * b.re - a.im * b.im);
  return r;
}
)";

constexpr const char* kAcos = R"($Q$T $N($T z) {
  $T r;
  $R x = z.re, y = z.im;
  if (!$isfinite(x) || !$isfinite(y)) {  // pi/2 - asin z carries C99's special values here
    $T a = $asin_c(z);
    r.re = ($R)1.57079632679489661923 - a.re;
    r.im = -a.im;
    return r;
  }
  // Kahan's: with s1 = sqrt(1 - z) and s2 = sqrt(1 + z), acos z = 2 atan2(Re s1, Re s2) +
  // i asinh(Im(conj(s2) s1)).
  $T a, b;
  a.re = 1 - x;
  a.im = -y;
  b.re = 1 + x;
  b.im = y;
  a = $sqrt_c(a);
  b = $sqrt_c(b);
  r.re = 2 * $atan2(a.re, b.re);
  r.im = $asinh(b.re * a.im - b.im * a.re);
  return r;
}
)";

constexpr const char* kAcosh = R"($Q$T $N($T z) {
  $T r;
  $R x = z.re, y = z.im;
  if (!$isfinite(x) || !$isfinite(y)) {
    // C99 G.6.2.1: an infinite part gives +inf at the angle the infinities point to (the
    // sign y's); NaN stays NaN but beside an infinity (+inf + NaN i; and acosh(+-0 + NaN i)
    // is NaN + NaN i, CPython's, not C99's NaN + pi/2 i).
    $R quarter = ($R)0.78539816339744830962;
    if (x != x || y != y) {
      r.re = $isinf(x) || $isinf(y) ? $fabs($isinf(x) ? x : y) : x + y;
      r.im = x + y;
      return r;
    }
    $R angle = $isinf(x) ? (x > 0 ? ($R)0 : 4 * quarter) : 2 * quarter;
    if ($isinf(x) && $isinf(y)) angle = x > 0 ? quarter : 3 * quarter;
    r.re = $fabs(x) + $fabs(y);
    r.im = $copysign(angle, y);
    return r;
  }
  // Kahan's: with s1 = sqrt(z - 1) and s2 = sqrt(z + 1), acosh z = asinh(Re(conj(s1) s2))
  // + 2i atan2(Im s1, Re s2).
  $T a, b;
  a.re = x - 1;
  a.im = y;
  b.re = x + 1;
  b.im = y;
  a = $sqrt_c(a);
  b = $sqrt_c(b);
  r.re = $asinh(a.re * b.re + a.im * b.im);
  r.im = 2 * $atan2(a.im, b.re);
  return r;
}
)";

constexpr const char* kAtanh = R"($Q$T $N($T z) {
  $T r;
  $R x = z.re, y = z.im;
  $R half_pi = ($R)1.57079632679489661923;
  if (!$isfinite(x) || !$isfinite(y)) {
    // C99 G.6.2.3: an infinite part gives +-0 +- pi/2 i (1/z vanishes); NaN stays NaN but
    // beside an infinite y, and for atanh(+-0 + NaN i) = +-0 + NaN i, atanh(+-inf + NaN i) =
    // +-0 + NaN i.
    if ($isinf(y)) {
      r.re = x == x ? $copysign(($R)0, x) : ($R)0;
      r.im = $copysign(half_pi, y);
    } else if (x != x || y != y) {
      r.re = $isinf(x) || x == 0 ? $copysign(($R)0, x) : x + y;
      r.im = x + y;
    } else {
      r.re = $copysign(($R)0, x);
      r.im = $copysign(half_pi, y);
    }
    return r;
  }
  // Odd: computed for x >= 0. Re = log1p(4x / ((1 - x)^2 + y^2)) / 4, Im = atan2(2y, (1 -
  // x)(1 + x) - y^2) / 2; far out (where y^2 would overflow) 1/z's parts.
  $R ax = $fabs(x), ay = $fabs(y);
  if (ax > ($R)1e18 || ay > ($R)1e18) {
    $R h = $hypot(ax * ($R)0.5, ay * ($R)0.5);
    r.re = ax / h / h * ($R)0.25;
    r.im = $copysign(half_pi, y);
  } else if (ax == 1 && ay == 0) {
    r.re = ax / ($R)0;
    r.im = y;
  } else {
    r.re = $log1p(4 * ax / ((1 - ax) * (1 - ax) + ay * ay)) * ($R)0.25;
    r.im = $atan2(2 * y, (1 - ax) * (1 + ax) - ay * ay) * ($R)0.5;
  }
  r.re = $copysign(r.re, x);
  return r;
}
)";

constexpr const char* kRect = R"($Q$T $N($R m, $R phi) {
  // cmath.rect(m, phi) = m (cos phi + i sin phi); phi == 0 keeps the imaginary part an
  // exact zero. Where a part is not finite, CPython's special values: m == 0 gives 0, an
  // infinite m keeps its infinity in the angle's direction, a NaN angle gives NaN (+-inf
  // + NaN i for an infinite m).
  $T r;
  if ($isfinite(m) && $isfinite(phi)) {
    r.re = m * $cos(phi);
    r.im = phi == 0 ? phi * m : m * $sin(phi);
  } else if (m == 0) {
    r.re = 0;
    r.im = 0;
  } else if ($isinf(m) && $isfinite(phi)) {
    $R s = $copysign(($R)1, m);
    r.re = phi == 0 ? m : s * $copysign($fabs(m), $cos(phi));
    r.im = phi == 0 ? s * phi : s * $copysign($fabs(m), $sin(phi));
  } else if ($isinf(m)) {
    r.re = $fabs(m);
    r.im = phi - phi;
  } else {
    r.re = m + phi;  // NaN
    r.im = phi == 0 ? ($R)0 : m + phi;
  }
  return r;
}
)";

// a ** b: an integer exponent up to 100 by repeated squaring, as NumPy does (exact where
// the products are); 0 ** b is 0 for Re b > 0 (b real), else NaN; otherwise exp(b log a).
constexpr const char* kPow = R"($Q$T $N($T a, $T b) {
  $T r;
  if (b.im == 0 && b.re == $floor(b.re) && $fabs(b.re) <= 100) {
    int n = (int)$fabs(b.re);
    $T p = a;
    r.re = 1;
    r.im = 0;
    while (n > 0) {
      if (n & 1) {
        $R re = r.re * p.re - r.im * p.im;
        r.im = r.re * p.im + r.im * p.re;
        r.re = re;
      }
      $R pre = p.re * p.re - p.im * p.im;
      p.im = 2 * p.re * p.im;
      p.re = pre;
      n >>= 1;
    }
    if (b.re < 0) {
      $T one;
      one.re = 1;
      one.im = 0;
      r = $div_c(one, r);
    }
    return r;
  }
  if (a.re == 0 && a.im == 0) {
    r.re = b.im == 0 && b.re > 0 ? ($R)0 : ($R)0 / ($R)0;
    r.im = r.re;
    return r;
  }
  $T l = $log_c(a);
  $T e;
  e.re = b.re * l.re - b.im * l.im;
  e.im = b.re * l.im + b.im * l.re;
  return $exp_c(e);
}
)";

// sin z = -i sinh(iz), tan z = -i tanh(iz), asin z = -i asinh(iz), atan z = -i atanh(iz)
// (C99's definitions, which carry the special values): one text, `inner` the token of the
// helper it goes through.
std::string minus_i_of_iz(const char* inner) {
  return std::string(R"($Q$T $N($T z) {
  $T iz;
  iz.re = -z.im;
  iz.im = z.re;
  $T t = )") +
         inner + R"((iz);
  $T r;
  r.re = t.im;
  r.im = -t.re;
  return r;
}
)";
}

// Made once, for the program's lifetime (HelperSet reads the text on each use, from any
// thread compiling).
const char* through_iz(Helper helper) {
  static const std::string sin = minus_i_of_iz("$sinh_c"), tan = minus_i_of_iz("$tanh_c"),
                           asin = minus_i_of_iz("$asinh_c"), atan = minus_i_of_iz("$atanh_c");
  return helper == Helper::ComplexSin    ? sin.c_str()
         : helper == Helper::ComplexTan  ? tan.c_str()
         : helper == Helper::ComplexAsin ? asin.c_str()
                                         : atan.c_str();
}

}  // namespace

ComplexMathText complex_math_text(Helper helper) {
  switch (helper) {
    case Helper::ComplexExp:
      return {kExp, {}};
    case Helper::ComplexLog:
      return {kLog, {}};
    case Helper::ComplexLog10:
      return {kLog10, {Helper::ComplexLog}};
    case Helper::ComplexLogBase:
      return {kLogBase, {}};
    case Helper::ComplexSqrt:
      return {kSqrt, {}};
    case Helper::ComplexSin:
      return {through_iz(helper), {Helper::ComplexSinh}};
    case Helper::ComplexCos:
      return {kCos, {Helper::ComplexCosh}};
    case Helper::ComplexTan:
      return {through_iz(helper), {Helper::ComplexTanh}};
    case Helper::ComplexSinh:
      return {kSinh, {}};
    case Helper::ComplexCosh:
      return {kCosh, {}};
    case Helper::ComplexTanh:
      return {kTanh, {}};
    case Helper::ComplexAsin:
      return {through_iz(helper), {Helper::ComplexAsinh}};
    case Helper::ComplexAcos:
      return {kAcos, {Helper::ComplexSqrt, Helper::ComplexAsin}};
    case Helper::ComplexAtan:
      return {through_iz(helper), {Helper::ComplexAtanh}};
    case Helper::ComplexAsinh:
      return {kAsinh, {Helper::ComplexSqrt}};
    case Helper::ComplexAcosh:
      return {kAcosh, {Helper::ComplexSqrt}};
    case Helper::ComplexAtanh:
      return {kAtanh, {}};
    case Helper::ComplexRect:
      return {kRect, {}};
    case Helper::ComplexPow:
      return {kPow, {Helper::ComplexDiv, Helper::ComplexLog, Helper::ComplexExp}};
    default:
      return {nullptr, {}};
  }
}

std::optional<Helper> complex_math_helper(std::string_view c_name) {
  static constexpr std::pair<std::string_view, Helper> kByName[] = {
      {"exp", Helper::ComplexExp},     {"log", Helper::ComplexLog},
      {"log10", Helper::ComplexLog10}, {"sqrt", Helper::ComplexSqrt},
      {"sin", Helper::ComplexSin},     {"cos", Helper::ComplexCos},
      {"tan", Helper::ComplexTan},     {"sinh", Helper::ComplexSinh},
      {"cosh", Helper::ComplexCosh},   {"tanh", Helper::ComplexTanh},
      {"asin", Helper::ComplexAsin},   {"acos", Helper::ComplexAcos},
      {"atan", Helper::ComplexAtan},   {"asinh", Helper::ComplexAsinh},
      {"acosh", Helper::ComplexAcosh}, {"atanh", Helper::ComplexAtanh},
  };
  for (const auto& [name, helper] : kByName)
    if (name == c_name) return helper;
  return std::nullopt;
}

}  // namespace simt::codegen
