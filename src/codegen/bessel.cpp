// The Bessel functions of cuda.libdevice (j0 j1 y0 y1 jn yn and their float
// forms) for OpenCL C and the CPU, which have none: piecewise polynomial fits
// (bessel_tables.inc, from scripts/gen_bessel_tables.py) for x < 8, the Hankel
// asymptotic form with fitted P and Q for x >= 8, and recurrences for order n.
// CUDA calls its own functions (sema/libdevice.cpp).
#include <cstdio>
#include <string>

#include "codegen/helpers.h"

namespace simt::codegen {

namespace {

#include "codegen/bessel_tables.inc"

// Rows of a table (bessel_tables.inc): the small piece, the mid pieces, P, Q.
constexpr int kMidPieces = 5;   // x in [3, 8], one per unit interval
constexpr int kSmallEnd = 3;    // the small piece is a polynomial in x*x for x < 3
constexpr int kLargeStart = 8;  // the Hankel form from here
constexpr int kRowP = 1 + kMidPieces;

struct Writer {
  bool single;  // float: literals carry the f suffix (OpenCL devices may lack double)

  std::string lit(double v) const {
    char buf[40];
    std::snprintf(buf, sizeof buf, "%.17g", v);
    std::string s = buf;
    if (s.find_first_of(".e") == std::string::npos) s += ".0";
    return single ? s + "f" : s;
  }
  // c[0] + t * (c[1] + t * (...)), by Horner's rule.
  std::string poly(const double* c, int n, const std::string& t) const {
    std::string s = lit(c[n - 1]);
    for (int k = n - 2; k >= 0; --k) s = lit(c[k]) + " + " + t + " * (" + s + ")";
    return "(" + s + ")";
  }
};

// One of j0 j1 y0 y1: how its helper starts (special values, x), its small
// piece and its Hankel combination (p, q, s = sin x, c = cos x).
struct Order {
  Helper helper;
  const double (*table)[kMid];
  const double (*hankel)[kMid];  // the J table of the same order: P and Q
  const char* start;
  const char* small;  // with S for the small polynomial
  const char* sign;   // the factor of the mid and large pieces
  const char* large;
  Helper calls;  // the helper its small piece calls (itself: none)
};

// J1 is odd: small x keep the argument's sign (j1(-0) is -0), the others
// multiply by it. y0 and y1 of negative x (and NaN) are NaN, of 0 -inf: log's.
const Order kOrders[] = {
    {Helper::BesselJ0, kJ0, kJ0,
     "  $T x = $fabs(a);\n  if (x != x) return x;\n  if (x - x != 0) return 0;\n", "S", "",
     "(p * (c + s) - q * (s - c))", Helper::BesselJ0},
    {Helper::BesselJ1, kJ1, kJ1,
     "  $T x = $fabs(a);\n  if (x != x) return x;\n  if (x - x != 0) return 0;\n  $T sg = a < 0 ? "
     "-1 : 1;\n",
     "a * S", "sg * ", "(p * (s - c) + q * (s + c))", Helper::BesselJ1},
    {Helper::BesselY0, kY0, kJ0,
     "  if (!(a >= 0)) return $log(a);\n  if (a - a != 0) return 0;\n  $T x = a;\n",
     "S + @2pi * $log(x) * $j0(x)", "", "(p * (s - c) + q * (c + s))", Helper::BesselJ0},
    {Helper::BesselY1, kY1, kJ1,
     "  if (!(a >= 0) || a == 0) return $log(a);\n  if (a - a != 0) return 0;\n  $T x = a;\n",
     "x * S + @2pi * ($log(x) * $j1(x) - 1 / x)", "", "(q * (s - c) - p * (s + c))",
     Helper::BesselJ1},
};

std::string replace(std::string s, const std::string& from, const std::string& to) {
  for (size_t k = s.find(from); k != std::string::npos; k = s.find(from, k + to.size()))
    s.replace(k, from.size(), to);
  return s;
}

std::string order_text(const Order& o, const Writer& w) {
  std::string s = "$Q$T $N($T a) {\n" + std::string(o.start);
  s += "  if (x < " + std::to_string(kSmallEnd) + ") return " +
       replace(replace(o.small, "S", w.poly(o.table[0], kSmall, "(x * x)")), "@2pi",
               w.lit(0.63661977236758134308)) +
       ";\n";
  // x in [3, 8): the unit interval's polynomial in x - (its middle).
  s += "  if (x < " + std::to_string(kLargeStart) + ") {\n";
  for (int k = 0; k < kMidPieces; ++k) {
    int lo = kSmallEnd + k;
    s += "    if (x < " + std::to_string(lo + 1) + ") return " + o.sign +
         w.poly(o.table[1 + k], kMid, "(x - " + w.lit(lo + 0.5) + ")") + ";\n";
  }
  s += "  }\n";
  // x >= 8: P and Q, and sin x and cos x, whose sums and differences are
  // sqrt(2) times the cosine and sine of x - pi/4 and x - 3pi/4 (the
  // library's sin and cos reduce large x exactly). t underflows to 0 for
  // huge x, where P = 1 and Q = 0 hold.
  s += "  $T t = " + w.lit(64) + " / (x * x);\n  $T p = " + w.poly(o.hankel[kRowP], kLarge, "t") +
       ";\n  $T q = " + w.poly(o.hankel[kRowP + 1], kLarge, "t") +
       " / x;\n  $T s = $sin(x), c = $cos(x);\n  return " + o.sign + o.large + " * (" +
       w.lit(0.56418958354775628695) + " / $sqrt(x));  // 1 / sqrt(pi x)\n}\n";
  return s;
}

// J_n for n >= 2 (CUDA: NaN for n < 0), by the direction of the recurrence
// J_{k-1} + J_{k+1} = (2k / x) J_k that is stable: forward from J_0 and J_1
// while k < x; for n >= x, Miller's backward recurrence from far above n (any
// start values: the dominant solution there is J's), normalized by J_0 or J_1,
// whichever is larger (they have no common zero); below x = 2 the power series
// (x/2)^n / n! * sum_k (-x^2/4)^k / (k! (n+1)...(n+k)), whose terms fall by 3+
// at each step. |J_n(x)| <= (x/2)^n / n! bounds the start of the backward
// recurrence: below the smallest subnormal the result is 0.
constexpr const char* kJn = R"($Q$T $N(int n, $T a) {
  if (n < 0 || a != a) return $log(n < 0 ? (a - a) - 1 : a);  // NaN: log(-1) or log(NaN)
  $T x = $fabs(a);
  $T sg = a < 0 && (n & 1) ? -1 : 1;
  if (n == 0) return $j0(x);
  if (n == 1) return $j1(a);
  if (x == 0 || x - x != 0) return sg * 0;
  $T nn = ($T)n;
  if (x < 2) {
    $T h = x * @half, term = 1;
    for (int k = 1; k <= n && term != 0; ++k) term = term * h / ($T)k;
    $T u = 1, sum = 1;
    for (int k = 1; k < 40 && $fabs(u) > @eps * $fabs(sum); ++k) {
      u = u * (-h * h) / (($T)k * (nn + ($T)k));
      sum += u;
    }
    return sg * term * sum;
  }
  if (x > nn) {
    $T prev = $j0(x), cur = $j1(x);
    for (int k = 1; k < n; ++k) {
      $T next = 2 * ($T)k / x * cur - prev;
      prev = cur;
      cur = next;
    }
    return sg * cur;
  }
  if (nn * $log(x * @half) - $lgamma(nn + 1) < @underflow) return sg * 0;
  $T start = nn + 20 + $sqrt(160 * nn);
  int top = start > 2.0e9@f ? 2000000000 : (int)start;
  $T above = 0, cur = 1, vn = 0, v1 = 0;
  for (int k = top; k > 0; --k) {
    $T below = 2 * ($T)k / x * cur - above;
    above = cur;
    cur = below;
    if (k - 1 == n) vn = cur;
    if (k == 2) v1 = cur;
    if ($fabs(cur) > @big) {  // rescale by a power of two: the ratios stay exact
      cur *= @small;
      above *= @small;
      vn *= @small;
      v1 *= @small;
    }
  }
  $T j0 = $j0(x), j1 = $j1(x);
  return sg * ($fabs(j0) >= $fabs(j1) ? vn * (j0 / cur) : vn * (j1 / v1));
}
)";

// Y_n (CUDA: NaN for n < 0 or x < 0, -inf at 0) by the forward recurrence,
// stable for Y at every k; once it reaches -inf it stays there.
constexpr const char* kYn = R"($Q$T $N(int n, $T x) {
  if (n < 0) return $log((x - x) - 1);
  if (n == 0) return $y0(x);
  if (n == 1 || !(x > 0)) return $y1(x);
  $T prev = $y0(x), cur = $y1(x);
  for (int k = 1; k < n && cur - cur == 0; ++k) {
    $T next = 2 * ($T)k / x * cur - prev;
    prev = cur;
    cur = next;
  }
  return cur;
}
)";

}  // namespace

BesselText bessel_text(Helper helper, sema::Scalar type) {
  Writer w{type == sema::Scalar::Float32};
  for (const Order& o : kOrders)
    if (o.helper == helper)
      return {order_text(o, w), o.calls == helper ? std::vector<Helper>{} : std::vector{o.calls}};
  bool j = helper == Helper::BesselJn;
  std::string s = j ? kJn : kYn;
  const bool single = w.single;
  for (auto [token, value] : {std::pair<const char*, double>{"@half", 0.5},
                              {"@eps", single ? 0x1p-25 : 0x1p-54},
                              {"@underflow", single ? -105.0 : -746.0},
                              {"@big", 0x1p64},
                              {"@small", 0x1p-64}})
    s = replace(s, token, w.lit(value));
  s = replace(s, "@f", single ? "f" : "");
  if (j) return {s, {Helper::BesselJ0, Helper::BesselJ1}};
  return {s, {Helper::BesselY0, Helper::BesselY1}};
}

}  // namespace simt::codegen
