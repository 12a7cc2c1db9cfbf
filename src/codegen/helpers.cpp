#include "codegen/helpers.h"

#include <map>
#include <stdexcept>

namespace simt::codegen {

namespace {

using sema::Scalar;

// Placeholders in the templates: $Q function prefix, $T value type, $U the
// unsigned type integer arithmetic wraps in (at least 32 bits, so narrow
// types never promote to a signed int that could overflow), $W bit width,
// $R the real part type of a complex, $N the helper's own name, $fabs and
// the like: the dialect's math function for $T (or $R).
constexpr const char* kFloorDivSigned = R"($Q$T $N($T a, $T b) {
  if (b == 0) return 0;
  if (b == -1) return ($T)(0u - ($U)a);
  $T q = ($T)(a / b);
  if ((a % b != 0) && ((a < 0) != (b < 0))) q = ($T)(q - 1);
  return q;
}
)";

constexpr const char* kFloorDivUnsigned = R"($Q$T $N($T a, $T b) {
  return b == 0 ? ($T)0 : ($T)(a / b);
}
)";

constexpr const char* kModSigned = R"($Q$T $N($T a, $T b) {
  if (b == 0 || b == -1) return 0;
  $T r = ($T)(a % b);
  if (r != 0 && ((r < 0) != (b < 0))) r = ($T)(r + b);
  return r;
}
)";

constexpr const char* kModUnsigned = R"($Q$T $N($T a, $T b) {
  return b == 0 ? ($T)0 : ($T)(a % b);
}
)";

// NumPy's npy_divmod: the quotient is rounded so that a == q * b + r holds
// as closely as floating point allows.
constexpr const char* kFloorDivFloat = R"($Q$T $N($T a, $T b) {
  if (b == 0) return a / b;
  $T mod = $fmod(a, b);
  $T div = (a - mod) / b;
  if (mod != 0 && ((b < 0) != (mod < 0))) div -= 1;
  if (div == 0) return $copysign(($T)0, a / b);
  $T floordiv = $floor(div);
  if (div - floordiv > ($T)0.5) floordiv += 1;
  return floordiv;
}
)";

constexpr const char* kModFloat = R"($Q$T $N($T a, $T b) {
  $T mod = $fmod(a, b);
  if (b == 0) return mod;
  if (mod != 0) {
    if ((b < 0) != (mod < 0)) mod += b;
  } else {
    mod = $copysign(($T)0, b);
  }
  return mod;
}
)";

constexpr const char* kIntPow = R"($Q$T $N($T base, $T exponent) {
  if (exponent < 0) {
    if (base == 1) return 1;
    if (base == ($T)-1) return (exponent & 1) ? ($T)-1 : ($T)1;
    return 0;
  }
  $U result = 1u, factor = ($U)base;
  while (exponent != 0) {
    if (exponent & 1) result *= factor;
    factor *= factor;
    exponent = ($T)(exponent >> 1);
  }
  return ($T)result;
}
)";

constexpr const char* kShiftLeft = R"($Q$T $N($T a, $T b) {
  if (b < 0 || b >= $W) return 0;
  return ($T)(($U)a << b);
}
)";

constexpr const char* kShiftRight = R"($Q$T $N($T a, $T b) {
  if (b < 0 || b >= $W) return a < 0 ? ($T)-1 : ($T)0;
  return ($T)(a >> b);
}
)";

constexpr const char* kWrapIndex = R"($Qsimt_i64 $N(simt_i64 i, simt_i64 n) {
  return i < 0 ? i + n : i;
}
)";

// The CPU keeps local arrays beside its own frames and heap blocks: an
// index outside one ends the block through the runtime
// (backends/cpu/fault_guard.h, simt_index_fault) instead of writing there.
constexpr const char* kContainIndex =
    R"(extern "C" __attribute__((noreturn, cold)) void simt_index_fault(simt_i64, simt_i64);
$Qsimt_i64 $N(simt_i64 i, simt_i64 n) {
  if (__builtin_expect((unsigned long long)i < (unsigned long long)n, 1)) return i;
  if (i < 0 && i >= -n) return i + n;
  simt_index_fault(i, n);
}
)";

// A slice bound of an axis of n elements, as NumPy (PySlice_AdjustIndices)
// clamps it: negative bounds count from the end, and bounds past either end
// stop there (-1 is "before the first" for a negative step).
constexpr const char* kSliceClamp = R"($Qsimt_i64 $N(simt_i64 i, simt_i64 n, simt_i64 step) {
  if (i < 0) {
    i += n;
    if (i < 0) i = step < 0 ? -1 : 0;
  } else if (i >= n) {
    i = step < 0 ? n - 1 : n;
  }
  return i;
}
)";

// How many elements a clamped slice selects; a step of 0 (Python raises) none.
constexpr const char* kSliceLength = R"($Qsimt_i64 $N(simt_i64 lo, simt_i64 hi, simt_i64 step) {
  if (step < 0) return hi < lo ? (lo - hi - 1) / (0 - step) + 1 : 0;
  if (step > 0) return lo < hi ? (hi - lo - 1) / step + 1 : 0;
  return 0;
}
)";

// Python's round(x, n): x * 10**n rounded half to even by its exact value. The product in
// floating point is exact enough except at a tie (y exactly k + 0.5), where the exact
// product decides the side: fma gives x * p - y exactly (10**n is exact up to n = 22).
// A value whose spacing is at least 10**-n has no digits there to round: it stays x
// (also where the product would overflow). Literals as float: no double on OpenCL
// devices without it.
constexpr const char* kRoundDigits = R"($Q$T $N($T x, simt_i64 ndigits) {
  if (x - x != 0 || x == 0) return x;
  $T integral = $W == 64 ? ($T)4503599627370496.0f : ($T)8388608.0f;  // 2**52, 2**23
  if (ndigits >= 0) {
    if ($fabs(x) >= integral) return x;
    $T p = $pow(($T)10, ($T)ndigits);
    $T y = x * p;
    if (y - y != 0) return x;
    $T r = $rint(y);
    if ($fabs(y - r) == ($T)0.5) {
      $T e = $fma(x, p, -y);
      if (e > 0) r = $floor(y) + 1;
      if (e < 0) r = $floor(y);
    }
    return r / p;
  }
  $T p = $pow(($T)10, ($T)-ndigits);
  $T y = x / p;
  if ($fabs(y) >= integral) return x;
  $T r = $rint(y);
  if ($fabs(y - r) == ($T)0.5) {
    $T e = $fma(y, p, -x);
    if (e > 0) r = $floor(y);
    if (e < 0) r = $floor(y) + 1;
  }
  return r * p;
}
)";

constexpr const char* kFloatToInt = R"($Q$T $N(double x) {
  if (x != x) return 0;
  if (x <= (double)$MIN) return $MIN;
  if (x >= (double)$MAX) return $MAX;
  return ($T)x;
}
)";

// Exact for float too: every integer type's minimum is a power of two, and a
// maximum that rounds up to one is still compared with >=.
constexpr const char* kFloat32ToInt = R"($Q$T $N(float x) {
  if (x != x) return 0;
  if (x <= (float)$MIN) return $MIN;
  if (x >= (float)$MAX) return $MAX;
  return ($T)x;
}
)";

constexpr const char* kHalfToFloat = R"($Qfloat $N(unsigned short h) {
  unsigned int sign = ((unsigned int)h & 0x8000u) << 16;
  unsigned int exponent = ((unsigned int)h >> 10) & 0x1fu;
  unsigned int mantissa = (unsigned int)h & 0x3ffu;
  unsigned int bits;
  if (exponent == 0x1fu) {
    bits = sign | 0x7f800000u | (mantissa << 13);
  } else if (exponent != 0) {
    bits = sign | ((exponent + 112u) << 23) | (mantissa << 13);
  } else if (mantissa == 0) {
    bits = sign;
  } else {
    exponent = 113u;
    while ((mantissa & 0x400u) == 0) {
      mantissa <<= 1;
      exponent -= 1;
    }
    bits = sign | (exponent << 23) | ((mantissa & 0x3ffu) << 13);
  }
  return $uint_as_float(bits);
}
)";

constexpr const char* kFloatToHalf = R"($Qunsigned short $N(float f) {
  unsigned int x = $float_as_uint(f);
  unsigned int sign = (x >> 16) & 0x8000u;
  unsigned int magnitude = x & 0x7fffffffu;
  if (magnitude == 0x7f800000u) return (unsigned short)(sign | 0x7c00u);
  if (magnitude > 0x7f800000u) {
    // A NaN keeps its payload's top 10 bits, as NumPy's conversion does (a float16
    // copied through a float register comes back bit for bit); one that had only
    // lower bits gets payload 1, so it stays a NaN.
    unsigned int payload = (magnitude & 0x7fffffu) >> 13;
    return (unsigned short)(sign | 0x7c00u | (payload != 0u ? payload : 1u));
  }
  if (magnitude >= 0x477ff000u) return (unsigned short)(sign | 0x7c00u);
  if (magnitude < 0x38800000u) {
    if (magnitude <= 0x33000000u) return (unsigned short)sign;
    unsigned int shift = 126u - (magnitude >> 23);
    unsigned int mantissa = (magnitude & 0x7fffffu) | 0x800000u;
    unsigned int q = mantissa >> shift;
    unsigned int rest = mantissa & ((1u << shift) - 1u);
    unsigned int halfway = 1u << (shift - 1u);
    if (rest > halfway || (rest == halfway && (q & 1u))) q += 1u;
    return (unsigned short)(sign | q);
  }
  unsigned int r = magnitude - 0x38000000u;
  r += 0xfffu + ((r >> 13) & 1u);
  return (unsigned short)(sign | (r >> 13));
}
)";

constexpr const char* kRoundHalf = R"($Qfloat $N(float x) {
  return simt_h2f(simt_f2h(x));
}
)";

// double -> float16 in one rounding: first to float rounding to odd (the
// truncation, with its last bit set when inexact), which float's 24 bits make
// exact for a second rounding to float16's 11 (24 >= 2 * 11 + 2).
constexpr const char* kRoundHalfFromDouble = R"($Qfloat $N(double x) {
  float f = (float)x;
  if ((double)f != x && x == x) {
    unsigned int bits = $float_as_uint(f);
    if ($fabs((double)f) > $fabs(x)) bits -= 1u;
    bits |= 1u;
    f = $uint_as_float(bits);
  }
  return simt_round_f16(f);
}
)";

constexpr const char* kComplexType = R"(typedef struct {
  $R re;
  $R im;
} $T;
)";

constexpr const char* kComplexMake = R"($Q$T $N($R re, $R im) {
  $T z;
  z.re = re;
  z.im = im;
  return z;
}
)";

constexpr const char* kComplexAdd = R"($Q$T $N($T a, $T b) {
  a.re += b.re;
  a.im += b.im;
  return a;
}
)";

constexpr const char* kComplexSub = R"($Q$T $N($T a, $T b) {
  a.re -= b.re;
  a.im -= b.im;
  return a;
}
)";

constexpr const char* kComplexMul = R"($Q$T $N($T a, $T b) {
  $T z;
  z.re = a.re * b.re - a.im * b.im;
  z.im = a.re * b.im + a.im * b.re;
  return z;
}
)";

// Smith's algorithm, as NumPy divides complex numbers.
constexpr const char* kComplexDiv = R"($Q$T $N($T a, $T b) {
  $R abs_re = $fabs(b.re), abs_im = $fabs(b.im);
  $T z;
  if (abs_re >= abs_im) {
    if (abs_re == 0 && abs_im == 0) {
      z.re = a.re / abs_re;
      z.im = a.im / abs_re;
      return z;
    }
    $R ratio = b.im / b.re;
    $R scale = ($R)1 / (b.re + b.im * ratio);
    z.re = (a.re + a.im * ratio) * scale;
    z.im = (a.im - a.re * ratio) * scale;
  } else {
    $R ratio = b.re / b.im;
    $R scale = ($R)1 / (b.im + b.re * ratio);
    z.re = (a.re * ratio + a.im) * scale;
    z.im = (a.im * ratio - a.re) * scale;
  }
  return z;
}
)";

constexpr const char* kComplexNeg = R"($Q$T $N($T a) {
  a.re = -a.re;
  a.im = -a.im;
  return a;
}
)";

constexpr const char* kComplexEq = R"($Qbool $N($T a, $T b) {
  return a.re == b.re && a.im == b.im;
}
)";

constexpr const char* kComplexAbs = R"($Q$R $N($T a) {
  return $hypot(a.re, a.im);
}
)";

constexpr const char* kComplexTruth = R"($Qbool $N($T a) {
  return a.re != 0 || a.im != 0;
}
)";

// Numba's integer bit functions, over the value's $W bits ($U: the 32- or 64-bit unsigned
// type holding them). Portable C loops, one per dialect's compiler to turn into its
// instruction where it recognizes the idiom.
constexpr const char* kPopCount = R"($Q$T $N($T x) {
  $U v = ($U)x;
  if ($W < 32) v &= (($U)1 << ($W % 32)) - 1;
  $T n = 0;
  while (v != 0) {
    v &= v - 1;
    ++n;
  }
  return n;
}
)";

constexpr const char* kCountLeadingZeros = R"($Q$T $N($T x) {
  $U v = ($U)x;
  if ($W < 32) v &= (($U)1 << ($W % 32)) - 1;
  $T n = $W;
  while (v != 0) {
    v >>= 1;
    --n;
  }
  return n;
}
)";

constexpr const char* kFindFirstSet = R"($Qint $N($T x) {
  $U v = ($U)x;
  if ($W < 32) v &= (($U)1 << ($W % 32)) - 1;
  if (v == 0) return 0;
  int n = 1;
  while ((v & 1) == 0) {
    v >>= 1;
    ++n;
  }
  return n;
}
)";

constexpr const char* kBitReverse = R"($Q$T $N($T x) {
  $U v = ($U)x;
  $U r = 0;
  for (int k = 0; k < $W; ++k) {
    r = (r << 1) | (v & 1);
    v >>= 1;
  }
  return ($T)r;
}
)";

// cuda.fp16.hfma: a * b of float16 values is exact in float (11 + 11 bits),
// and the rounding error of + c is exactly representable (TwoSum, no
// multiplications for a compiler to contract). The sum rounded to odd (the
// neighbour with its last bit set where inexact) rounds to float16 once,
// correctly, as float's 24 bits >= 2 * 11 + 2; no double needed.
constexpr const char* kHalfFma = R"($Qfloat $N(float a, float b, float c) {
  float p = a * b;
  float f = p + c;
  float t = f - p;
  float err = (p - (f - t)) + (c - t);
  if (err != 0.0f && err == err) {
    unsigned int bits = $float_as_uint(f);
    if ((bits & 1u) == 0u) bits = ((err > 0.0f) == (f > 0.0f)) ? bits + 1u : bits - 1u;
    f = $uint_as_float(bits);
  }
  return simt_round_f16(f);
}
)";

struct HelperInfo {
  const char* prefix;  // helper names are simt_<prefix>_<type suffix>
  bool per_type;       // false: one definition for all types
};

// The sign (-1, 0, 1) of the exact a * b + c - r, where r = fma(a, b, c) is
// rounded to nearest; what libdevice's directed fma (fma_rd, ...) steps r by.
// An fma's error is not one float (unlike a product's or a sum's), so the
// exact sum is kept as a few floats instead. $P is the type's precision p.
//
// Special values first: a NaN or infinite operand gives an exact (or NaN)
// result, 0; finite operands with an infinite r overflowed, so the exact value
// lies toward zero from r. A zero factor gives r = c exactly.
//
// Then a = ma 2^ea, b = mb 2^eb with |ma|, |mb| in [1/2, 1) (frexp, exact,
// subnormals included), k = ea + eb: a b = 2^k ma mb, and ma mb is a multiple
// of 2^-2p in [1/4, 1), so ph = RN(ma mb) and pl = fma(ma, mb, -ph) give
// ma mb = ph + pl exactly (far from underflow). Three cases by c's exponent:
//
// (A) |c| >= 2^(k+p+2) > 2^(p+2) |a b|: r is within a factor 2 of c, so c - r
//     is exact (Sterbenz) and, when not 0, at least half an ulp of c (or the
//     smallest subnormal), which is more than |a b|: the sign is c - r's, or
//     a b's when c = r.
// (B) |c| < 2^(k-2p), below a b's last bit: r's last bit is at or above it
//     (r is within a factor 2 of a b or 0), so a b - r is 0 or larger than |c|
//     in magnitude. The sign is a b - r's, or c's when that is 0; both hold
//     for any stand-in c with c's sign below 2^(k-2p): 2^(k-2p-2) is used.
// (C) otherwise c and the stand-in are scaled by 2^-k exactly (c' in
//     [2^-2p, 2^(p+2)), normal), and so is r: r' = r 2^-k is 0 or at least
//     2^-3p (a b + c is a multiple of 2^(k-3p) in (C), a bound r keeps) and
//     below 2^(p+4).
// With (B) and (C), ph + pl + c' - r' = 2^-k (a b + c - r) exactly, four
// floats far from overflow and underflow. Adding c', then -r' into the
// expansion (pl, ph) by two-sums (Shewchuk's Grow-Expansion, exact: each
// two-sum's s + e equals its operands' sum) gives a nonoverlapping expansion
// (Shewchuk 1997, theorem 10, round-to-even); in one, the terms below the
// largest nonzero term sum to less than its last bit, so that term's sign is
// the sign of the whole.
// cuda.selp: a function's arguments are all evaluated, as Python's (and PTX's selp) are, so
// the compiler selects between two values it has, where C's `c ? a : b` would branch around
// a load only one side needs.
constexpr const char* kSelect = R"($Q$T $N(bool c, $T a, $T b) {
  return c ? a : b;
}
)";

constexpr const char* kFmaErrorSign = R"($Q$T $N_two_sum($T x, $T y, $T* e) {
  $T s = x + y;
  $T v = s - x;
  *e = (x - (s - v)) + (y - v);
  return s;
}
$Qint $N($T a, $T b, $T c, $T r) {
  if (r != r || a - a != 0 || b - b != 0 || c - c != 0) return 0;
  if (r - r != 0) return r > 0 ? -1 : 1;
  if (a == 0 || b == 0) return 0;
  int ea, eb;
  $T ma = $frexp(a, &ea), mb = $frexp(b, &eb);
  int k = ea + eb;
  $T ph = ma * mb;
  $T pl = $fma(ma, mb, -ph);
  if (c != 0 && $ilogb(c) >= k + $P + 2) return c > r ? 1 : c < r ? -1 : ph > 0 ? 1 : -1;
  $T cs = c == 0 || $ilogb(c) >= k - 2 * $P ? $ldexp(c, -k)
                                           : $copysign($ldexp(($T)1, -2 * $P - 2), c);
  $T h0, h1, g0, g1, g2;
  $T q = $N_two_sum(cs, pl, &h0);
  $T h2 = $N_two_sum(q, ph, &h1);
  q = $N_two_sum(-$ldexp(r, -k), h0, &g0);
  q = $N_two_sum(q, h1, &g1);
  $T g3 = $N_two_sum(q, h2, &g2);
  $T top = g3 != 0 ? g3 : g2 != 0 ? g2 : g1 != 0 ? g1 : g0;
  return top > 0 ? 1 : top < 0 ? -1 : 0;
}
)";

HelperInfo helper_info(Helper h) {
  switch (h) {
    case Helper::FloorDiv:
      return {"floordiv", true};
    case Helper::Mod:
      return {"mod", true};
    case Helper::IntPow:
      return {"ipow", true};
    case Helper::ShiftLeft:
      return {"shl", true};
    case Helper::ShiftRight:
      return {"shr", true};
    case Helper::WrapIndex:
      return {"wrap_index", false};
    case Helper::ContainIndex:
      return {"contain_index", false};
    case Helper::SliceClamp:
      return {"slice_clamp", false};
    case Helper::SliceLength:
      return {"slice_length", false};
    case Helper::RoundDigits:
      return {"round_digits", true};
    case Helper::FloatToInt:
      return {"f2int", true};
    case Helper::Float32ToInt:
      return {"f32_to_int", true};
    case Helper::HalfToFloat:
      return {"h2f", false};
    case Helper::FloatToHalf:
      return {"f2h", false};
    case Helper::RoundHalf:
      return {"round_f16", false};
    case Helper::RoundHalfFromDouble:
      return {"round_f16_from_f64", false};
    case Helper::HalfFromInt:
      return {"int_to_f16", true};
    case Helper::HalfAdd:
      return {"hadd", false};
    case Helper::HalfSub:
      return {"hsub", false};
    case Helper::HalfMul:
      return {"hmul", false};
    case Helper::HalfNeg:
      return {"hneg", false};
    case Helper::HalfAbs:
      return {"habs", false};
    case Helper::HalfLt:
      return {"hlt", false};
    case Helper::HalfLe:
      return {"hle", false};
    case Helper::HalfGt:
      return {"hgt", false};
    case Helper::HalfGe:
      return {"hge", false};
    case Helper::HalfEq:
      return {"heq", false};
    case Helper::HalfNe:
      return {"hne", false};
    case Helper::ComplexType:
      return {"", true};
    case Helper::ComplexMake:
      return {"make", true};
    case Helper::ComplexAdd:
      return {"cadd", true};
    case Helper::ComplexSub:
      return {"csub", true};
    case Helper::ComplexMul:
      return {"cmul", true};
    case Helper::ComplexDiv:
      return {"cdiv", true};
    case Helper::ComplexNeg:
      return {"cneg", true};
    case Helper::ComplexEq:
      return {"ceq", true};
    case Helper::ComplexAbs:
      return {"cabs", true};
    case Helper::ComplexTruth:
      return {"ctruth", true};
    case Helper::ComplexExp:
      return {"cexp", true};
    case Helper::ComplexLog:
      return {"clog", true};
    case Helper::ComplexLog10:
      return {"clog10", true};
    case Helper::ComplexLogBase:
      return {"clogb", true};
    case Helper::ComplexSqrt:
      return {"csqrt", true};
    case Helper::ComplexSin:
      return {"csin", true};
    case Helper::ComplexCos:
      return {"ccos", true};
    case Helper::ComplexTan:
      return {"ctan", true};
    case Helper::ComplexSinh:
      return {"csinh", true};
    case Helper::ComplexCosh:
      return {"ccosh", true};
    case Helper::ComplexTanh:
      return {"ctanh", true};
    case Helper::ComplexAsin:
      return {"casin", true};
    case Helper::ComplexAcos:
      return {"cacos", true};
    case Helper::ComplexAtan:
      return {"catan", true};
    case Helper::ComplexAsinh:
      return {"casinh", true};
    case Helper::ComplexAcosh:
      return {"cacosh", true};
    case Helper::ComplexAtanh:
      return {"catanh", true};
    case Helper::ComplexRect:
      return {"crect", true};
    case Helper::ComplexPow:
      return {"cpow", true};
    case Helper::PopCount:
      return {"popc", true};
    case Helper::CountLeadingZeros:
      return {"clz", true};
    case Helper::FindFirstSet:
      return {"ffs", true};
    case Helper::BitReverse:
      return {"brev", true};
    case Helper::HalfFma:
      return {"hfma", false};
    case Helper::FmaErrorSign:
      return {"fma_err", true};
    case Helper::Select:
      return {"select", true};
    case Helper::BesselJ0:
      return {"j0", true};
    case Helper::BesselJ1:
      return {"j1", true};
    case Helper::BesselY0:
      return {"y0", true};
    case Helper::BesselY1:
      return {"y1", true};
    case Helper::BesselJn:
      return {"jn", true};
    case Helper::BesselYn:
      return {"yn", true};
  }
  return {"", false};
}

void replace_all(std::string& s, const std::string& from, const std::string& to) {
  for (size_t pos = s.find(from); pos != std::string::npos; pos = s.find(from, pos + to.size()))
    s.replace(pos, from.size(), to);
}

std::string apply_pattern(std::string_view pattern, const std::string& x) {
  std::string s(pattern);
  replace_all(s, "%x", x);
  return s;
}

}  // namespace

std::string scalar_suffix(Scalar s) {
  switch (s) {
    case Scalar::Bool:
      return "b";
    case Scalar::Int8:
      return "i8";
    case Scalar::Int16:
      return "i16";
    case Scalar::Int32:
      return "i32";
    case Scalar::Int64:
      return "i64";
    case Scalar::UInt8:
      return "u8";
    case Scalar::UInt16:
      return "u16";
    case Scalar::UInt32:
      return "u32";
    case Scalar::UInt64:
      return "u64";
    case Scalar::Float16:
      return "f16";
    case Scalar::Float32:
      return "f32";
    case Scalar::Float64:
      return "f64";
    case Scalar::Complex64:
      return "c64";
    case Scalar::Complex128:
      return "c128";
  }
  return "?";
}

std::string HelperSet::use(Helper helper, Scalar type) {
  // float16 computes in float: its helpers are float's.
  if (type == Scalar::Float16 && helper != Helper::RoundHalf) type = Scalar::Float32;
  HelperInfo info = helper_info(helper);
  std::string name = helper == Helper::ComplexType ? std::string(dialect_.value_type(type))
                     : info.per_type
                         ? "simt_" + std::string(info.prefix) + "_" + scalar_suffix(type)
                         : "simt_" + std::string(info.prefix);
  // define() requests its dependencies first, so they are emitted before it.
  if (defined_.insert(name).second) code_.push_back(define(helper, type));
  return name;
}

namespace {

// The float16 helpers a dialect may define with the hardware's instructions
// (Dialect::native_half), and the comparison each compare helper makes (PTX's, C's).
struct NativeHalfRow {
  Helper helper;
  HalfOp op;
  std::string_view ptx_compare{}, c_compare{};
};
constexpr NativeHalfRow kNativeHalf[] = {
    {Helper::HalfToFloat, HalfOp::ToFloat},
    {Helper::FloatToHalf, HalfOp::FromFloat},
    {Helper::RoundHalfFromDouble, HalfOp::FromDouble},
    {Helper::HalfFromInt, HalfOp::FromInt},
    {Helper::HalfFma, HalfOp::Fma},
    {Helper::HalfAdd, HalfOp::Add},
    {Helper::HalfSub, HalfOp::Sub},
    {Helper::HalfMul, HalfOp::Mul},
    {Helper::HalfNeg, HalfOp::Neg},
    {Helper::HalfAbs, HalfOp::Abs},
    {Helper::HalfLt, HalfOp::Compare, "lt", "<"},
    {Helper::HalfLe, HalfOp::Compare, "le", "<="},
    {Helper::HalfGt, HalfOp::Compare, "gt", ">"},
    {Helper::HalfGe, HalfOp::Compare, "ge", ">="},
    {Helper::HalfEq, HalfOp::Compare, "eq", "=="},
    {Helper::HalfNe, HalfOp::Compare, "neu", "!="},
};

// An integer type's name in PTX: s8, u64, ...
std::string ptx_int_type(Scalar s) {
  return (sema::is_signed(s) ? "s" : "u") + std::to_string(sema::bit_width(s));
}

}  // namespace

bool HelperSet::has_native_half(HalfOp op) const { return !dialect_.native_half_op(op).empty(); }

std::optional<std::string> HelperSet::native_half_text(Helper helper, Scalar type) {
  const NativeHalfRow* row = nullptr;
  for (const NativeHalfRow& r : kNativeHalf)
    if (r.helper == helper) row = &r;
  if (!row || !has_native_half(row->op)) return std::nullopt;
  // The helpers the texts fall back on (older architectures, NaNs), defined first.
  if (row->op != HalfOp::ToFloat && row->op != HalfOp::FromFloat)
    use(Helper::RoundHalf, Scalar::Float16);
  if (row->op == HalfOp::Fma) use(Helper::RoundHalfFromDouble, Scalar::Float64);
  std::string s(dialect_.native_half_op(row->op));
  replace_all(s, "$op", std::string(row->ptx_compare));
  replace_all(s, "$c", std::string(row->c_compare));
  if (row->op == HalfOp::FromInt) {
    int bits = sema::bit_width(type);
    bool is_signed = sema::is_signed(type);
    replace_all(s, "$I", ptx_int_type(type));
    replace_all(s, "$K", bits <= 16 ? "h" : bits == 32 ? "r" : "l");
    replace_all(s, "$V",
                bits > 16   ? std::string(dialect_.value_type(type))
                : is_signed ? "short"
                            : "unsigned short");
  }
  return s;
}

std::string HelperSet::define(Helper helper, Scalar type) {
  const char* text = nullptr;
  std::string owned;  // a text composed here (the Bessel helpers')
  bool is_complex_helper = helper >= Helper::ComplexType && helper <= Helper::ComplexPow;
  // The complex functions name the helpers they call by tokens ($log_c: this type's
  // complex log), requested here so that they are defined first.
  std::vector<std::pair<std::string, std::string>> calls;
  // The dialect's own float16 instructions, where it has them, replace the portable text
  // (whose dependencies, requested below, the native texts fall back on).
  std::optional<std::string> native = native_half_text(helper, type);
  switch (helper) {
    case Helper::FloorDiv:
      text = sema::is_float(type)    ? kFloorDivFloat
             : sema::is_signed(type) ? kFloorDivSigned
                                     : kFloorDivUnsigned;
      break;
    case Helper::Mod:
      text = sema::is_float(type) ? kModFloat : sema::is_signed(type) ? kModSigned : kModUnsigned;
      break;
    case Helper::IntPow:
      text = kIntPow;
      break;
    case Helper::ShiftLeft:
      text = kShiftLeft;
      break;
    case Helper::ShiftRight:
      text = kShiftRight;
      break;
    case Helper::WrapIndex:
      text = kWrapIndex;
      break;
    case Helper::ContainIndex:
      text = kContainIndex;
      break;
    case Helper::SliceClamp:
      text = kSliceClamp;
      break;
    case Helper::SliceLength:
      text = kSliceLength;
      break;
    case Helper::RoundDigits:
      text = kRoundDigits;
      break;
    case Helper::FloatToInt:
      text = kFloatToInt;
      break;
    case Helper::Float32ToInt:
      text = kFloat32ToInt;
      break;
    case Helper::HalfToFloat:
      text = kHalfToFloat;
      break;
    case Helper::FloatToHalf:
      text = kFloatToHalf;
      break;
    case Helper::RoundHalf:
      use(Helper::HalfToFloat, Scalar::Float16);
      use(Helper::FloatToHalf, Scalar::Float16);
      text = kRoundHalf;
      break;
    case Helper::RoundHalfFromDouble:
      use(Helper::RoundHalf, Scalar::Float16);
      text = kRoundHalfFromDouble;
      break;
    case Helper::ComplexType:
      text = kComplexType;
      break;
    case Helper::ComplexMake:
      text = kComplexMake;
      break;
    case Helper::ComplexAdd:
      text = kComplexAdd;
      break;
    case Helper::ComplexSub:
      text = kComplexSub;
      break;
    case Helper::ComplexMul:
      text = kComplexMul;
      break;
    case Helper::ComplexDiv:
      text = kComplexDiv;
      break;
    case Helper::ComplexNeg:
      text = kComplexNeg;
      break;
    case Helper::ComplexEq:
      text = kComplexEq;
      break;
    case Helper::ComplexAbs:
      text = kComplexAbs;
      break;
    case Helper::ComplexTruth:
      text = kComplexTruth;
      break;
    case Helper::PopCount:
      text = kPopCount;
      break;
    case Helper::CountLeadingZeros:
      text = kCountLeadingZeros;
      break;
    case Helper::FindFirstSet:
      text = kFindFirstSet;
      break;
    case Helper::BitReverse:
      text = kBitReverse;
      break;
    case Helper::HalfFma:
      use(Helper::RoundHalf, Scalar::Float16);
      text = kHalfFma;
      break;
    case Helper::HalfFromInt:
    case Helper::HalfAdd:
    case Helper::HalfSub:
    case Helper::HalfMul:
    case Helper::HalfNeg:
    case Helper::HalfAbs:
    case Helper::HalfLt:
    case Helper::HalfLe:
    case Helper::HalfGt:
    case Helper::HalfGe:
    case Helper::HalfEq:
    case Helper::HalfNe:
      if (!native) throw std::logic_error("float16 instructions the dialect does not have");
      break;
    case Helper::FmaErrorSign:
      text = kFmaErrorSign;
      break;
    case Helper::Select:
      if (sema::is_complex(type)) use(Helper::ComplexType, type);
      text = kSelect;
      break;
    case Helper::BesselJ0:
    case Helper::BesselJ1:
    case Helper::BesselY0:
    case Helper::BesselY1:
    case Helper::BesselJn:
    case Helper::BesselYn: {
      BesselText bessel = bessel_text(helper, type);
      owned = std::move(bessel.text);
      text = owned.c_str();
      static constexpr std::pair<Helper, const char*> kTokens[] = {{Helper::BesselJ0, "$j0"},
                                                                   {Helper::BesselJ1, "$j1"},
                                                                   {Helper::BesselY0, "$y0"},
                                                                   {Helper::BesselY1, "$y1"}};
      for (Helper callee : bessel.calls)
        for (const auto& [h, token] : kTokens)
          if (h == callee) calls.emplace_back(token, use(callee, type));
      break;
    }
    default: {
      ComplexMathText math = complex_math_text(helper);
      text = math.text;
      for (Helper callee : math.calls) {
        static constexpr std::pair<Helper, const char*> kTokens[] = {
            {Helper::ComplexLog, "$log_c"},   {Helper::ComplexSqrt, "$sqrt_c"},
            {Helper::ComplexTanh, "$tanh_c"}, {Helper::ComplexAsinh, "$asinh_c"},
            {Helper::ComplexAsin, "$asin_c"}, {Helper::ComplexAtanh, "$atanh_c"},
            {Helper::ComplexDiv, "$div_c"},   {Helper::ComplexExp, "$exp_c"},
            {Helper::ComplexSinh, "$sinh_c"}, {Helper::ComplexCosh, "$cosh_c"},
        };
        for (const auto& [h, token] : kTokens)
          if (h == callee) calls.emplace_back(token, use(callee, type));
      }
      break;
    }
  }
  if (native) {
    owned = std::move(*native);
    text = owned.c_str();
  }
  if (is_complex_helper && helper != Helper::ComplexType) use(Helper::ComplexType, type);
  std::string s = text;
  Scalar real = sema::is_complex(type) ? sema::real_of(type) : type;
  Scalar work = sema::bit_width(type) <= 32 && sema::is_integer(type) ? Scalar::UInt32
                : sema::is_integer(type)                              ? Scalar::UInt64
                                                                      : type;
  HelperInfo info = helper_info(helper);
  std::string name = info.per_type ? "simt_" + std::string(info.prefix) + "_" + scalar_suffix(type)
                                   : "simt_" + std::string(info.prefix);
  replace_all(s, "$Q", std::string(dialect_.function_prefix));
  replace_all(s, "$N", name);
  replace_all(s, "$T", std::string(dialect_.value_type(type)));
  replace_all(s, "$U", std::string(dialect_.value_type(work)));
  replace_all(s, "$R", std::string(dialect_.value_type(real)));
  // complex64_work is double, or (OpenCL) a typedef of it where the device has doubles,
  // whose overloaded functions take either.
  const bool wide = real == Scalar::Float32 && !dialect_.complex64_work.empty();
  replace_all(s, "$V", std::string(wide ? dialect_.complex64_work : dialect_.value_type(real)));
  for (const char* fn : {"tanh", "tan", "cosh", "log", "hypot", "atan2", "fabs"})
    replace_all(s, std::string("$wide_") + fn,
                dialect_.math_name(fn, wide ? Scalar::Float64 : real));
  replace_all(s, "$W", std::to_string(sema::bit_width(type)));
  if (sema::is_float(type)) replace_all(s, "$P", type == Scalar::Float32 ? "24" : "53");
  if (helper == Helper::FloatToInt || helper == Helper::Float32ToInt) {
    // The target's range as C literals (the most negative one as an expression).
    int bits = sema::bit_width(type);
    std::string t(dialect_.value_type(type));
    std::string min, max;
    if (sema::is_unsigned(type)) {
      min = "(" + t + ")0";
      max = bits == 64 ? "18446744073709551615" + std::string(dialect_.uint64_suffix)
                       : "(" + t + ")" + std::to_string((uint64_t{1} << bits) - 1) + "u";
    } else {
      std::string suffix = bits == 64 ? std::string(dialect_.int64_suffix) : "";
      uint64_t top = (uint64_t{1} << (bits - 1)) - 1;
      max = "(" + t + ")" + std::to_string(top) + suffix;
      min = "(" + t + ")(-" + std::to_string(top) + suffix + " - 1)";
    }
    replace_all(s, "$MIN", min);
    replace_all(s, "$MAX", max);
  }
  for (const auto& [token, callee] : calls) replace_all(s, token, callee);
  // Longer names first: $sinh before $sin.
  for (const char* fn : {"fabs",  "fmod", "floor", "copysign", "rint",  "pow",   "hypot", "fma",
                         "asinh", "sinh", "cosh",  "tanh",     "atan2", "sqrt",  "exp",   "lgamma",
                         "log1p", "log",  "sin",   "cos",      "tan",   "frexp", "ldexp", "ilogb"})
    replace_all(s, std::string("$") + fn, dialect_.math_name(fn, real));
  replace_all(s, "$isnan", std::string(dialect_.isnan_name));
  replace_all(s, "$isinf", std::string(dialect_.isinf_name));
  replace_all(s, "$isfinite", std::string(dialect_.isfinite_name));
  replace_all(s, "$uint_as_float(bits)", apply_pattern(dialect_.uint_as_float, "bits"));
  replace_all(s, "$float_as_uint(f)", apply_pattern(dialect_.float_as_uint, "f"));
  return s;
}

std::string HelperSet::array_struct(const sema::Type& array) {
  std::string space = array.space == sema::Space::Shared     ? "shared_"
                      : array.space == sema::Space::Local    ? "local_"
                      : array.space == sema::Space::Constant ? "const_"
                                                             : "";
  // Defined first (its name names the array struct), so it comes before it.
  std::string element = element_type(array);
  std::string suffix = array.record ? element.substr(5)  // "rec0" of simt_rec0
                                    : scalar_suffix(array.scalar) + (array.packed ? "p" : "");
  std::string name = "simt_arr_" + space + suffix + "_" + std::to_string(array.ndim);
  if (!defined_.insert(name).second) return name;
  std::string n = std::to_string(array.ndim);
  code_.push_back("typedef struct {\n  " + std::string(dialect_.pointer_space(array.space)) +
                  element + "* data;\n  simt_i64 shape[" + n + "];\n  simt_i64 strides[" + n +
                  "];\n} " + name + ";\n");
  return name;
}

std::string HelperSet::record_struct(const abi::Record& record) {
  for (const auto& [known, name] : records_)
    if (known == record) return name;
  std::string name = "simt_rec" + std::to_string(records_.size());
  records_.emplace_back(record, name);
  // The layout as a comment, ASCII only (a field's name may not be).
  std::string layout = record.str();
  for (char& c : layout)
    if (static_cast<unsigned char>(c) < 0x20 || static_cast<unsigned char>(c) > 0x7e) c = '?';
  std::string code = std::string(dialect_.record_struct);
  for (const auto& [token, text] :
       {std::pair<std::string, std::string>{"%a", std::to_string(record.align)},
        {"%n", std::to_string(record.itemsize)},
        {"%N", name}}) {
    for (size_t at = code.find(token); at != std::string::npos;
         at = code.find(token, at + text.size()))
      code.replace(at, token.size(), text);
  }
  code_.push_back("// " + layout + "\n" + code);
  defined_.insert(name);
  return name;
}

std::string HelperSet::packed_struct(Scalar s) {
  std::string name = "simt_packed_" + scalar_suffix(s);
  if (defined_.count(name)) return name;
  if (sema::is_complex(s)) use(Helper::ComplexType, s);
  std::string code = std::string(dialect_.packed_struct);
  for (const auto& [token, text] :
       {std::pair<std::string, std::string>{"%T", std::string(dialect_.storage_type(s))},
        {"%N", name}}) {
    for (size_t at = code.find(token); at != std::string::npos;
         at = code.find(token, at + text.size()))
      code.replace(at, token.size(), text);
  }
  define_once(name, code);
  return name;
}

std::string HelperSet::element_type(const sema::Type& array) {
  if (array.record) return record_struct(*array.record);
  if (array.packed) return packed_struct(array.scalar);
  if (sema::is_complex(array.scalar)) use(Helper::ComplexType, array.scalar);
  return std::string(dialect_.storage_type(array.scalar));
}

void HelperSet::define_once(const std::string& name, const std::string& code) {
  if (defined_.insert(name).second) code_.push_back(code);
}

std::string HelperSet::definitions() const {
  std::string out;
  for (const auto& c : code_) out += c + "\n";
  return out;
}

}  // namespace simt::codegen
