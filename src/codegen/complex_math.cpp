// The complex functions of cmath and NumPy (exp, log, sqrt, the trigonometric and
// hyperbolic functions and their inverses, and **), as helper text over the complex
// struct ($T, with parts re and im of type $R) and the real math functions. Formulas
// follow C99's Annex G where it matters for finite values (sqrt and the inverse
// functions keep the principal branch; the sign of a zero part is kept); infinities and
// NaNs come out as the formulas give them, not always as C99 specifies.
#include <string>

#include "codegen/helpers.h"

namespace simt::codegen {

namespace {

constexpr const char* kExp = R"($Q$T $N($T z) {
  $T r;
  $R m = $exp(z.re);
  if (z.im == 0) {
    r.re = m;
    r.im = z.im;
    return r;
  }
  r.re = m * $cos(z.im);
  r.im = m * $sin(z.im);
  return r;
}
)";

constexpr const char* kLog = R"($Q$T $N($T z) {
  $T r;
  r.re = $log($hypot(z.re, z.im));
  r.im = $atan2(z.im, z.re);
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

// Principal root; the imaginary part keeps z.im's sign (sqrt(-4-0j) = -2j).
constexpr const char* kSqrt = R"($Q$T $N($T z) {
  $T r;
  if (z.re == 0 && z.im == 0) {
    r.re = 0;
    r.im = z.im;
    return r;
  }
  $R t = $sqrt(($fabs(z.re) + $hypot(z.re, z.im)) * ($R)0.5);
  if (z.re >= 0) {
    r.re = t;
    r.im = z.im / (t + t);
  } else {
    r.re = $fabs(z.im) / (t + t);
    r.im = $copysign(t, z.im);
  }
  return r;
}
)";

constexpr const char* kSin = R"($Q$T $N($T z) {
  $T r;
  r.re = $sin(z.re) * $cosh(z.im);
  r.im = $cos(z.re) * $sinh(z.im);
  return r;
}
)";

constexpr const char* kCos = R"($Q$T $N($T z) {
  $T r;
  r.re = $cos(z.re) * $cosh(z.im);
  r.im = -($sin(z.re) * $sinh(z.im));
  return r;
}
)";

constexpr const char* kSinh = R"($Q$T $N($T z) {
  $T r;
  r.re = $sinh(z.re) * $cos(z.im);
  r.im = $cosh(z.re) * $sin(z.im);
  return r;
}
)";

constexpr const char* kCosh = R"($Q$T $N($T z) {
  $T r;
  r.re = $cosh(z.re) * $cos(z.im);
  r.im = $sinh(z.re) * $sin(z.im);
  return r;
}
)";

// Kahan's tanh: with t = tan y, b = 1 + t^2, s = sinh x, tanh(x + iy) = (b s cosh x +
// i t) / (1 + b s^2), well conditioned near the poles where cosh 2x + cos 2y cancels.
// Far from 0 (|x| > 20, where s^2 overflows first in float) the real part is +-1 and the
// imaginary part decays as e^-2|x|.
constexpr const char* kTanh = R"($Q$T $N($T z) {
  $T r;
  if ($fabs(z.re) > 20) {
    r.re = $copysign(($R)1, z.re);
    r.im = 4 * $sin(z.im) * $cos(z.im) * $exp(-2 * $fabs(z.re));
    return r;
  }
  $R t = $tan(z.im);
  $R b = 1 + t * t;
  $R s = $sinh(z.re);
  $R d = 1 + b * s * s;
  r.re = b * $cosh(z.re) * s / d;
  r.im = t / d;
  return r;
}
)";

// asinh z = log(z + sqrt(z*z + 1)), evaluated for Re z >= 0 (no cancellation) and
// mirrored: asinh(-z) = -asinh(z).
constexpr const char* kAsinh = R"($Q$T $N($T z) {
  int flip = z.re < 0 || (z.re == 0 && z.im < 0);
  $T w = z;
  if (flip) {
    w.re = -z.re;
    w.im = -z.im;
  }
  $T s;
  s.re = (w.re - w.im) * (w.re + w.im) + 1;
  s.im = 2 * w.re * w.im;
  s = $sqrt_c(s);
  s.re = s.re + w.re;
  s.im = s.im + w.im;
  $T r = $log_c(s);
  if (flip) {
    r.re = -r.re;
    r.im = -r.im;
  }
  return r;
}
)";

// acos z = pi/2 - asin z.
constexpr const char* kAcos = R"($Q$T $N($T z) {
  $T a = $asin_c(z);
  $T r;
  r.re = ($R)1.57079632679489661923 - a.re;
  r.im = -a.im;
  return r;
}
)";

// acosh z = log(z + sqrt(z + 1) sqrt(z - 1)): the principal branch.
constexpr const char* kAcosh = R"($Q$T $N($T z) {
  $T p = z, m = z;
  p.re = z.re + 1;
  m.re = z.re - 1;
  p = $sqrt_c(p);
  m = $sqrt_c(m);
  $T s;
  s.re = z.re + (p.re * m.re - p.im * m.im);
  s.im = z.im + (p.re * m.im + p.im * m.re);
  return $log_c(s);
}
)";

// atanh z = (log(1 + z) - log(1 - z)) / 2.
constexpr const char* kAtanh = R"($Q$T $N($T z) {
  $T a = z, b = z;
  a.re = 1 + z.re;
  b.re = 1 - z.re;
  b.im = -z.im;
  a = $log_c(a);
  b = $log_c(b);
  $T r;
  r.re = (a.re - b.re) * ($R)0.5;
  r.im = (a.im - b.im) * ($R)0.5;
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

// tan z = -i tanh(iz), asin z = -i asinh(iz), atan z = -i atanh(iz): one text, `inner`
// the token of the helper it goes through.
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
  static const std::string tan = minus_i_of_iz("$tanh_c"), asin = minus_i_of_iz("$asinh_c"),
                           atan = minus_i_of_iz("$atanh_c");
  return helper == Helper::ComplexTan    ? tan.c_str()
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
    case Helper::ComplexSqrt:
      return {kSqrt, {}};
    case Helper::ComplexSin:
      return {kSin, {}};
    case Helper::ComplexCos:
      return {kCos, {}};
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
      return {kAcos, {Helper::ComplexAsin}};
    case Helper::ComplexAtan:
      return {through_iz(helper), {Helper::ComplexAtanh}};
    case Helper::ComplexAsinh:
      return {kAsinh, {Helper::ComplexSqrt, Helper::ComplexLog}};
    case Helper::ComplexAcosh:
      return {kAcosh, {Helper::ComplexSqrt, Helper::ComplexLog}};
    case Helper::ComplexAtanh:
      return {kAtanh, {Helper::ComplexLog}};
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
