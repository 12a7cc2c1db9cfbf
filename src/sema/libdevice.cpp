#include "sema/libdevice.h"

#include <deque>
#include <map>
#include <memory>

namespace simt::sema {

namespace {

using Rows = std::vector<LibdeviceFunction>;

Scalar scalar_of_code(char c) {
  switch (c) {
    case 'f':
      return Scalar::Float32;
    case 'd':
      return Scalar::Float64;
    case 'i':
      return Scalar::Int32;
    case 'h':
      return Scalar::Int16;
    default:
      return Scalar::Int64;
  }
}

// One row per precision: `name` (float64, "d") and `name`+"f" (float32, "f");
// `sig` uses 'x' for the row's float type.
void both(Rows& rows, const std::string& name, const std::string& sig, const std::string& portable,
          const std::string& cuda_d = "", const std::string& cuda_f = "") {
  for (char t : {'d', 'f'}) {
    std::string s = sig;
    for (char& c : s)
      if (c == 'x') c = t;
    std::string p = portable;
    for (size_t k = p.find("$x"); k != std::string::npos; k = p.find("$x"))
      p.replace(k, 2, t == 'f' ? "$f" : "$d");
    for (size_t k = p.find('~'); k != std::string::npos; k = p.find('~'))
      p.replace(k, 1, t == 'f' ? "f" : "");
    // Float literals written `1.0` become `1.0f` in float rows (OpenCL
    // devices may lack double).
    if (t == 'f') {
      std::string out;
      for (size_t k = 0; k < p.size(); ++k) {
        out += p[k];
        if (p[k] == '#') out.back() = 'f';
      }
      p = out;
    } else {
      std::string out;
      for (char c : p)
        if (c != '#') out += c;
      p = out;
    }
    rows.push_back({name + (t == 'f' ? "f" : ""), s, p, t == 'f' ? cuda_f : cuda_d});
  }
}

// A conversion that saturates (NaN to 0, as CUDA's cvt does): `value` is the
// rounded float, `lo`/`hi` the target's range as float literals and C values.
std::string saturate(const std::string& value, const std::string& lo_f, const std::string& hi_f,
                     const std::string& lo, const std::string& hi, const std::string& type) {
  return "return a != a ? (" + type + ")0 : a <= " + lo_f + " ? " + lo + " : a >= " + hi_f + " ? " +
         hi + " : (" + type + ")" + value + ";";
}

// Infinity as a constant expression in each dialect (the largest finite
// value doubled): a step up from the largest finite value reaches it, as
// rounding up past it does.
const std::string kInfF = "(3.402823466e38f * 2.0f)";
const std::string kInfD = "(1.7976931348623157e308 * 2.0)";

// `r`, the correctly rounded (to nearest) result, moved one step in the
// direction the exact result lies (the sign of `err`, the exact result less
// `r`), as the _rd, _ru and _rz variants round.
std::string directed(const std::string& setup, char mode, const std::string& inf,
                     const std::string& zero) {
  std::string body = setup;
  if (mode == 'd') body += " if (err < 0) r = @nextafter(r, -" + inf + ");";
  if (mode == 'u') body += " if (err > 0) r = @nextafter(r, " + inf + ");";
  if (mode == 'z')
    body += " if ((r > 0 && err < 0) || (r < 0 && err > 0)) r = @nextafter(r, " + zero + ");";
  return body + " return r;";
}

// sin(pi x) and cos(pi x): x reduced exactly to r in [-0.5, 0.5] (by
// periodicity and sin(pi (1 - r)) = sin(pi r)), where pi r keeps the
// result's relative accuracy near the zeros; cos(pi x) = sin(pi (0.5 - |r|)).
const std::string kReduce = "$x r = a - 2.0# * @rint(0.5# * a); ";
const std::string kSinPi = kReduce +
                           "if (r > 0.5#) r = 1.0# - r; else if (r < -0.5#) r = -1.0# - r; "
                           "return @sin(3.141592653589793# * r);";
const std::string kCosPi =
    kReduce + "r = 0.5# - (r < 0.0# ? -r : r); return @sin(3.141592653589793# * r);";

Rows build() {
  Rows rows;
  // Math functions C99 (and so OpenCL and the CPU) has under the same name.
  for (const char* f : {"acos",  "acosh",  "asin", "asinh", "atan",  "atanh", "cbrt",   "ceil",
                        "cos",   "cosh",   "erf",  "erfc",  "exp",   "exp2",  "expm1",  "fabs",
                        "floor", "lgamma", "log",  "log10", "log1p", "log2",  "logb",   "rint",
                        "round", "sin",    "sinh", "sqrt",  "tan",   "tanh",  "tgamma", "trunc"})
    both(rows, f, "x(x)", std::string("@") + f + "(a)");
  both(rows, "nearbyint", "x(x)", "@rint(a)");
  for (const char* f : {"atan2", "copysign", "fdim", "fmax", "fmin", "fmod", "hypot", "nextafter",
                        "pow", "remainder"})
    both(rows, f, "x(xx)", std::string("@") + f + "(a, b)");
  both(rows, "fma", "x(xxx)", "@fma(a, b, c)");
  both(rows, "ldexp", "x(xi)", "@ldexp(a, b)");
  both(rows, "scalbn", "x(xi)", "@ldexp(a, b)");
  both(rows, "powi", "x(xi)", "@pow(a, ($x)b)");
  rows.back().portable = "@pow(a, ($f)b)";
  rows[rows.size() - 2].portable = "@pow(a, ($d)b)";
  both(rows, "ilogb", "i(x)", "@ilogb(a)");
  both(rows, "exp10", "x(x)", "@pow(10.0#, a)", "exp10(a)", "exp10f(a)");
  both(rows, "rsqrt", "x(x)", "1.0# / @sqrt(a)", "rsqrt(a)", "rsqrtf(a)");
  both(rows, "rcbrt", "x(x)", "1.0# / @cbrt(a)", "rcbrt(a)", "rcbrtf(a)");
  // sin(pi x) after reducing x to [-1, 1] exactly, so large x keep their
  // accuracy (pi x itself would not be representable).
  both(rows, "sinpi", "x(x)", kSinPi, "sinpi(a)", "sinpif(a)");
  both(rows, "cospi", "x(x)", kCosPi, "cospi(a)", "cospif(a)");
  both(rows, "sincos", "xx(x)", "@sin(a)|||@cos(a)", "sin(a)|||cos(a)", "sinf(a)|||cosf(a)");
  both(rows, "sincospi", "xx(x)", kSinPi + "|||" + kCosPi, "sinpi(a)|||cospi(a)",
       "sinpif(a)|||cospif(a)");
  both(rows, "normcdf", "x(x)", "0.5# * @erfc(-0.7071067811865476# * a)", "normcdf(a)",
       "normcdff(a)");
  both(rows, "erfcx", "x(x)", "@exp(a * a) * @erfc(a)", "erfcx(a)", "erfcxf(a)");
  // erfinv: Giles' approximation ("Approximating the erfinv function", 2010)
  // refined by Newton steps on erf, which make it accurate in double too.
  const std::string erfinv =
      "if (a <= -1.0# || a >= 1.0#) return a == 1.0# ? 1.0# / 0.0# : a == -1.0# ? -1.0# / 0.0# "
      ": 0.0# / 0.0#; $x w = -@log((1.0# - a) * (1.0# + a)); $x p; if (w < 5.0#) { w -= 2.5#; "
      "p = 2.81022636e-08#; p = 3.43273939e-07# + p * w; p = -3.5233877e-06# + p * w; p = "
      "-4.39150654e-06# + p * w; p = 0.00021858087# + p * w; p = -0.00125372503# + p * w; p = "
      "-0.00417768164# + p * w; p = 0.246640727# + p * w; p = 1.50140941# + p * w; } else { w = "
      "@sqrt(w) - 3.0#; p = -0.000200214257#; p = 0.000100950558# + p * w; p = 0.00134934322# + "
      "p * w; p = -0.00367342844# + p * w; p = 0.00573950773# + p * w; p = -0.0076224613# + p * "
      "w; p = 0.00943887047# + p * w; p = 1.00167406# + p * w; p = 2.83297682# + p * w; } $x x = "
      "p * a; for (int k = 0; k < 3; ++k) x -= (@erf(x) - a) / (1.1283791670955126# * @exp(-x * "
      "x)); return x;";
  both(rows, "erfinv", "x(x)", erfinv, "erfinv(a)", "erfinvf(a)");
  // erfcinv(y) = erfinv(1 - y), refined on erfc so small y keep their digits.
  const std::string erfcinv =
      "if (a <= 0.0# || a >= 2.0#) return a == 0.0# ? 1.0# / 0.0# : a == 2.0# ? -1.0# / 0.0# : "
      "0.0# / 0.0#; $x x = a > 1e-6# ? simt_ld_erfinv~_0(1.0# - a) : @sqrt(-@log(a)); for (int k "
      "= 0; k < 4; ++k) x += (@erfc(x) - a) / (1.1283791670955126# * @exp(-x * x)); return x;";
  both(rows, "erfcinv", "x(x)", erfcinv, "erfcinv(a)", "erfcinvf(a)");
  both(rows, "normcdfinv", "x(x)", "-1.4142135623730951# * simt_ld_erfcinv~_0(2.0# * a)",
       "normcdfinv(a)", "normcdfinvf(a)");
  both(rows, "frexp", "xi(x)", "int e; return @frexp(a, &e);|||int e; @frexp(a, &e); return e;");
  both(rows, "modf", "xx(x)", "$x i; return @modf(a, &i);|||$x i; @modf(a, &i); return i;");
  both(rows, "remquo", "xi(xx)",
       "int q; return @remquo(a, b, &q);|||int q; @remquo(a, b, &q); return q;");
  both(rows, "llrint", "l(x)",
       saturate("@rint(a)", "-9223372036854775808.0#", "9223372036854775808.0#",
                "(-9223372036854775807LL - 1)", "9223372036854775807LL", "$l"));
  both(rows, "llround", "l(x)",
       saturate("@round(a)", "-9223372036854775808.0#", "9223372036854775808.0#",
                "(-9223372036854775807LL - 1)", "9223372036854775807LL", "$l"));
  // Classification: int32 results, as libdevice's.
  rows.push_back({"isnanf", "i(f)", "a != a", ""});
  rows.push_back({"isnand", "i(d)", "a != a", ""});
  rows.push_back({"isinff", "i(f)", "a == a && (a - a) != (a - a)", ""});
  rows.push_back({"isinfd", "i(d)", "a == a && (a - a) != (a - a)", ""});
  rows.push_back({"finitef", "i(f)", "(a - a) == (a - a)", ""});
  rows.push_back({"isfinited", "i(d)", "(a - a) == (a - a)", ""});
  rows.push_back({"signbitf", "i(f)", "($i)(F2U(a) >> 31)", ""});
  rows.push_back({"signbitd", "i(d)", "($i)(D2U(a) >> 63)", ""});
  rows.push_back(
      {"saturatef", "f(f)", "a != a ? 0.0f : @fmin(@fmax(a, 0.0f), 1.0f)", "__saturatef(a)"});
  // The fast (CUDA: hardware approximation) functions: the exact ones elsewhere.
  for (const char* f : {"cos", "exp", "log", "log10", "log2", "sin", "tan"})
    rows.push_back({std::string("fast_") + f + "f", "f(f)", std::string("@") + f + "(a)",
                    std::string("__") + f + "f(a)"});
  rows.push_back({"fast_exp10f", "f(f)", "@pow(10.0f, a)", "__exp10f(a)"});
  rows.push_back({"fast_powf", "f(ff)", "@pow(a, b)", "__powf(a, b)"});
  rows.push_back({"fast_fdividef", "f(ff)", "a / b", "__fdividef(a, b)"});
  rows.push_back({"fast_sincosf", "ff(f)", "@sin(a)|||@cos(a)", "__sinf(a)|||__cosf(a)"});
  // Arithmetic in a given rounding: to nearest is C's; the directed ones
  // step from it by the sign of the exact error (error-free transforms).
  struct Op {
    const char* name;
    const char* sig;
    std::string setup;
  };
  // A sum of finite operands rounded to infinity overflowed: the exact value
  // lies toward zero from it (the two-sum's error is NaN there).
  const std::string kOverflow = "if (r - r != 0 && a - a == 0 && b - b == 0) err = -r;";
  const Op ops[] = {
      {"add", "x(xx)",
       "$x r = a + b; $x bb = r - a; $x err = (a - (r - bb)) + (b - bb); " + kOverflow},
      {"sub", "x(xx)",
       "$x r = a - b; $x bb = r - a; $x err = (a - (r - bb)) - (b + bb); " + kOverflow},
      {"mul", "x(xx)", "$x r = a * b; $x err = @fma(a, b, -r);"},
      {"div", "x(xx)", "$x r = a / b; $x err = @fma(-r, b, a); if (b < 0) err = -err;"},
      {"sqrt", "x(x)", "$x r = @sqrt(a); $x err = @fma(-r, r, a);"},
      {"rcp", "x(x)", "$x r = 1.0# / a; $x err = @fma(-r, a, 1.0#); if (a < 0) err = -err;"},
  };
  for (const Op& op : ops) {
    for (char t : {'d', 'f'}) {
      std::string prefix(1, t);
      std::string sig = op.sig;
      for (char& c : sig)
        if (c == 'x') c = t;
      const std::string& big = t == 'f' ? kInfF : kInfD;
      std::string setup = op.setup;
      for (size_t k = setup.find('#'); k != std::string::npos; k = setup.find('#'))
        setup.replace(k, 1, t == 'f' ? "f" : "");
      for (size_t k = setup.find("$x"); k != std::string::npos; k = setup.find("$x"))
        setup.replace(k, 2, t == 'f' ? "$f" : "$d");
      for (char mode : {'n', 'z', 'd', 'u'}) {
        std::string name = prefix + op.name + "_r" + mode;
        std::string args = std::string(op.sig) == "x(x)" ? "(a)" : "(a, b)";
        std::string body = mode == 'n' ? setup + " return r;"
                                       : directed(setup, mode, big, t == 'f' ? "0.0f" : "0.0");
        rows.push_back({name, sig, body, "__" + name + args});
      }
    }
  }
  rows.push_back({"frsqrt_rn", "f(f)", "1.0f / @sqrt(a)", "__frsqrt_rn(a)"});
  // fma: C's rounds to nearest; the directed ones step by the exact sign of
  // the fused operation's error (#fma_err, codegen/helpers.cpp). An exact zero
  // rounded down is -0 unless both a * b and c are +0 (IEEE 754's sums of
  // zeros): -(-(a * b) - c) is that for zeros, a * b being exact then.
  for (char t : {'d', 'f'}) {
    std::string ft = t == 'f' ? "$f" : "$d";
    std::string name = t == 'f' ? "fmaf" : "fma";
    std::string setup = ft + " r = @fma(a, b, c); int err = #fma_err$" + t + "(a, b, c, r);";
    for (char mode : {'d', 'n', 'u', 'z'}) {
      std::string fix =
          mode == 'd'
              ? " if (r == 0 && err == 0) r = a == 0 || b == 0 ? -(-(a * b) - c) : -(" + ft + ")0;"
              : "";
      std::string body = mode == 'n' ? "@fma(a, b, c)"
                                     : directed(setup + fix, mode, t == 'f' ? kInfF : kInfD,
                                                t == 'f' ? "0.0f" : "0.0");
      rows.push_back({name + "_r" + mode, std::string(1, t) + "(" + std::string(3, t) + ")", body,
                      "__" + name + "_r" + mode + "(a, b, c)"});
    }
  }
  // Float to integer conversions in each rounding (saturating, NaN to 0).
  struct Target {
    const char* name;
    const char* code;  // the result's signature letter
    const char* type;  // the C type of the range
    const char* lo;
    const char* hi;
    const char* lo_value;
    const char* hi_value;
  };
  const Target targets[] = {
      {"int", "i", "$i", "-2147483648.0", "2147483647.0", "(-2147483647 - 1)", "2147483647"},
      {"uint", "i", "$u", "0.0", "4294967295.0", "0u", "4294967295u"},
      {"ll", "l", "$l", "-9223372036854775808.0", "9223372036854775808.0",
       "(-9223372036854775807LL - 1)", "9223372036854775807LL"},
      {"ull", "l", "$U", "0.0", "18446744073709551616.0", "0ULL", "18446744073709551615ULL"},
  };
  const std::pair<char, const char*> roundings[] = {
      {'d', "@floor(a)"}, {'n', "@rint(a)"}, {'u', "@ceil(a)"}, {'z', "@trunc(a)"}};
  for (const char* from : {"double", "float"}) {
    bool f = from[0] == 'f';
    for (const Target& t : targets) {
      for (auto [mode, value] : roundings) {
        std::string name = std::string(from) + "2" + t.name + "_r" + mode;
        std::string lo = std::string(t.lo) + (f ? "f" : "");
        std::string hi = std::string(t.hi) + (f ? "f" : "");
        // float's 2147483647.0f is 2**31: the upper bound compares >= 2**31.
        if (std::string(t.name) == "int") hi = f ? "2147483648.0f" : "2147483647.0";
        if (std::string(t.name) == "uint") hi = f ? "4294967296.0f" : "4294967295.0";
        std::string body = saturate(value, lo, hi, t.lo_value, t.hi_value, t.type);
        if (std::string(t.code) == "i" && std::string(t.name) == "uint")
          body = "$u v = 0u; { " +
                 saturate(value, lo, hi, t.lo_value, t.hi_value, "$u").replace(0, 7, "v = ") +
                 " } return ($i)v;";
        if (std::string(t.name) == "ull")
          body = "$U v = 0ULL; { " +
                 saturate(value, lo, hi, t.lo_value, t.hi_value, "$U").replace(0, 7, "v = ") +
                 " } return ($l)v;";
        rows.push_back(
            {name, std::string(t.code) + "(" + (f ? "f" : "d") + ")", body, "__" + name + "(a)"});
      }
    }
  }
  // Conversions into floats in each rounding: C's conversion rounds to
  // nearest; the others step by comparing the result with the exact value.
  struct Source {
    const char* name;
    const char* code;
    const char* value;  // the exact value as a wide integer
    const char* wide;   // its C type
    const char* limit;  // 2**63 or 2**64: a float at or above it exceeds every source value
  };
  const Source sources[] = {
      {"int", "i", "($l)a", "$l", ""},
      {"uint", "i", "($l)($u)a", "$l", ""},
      {"ll", "l", "a", "$l", "9223372036854775808.0"},
      {"ull", "l", "($U)a", "$U", "18446744073709551616.0"},
  };
  for (const char* to : {"float", "double"}) {
    bool f = to[0] == 'f';
    std::string ft = f ? "$f" : "$d";
    const std::string& big = f ? kInfF : kInfD;
    for (const Source& s : sources) {
      for (char mode : {'d', 'n', 'u', 'z'}) {
        std::string name = std::string(s.name) + "2" + to + "_r" + mode;
        bool exact = !f && (std::string(s.name) == "int" || std::string(s.name) == "uint");
        if (exact && mode != 'n') continue;  // libdevice has only int2double_rn
        std::string v =
            std::string(s.wide) + " v = " + s.value + "; " + ft + " r = (" + ft + ")v; ";
        std::string limit =
            *s.limit ? std::string("r >= ") + s.limit + (f ? "f" : "") + " ? -1 : " : "";
        std::string err =
            "int err = " + limit + "(" + s.wide + ")r > v ? -1 : (" + s.wide + ")r < v ? 1 : 0;";
        std::string body =
            mode == 'n' ? v + "return r;" : directed(v + err, mode, big, f ? "0.0f" : "0.0");
        // libdevice's directed rounding toward zero compares against 0 on
        // the result's sign, which the exact value shares.
        rows.push_back(
            {name, std::string(f ? "f" : "d") + "(" + s.code + ")", body, "__" + name + "(a)"});
      }
    }
  }
  for (char mode : {'d', 'n', 'u', 'z'}) {
    std::string name = std::string("double2float_r") + mode;
    std::string body = mode == 'n'
                           ? "return ($f)a;"
                           : directed("$f r = ($f)a; int err = ($d)r > a ? -1 : ($d)r < a ? 1 : 0;",
                                      mode, kInfF, "0.0f");
    rows.push_back({name, "f(d)", body, "__" + name + "(a)"});
  }
  // Bits.
  rows.push_back({"double2hiint", "i(d)", "($i)(D2U(a) >> 32)", "__double2hiint(a)"});
  rows.push_back({"double2loint", "i(d)", "($i)D2U(a)", "__double2loint(a)"});
  rows.push_back(
      {"hiloint2double", "d(ii)", "U2D((($U)($u)a << 32) | ($U)($u)b)", "__hiloint2double(a, b)"});
  rows.push_back({"float_as_int", "i(f)", "($i)F2U(a)", "__float_as_int(a)"});
  rows.push_back({"int_as_float", "f(i)", "U2F(($u)a)", "__int_as_float(a)"});
  rows.push_back({"double_as_longlong", "l(d)", "($l)D2U(a)", "__double_as_longlong(a)"});
  rows.push_back({"longlong_as_double", "d(l)", "U2D(($U)a)", "__longlong_as_double(a)"});
  // float16 bits in an int16 (Numba's types), by cuda.fp16's conversions
  // (round to nearest even) on every backend.
  rows.push_back({"float2half_rn", "h(f)", "($h)#f2h$f(a)", ""});
  rows.push_back({"half2float", "f(h)", "#h2f$f((unsigned short)a)", ""});
  // Integers (Numba types the unsigned ones as signed: the bits are the value).
  rows.push_back({"abs", "i(i)", "a < 0 ? ($i)(0u - ($u)a) : a", ""});
  rows.push_back({"llabs", "l(l)", "a < 0 ? ($l)(0ULL - ($U)a) : a", ""});
  rows.push_back({"max", "i(ii)", "a > b ? a : b", ""});
  rows.push_back({"min", "i(ii)", "a < b ? a : b", ""});
  rows.push_back({"umax", "i(ii)", "($u)a > ($u)b ? a : b", ""});
  rows.push_back({"umin", "i(ii)", "($u)a < ($u)b ? a : b", ""});
  rows.push_back({"llmax", "l(ll)", "a > b ? a : b", ""});
  rows.push_back({"llmin", "l(ll)", "a < b ? a : b", ""});
  rows.push_back({"ullmax", "l(ll)", "($U)a > ($U)b ? a : b", ""});
  rows.push_back({"ullmin", "l(ll)", "($U)a < ($U)b ? a : b", ""});
  // The bit functions are cuda.popc/clz/ffs/brev's own helpers over the
  // argument's width as unsigned.
  rows.push_back({"popc", "i(i)", "($i)#popc$u(($u)a)", "__popc(a)"});
  rows.push_back({"popcll", "i(l)", "($i)#popc$U(($U)a)", "__popcll(a)"});
  rows.push_back({"clz", "i(i)", "($i)#clz$u(($u)a)", "__clz(a)"});
  rows.push_back({"clzll", "i(l)", "($i)#clz$U(($U)a)", "__clzll(a)"});
  rows.push_back({"ffs", "i(i)", "($i)#ffs$u(($u)a)", "__ffs(a)"});
  rows.push_back({"ffsll", "i(l)", "($i)#ffs$U(($U)a)", "__ffsll(a)"});
  rows.push_back({"brev", "i(i)", "($i)#brev$u(($u)a)", "__brev(a)"});
  rows.push_back({"brevll", "l(l)", "($l)#brev$U(($U)a)", "__brevll(a)"});
  rows.push_back({"mulhi", "i(ii)", "($i)((($l)a * ($l)b) >> 32)", "__mulhi(a, b)"});
  rows.push_back({"umulhi", "i(ii)", "($i)(($U)($u)a * ($U)($u)b >> 32)", "__umulhi(a, b)"});
  // The high 64 bits of a 128-bit product, from 32-bit halves.
  const std::string umul64hi =
      "$U x = ($U)a, y = ($U)b; $U x0 = x & 0xffffffffULL, x1 = x >> 32, y0 = y & 0xffffffffULL, "
      "y1 = y >> 32; $U p00 = x0 * y0, p01 = x0 * y1, p10 = x1 * y0, p11 = x1 * y1; $U mid = "
      "(p00 >> 32) + (p01 & 0xffffffffULL) + (p10 & 0xffffffffULL); $U hi = p11 + (p01 >> 32) + "
      "(p10 >> 32) + (mid >> 32);";
  rows.push_back({"umul64hi", "l(ll)", umul64hi + " return ($l)hi;", "__umul64hi(a, b)"});
  // Signed: the unsigned high part less the other operand for each negative one.
  rows.push_back({"mul64hi", "l(ll)",
                  umul64hi + " if (a < 0) hi -= y; if (b < 0) hi -= x; return ($l)hi;",
                  "__mul64hi(a, b)"});
  rows.push_back({"mul24", "i(ii)",
                  "$i x = ($i)(($u)a << 8) >> 8; $i y = ($i)(($u)b << 8) >> 8; return ($i)(($u)x * "
                  "($u)y);",
                  "__mul24(a, b)"});
  rows.push_back(
      {"umul24", "i(ii)", "($i)((($u)a & 0xffffffu) * (($u)b & 0xffffffu))", "__umul24(a, b)"});
  rows.push_back({"hadd", "i(ii)", "($i)((($l)a + ($l)b) >> 1)", "__hadd(a, b)"});
  rows.push_back({"rhadd", "i(ii)", "($i)((($l)a + ($l)b + 1) >> 1)", "__rhadd(a, b)"});
  rows.push_back({"uhadd", "i(ii)", "($i)((($U)($u)a + ($U)($u)b) >> 1)", "__uhadd(a, b)"});
  rows.push_back(
      {"urhadd", "i(ii)", "($i)((($U)($u)a + ($U)($u)b + 1ULL) >> 1)", "__urhadd(a, b)"});
  rows.push_back({"sad", "i(iii)", "($i)(($u)(a > b ? ($l)a - ($l)b : ($l)b - ($l)a) + ($u)c)",
                  "__sad(a, b, ($u)c)"});
  rows.push_back({"usad", "i(iii)", "($i)((($u)a > ($u)b ? ($u)a - ($u)b : ($u)b - ($u)a) + ($u)c)",
                  "__usad(($u)a, ($u)b, ($u)c)"});
  rows.push_back({"byte_perm", "i(iii)",
                  "$U v = (($U)($u)b << 32) | ($U)($u)a; $u r = 0u; for ($i k = 0; k < 4; ++k) { "
                  "$u sel = (($u)c >> (4 * k)) & 7u; r |= (($u)(v >> (8 * sel)) & 0xffu) << (8 * "
                  "k); } return ($i)r;",
                  "__byte_perm(a, b, c)"});
  // Bessel functions: simt's helpers (codegen/bessel.cpp) on every backend, CUDA
  // included. CUDA's own promise only 2.2e-6 absolute (float) past |x| = 8, and its
  // jnf(n >= 2, x) is NaN for x = 0 and |x| below about 1e-38 (measured on an H100);
  // the helpers are within a few ulps everywhere. jn and yn take the order first.
  for (const char* f : {"j0", "j1", "y0", "y1", "jn", "yn"}) {
    bool order = f[1] == 'n';
    for (char t : {'d', 'f'}) {
      std::string args = order ? "(a, b)" : "(a)";
      std::string name = std::string(f) + (t == 'f' ? "f" : "");
      rows.push_back({name, std::string(1, t) + (order ? "(i" : "(") + t + ")",
                      std::string("#") + f + "$" + t + args, ""});
    }
  }
  return rows;
}

const Rows& rows() {
  static const Rows table = build();
  return table;
}

}  // namespace

std::vector<Scalar> LibdeviceFunction::results() const {
  std::vector<Scalar> out;
  for (char c : signature.substr(0, signature.find('('))) out.push_back(scalar_of_code(c));
  return out;
}

std::vector<Scalar> LibdeviceFunction::arguments() const {
  std::vector<Scalar> out;
  size_t open = signature.find('(');
  for (char c : signature.substr(open + 1, signature.size() - open - 2))
    out.push_back(scalar_of_code(c));
  return out;
}

Scalar LibdeviceFunction::real() const {
  // A float result's type (double2float_rd steps in float), else the first
  // float argument's (float2int_rd floors in float).
  for (Scalar s : results())
    if (is_float(s)) return s;
  for (Scalar s : arguments())
    if (is_float(s)) return s;
  return Scalar::Float64;
}

const LibdeviceFunction* find_libdevice(std::string_view name) {
  static const std::map<std::string, const LibdeviceFunction*, std::less<>> index = [] {
    std::map<std::string, const LibdeviceFunction*, std::less<>> m;
    for (const auto& row : rows()) m.emplace(row.name, &row);
    return m;
  }();
  auto it = index.find(name);
  return it == index.end() ? nullptr : it->second;
}

std::span<const LibdeviceFunction> libdevice_table() { return rows(); }

const Intrinsic* find_libdevice_intrinsic(std::string_view qualified_name) {
  static constexpr std::string_view kPrefix = "simt.libdevice.";
  if (qualified_name.substr(0, kPrefix.size()) != kPrefix) return nullptr;
  static const auto intrinsics = [] {
    // The names live as long as the table; tuple results are evaluated
    // into temporaries (not pure, as frexp's are).
    auto names = std::make_unique<std::deque<std::string>>();
    std::map<std::string, Intrinsic, std::less<>> m;
    for (const auto& row : rows()) {
      names->push_back(std::string(kPrefix) + row.name);
      auto n = static_cast<uint8_t>(row.arguments().size());
      m.emplace(row.name, Intrinsic{names->back(), Rule::Libdevice, row.name, n, n,
                                    row.results().size() == 1});
    }
    return std::make_pair(std::move(names), std::move(m));
  }();
  auto it = intrinsics.second.find(qualified_name.substr(kPrefix.size()));
  return it == intrinsics.second.end() ? nullptr : &it->second;
}

}  // namespace simt::sema
