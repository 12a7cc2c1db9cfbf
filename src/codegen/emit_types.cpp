// C names and types of values, literals of them, and the conversions
// between types (with Python's and NumPy's semantics, not C's).
#include <cmath>
#include <cstring>
#include <stdexcept>

#include "codegen/emitter_impl.h"

namespace simt::codegen::detail {

const ExprInfo& Emitter::info(const Expr& e) const { return fn_.at(e); }

std::string Emitter::ctype(const Type& t) {
  if (t.is_array()) return helpers_.array_struct(t);
  if (t.is_record()) return record_pointer(t);
  if (t.is_scalar()) {
    Scalar s = sema::concrete(t);
    if (sema::is_complex(s)) helpers_.use(Helper::ComplexType, s);
    return std::string(d_.value_type(s));
  }
  throw std::logic_error("no C type for " + t.str());
}

std::string Emitter::local_name(int index) const {
  if (index == regions_.register_local) return regions_.register_name;
  if (per_thread(index) && !regions_.bare_names) return per_thread_array(index) + "[simt_t]";
  return mangle(fn_.locals[index].name);
}

std::string Emitter::per_thread_array(int index) const {
  return "simt_pt_" + mangle(fn_.locals[index].name);
}

bool Emitter::per_thread(int index) const {
  return regions_.active && !regions_.uniformity->uniform_local(index);
}

std::string Emitter::for_every_thread(int index, const std::string& assignment) const {
  if (!per_thread(index) || !regions_.uniform_level) return assignment;
  return "for (simt_i64 simt_t = 0; simt_t < simt_nthreads; ++simt_t) " + assignment;
}

std::string Emitter::result_ctype(const Type& t) {
  if (t.kind == TypeKind::None) return "void";
  if (t.is_tuple()) return tuple_struct(t);
  return ctype(t);
}

std::string Emitter::tuple_struct(const Type& t) {
  std::vector<std::string> names;
  std::vector<Type> types;
  flatten(t, "", names, types);
  std::string name = "simt_tuple";
  std::string fields;
  for (size_t k = 0; k < types.size(); ++k) {
    name += "_" + scalar_suffix(sema::concrete(types[k]));
    fields += "  " + ctype(types[k]) + " v" + std::to_string(k) + ";\n";
  }
  if (module_.tuple_structs.insert(name).second)
    module_.tuple_code += "typedef struct {\n" + fields + "} " + name + ";\n\n";
  return name;
}

void Emitter::flatten(const Type& t, const std::string& base, std::vector<std::string>& names,
                      std::vector<Type>& types, const std::string& path) {
  // Dtypes and functions passed to device functions are compile-time values
  // of the callee's specialization: no C parameter carries them.
  if (t.kind == TypeKind::DType || t.kind == TypeKind::Function) return;
  if (t.is_tuple()) {
    for (size_t k = 0; k < t.items.size(); ++k)
      flatten(t.items[k], base, names, types, path + std::to_string(k) + "_");
    return;
  }
  if (t.kind == TypeKind::GridGroup) return;  // no storage, no C variable
  names.push_back(path.empty() ? base : "simt_t" + path + base);
  types.push_back(t);
}

std::string Emitter::literal_int(int64_t v, Scalar s) {
  return literal(sema::Constant{Type::scalar_of(Scalar::Int64), v, static_cast<double>(v), 0, {}},
                 Type::scalar_of(s));
}

std::string Emitter::literal(const Constant& c, const Type& to) {
  Scalar s = sema::concrete(to);
  bool from_float =
      c.type.is_scalar() && (sema::is_float(c.type.scalar) || sema::is_complex(c.type.scalar));
  if (sema::is_bool(s))
    return (from_float ? (c.real != 0 || c.imag != 0) : c.int_value != 0) ? "true" : "false";
  if (sema::is_integer(s)) {
    int64_t v = from_float ? static_cast<int64_t>(std::trunc(c.real)) : c.int_value;
    int bits = sema::bit_width(s);
    uint64_t mask = bits == 64 ? ~0ull : ((1ull << bits) - 1);
    uint64_t u = static_cast<uint64_t>(v) & mask;
    if (sema::is_unsigned(s)) {
      std::string text = std::to_string(u);
      if (bits == 64) return text + std::string(d_.uint64_suffix);
      if (bits == 32) return text + "u";
      return "((" + std::string(d_.value_type(s)) + ")" + text + ")";
    }
    int64_t sv = bits == 64 ? static_cast<int64_t>(u)
                            : static_cast<int64_t>(u << (64 - bits)) >> (64 - bits);
    if (bits == 64 && sv == INT64_MIN)
      return "(-9223372036854775807" + std::string(d_.int64_suffix) + " - 1)";
    if (bits == 32 && sv == INT32_MIN) return "(-2147483647 - 1)";
    std::string text = std::to_string(sv);
    if (sv < 0) text = "(" + text;
    if (bits == 64)
      text += std::string(d_.int64_suffix);
    else if (bits < 32)
      text = "((" + std::string(d_.value_type(s)) + ")" + text + ")";
    if (sv < 0) text += ")";
    return text;
  }
  double re = from_float ? c.real : static_cast<double>(c.int_value);
  double im = c.imag;
  if (sema::is_complex(s)) {
    Scalar r = sema::real_of(s);
    return helpers_.use(Helper::ComplexMake, s) + "(" + float_literal(re, r) + ", " +
           float_literal(im, r) + ")";
  }
  std::string text = float_literal(re, s);
  if (s == Scalar::Float16) return helpers_.use(Helper::RoundHalf, s) + "(" + text + ")";
  return text;
}

std::string Emitter::float_literal(double v, Scalar s) {
  bool single = s != Scalar::Float64;
  // A finite double can still overflow float (1e39 as float32): test the value as it will be
  // spelled, so the literal is never `inf.0f`.
  float as_float = static_cast<float>(v);
  if (std::isnan(v) || (single ? std::isinf(as_float) : std::isinf(v))) {
    if (single) {
      float f = as_float;
      uint32_t bits;
      std::memcpy(&bits, &f, 4);
      return apply(d_.uint_as_float, "", std::to_string(bits) + "u");
    }
    uint64_t bits;
    std::memcpy(&bits, &v, 8);
    return apply(d_.ulong_as_double, "", std::to_string(bits) + std::string(d_.uint64_suffix));
  }
  std::string text = single ? format_float(as_float) : format_double(v);
  return std::signbit(v) ? "(" + text + ")" : text;
}

std::string Emitter::convert(const std::string& code, const Type& from_type, const Type& to_type) {
  if (!from_type.is_scalar() || !to_type.is_scalar()) return code;
  Scalar from = sema::concrete(from_type), to = sema::concrete(to_type);
  if (from == to) return code;
  std::string to_name(d_.value_type(to));
  if (sema::is_bool(to)) {
    if (sema::is_complex(from)) return helpers_.use(Helper::ComplexTruth, from) + "(" + code + ")";
    return "(" + code + " != 0)";
  }
  if (sema::is_complex(to)) {
    Scalar r = sema::real_of(to);
    std::string rn(d_.value_type(r));
    if (sema::is_complex(from)) {
      std::string tmp = "(" + code + ")";
      return helpers_.use(Helper::ComplexMake, to) + "((" + rn + ")" + tmp + ".re, (" + rn + ")" +
             tmp + ".im)";
    }
    return helpers_.use(Helper::ComplexMake, to) + "((" + rn + ")(" + code + "), (" + rn + ")0)";
  }
  if (to == Scalar::Float16 && from == Scalar::Float64)
    return helpers_.use(Helper::RoundHalfFromDouble, Scalar::Float64) + "(" + code + ")";
  // An integer in one rounding, where the hardware converts integers to float16 itself (via
  // float is the same value: integers below float16's overflow are exact in float).
  if (to == Scalar::Float16 && sema::is_integer(from) && !sema::is_bool(from) &&
      helpers_.has_native_half(HalfOp::FromInt))
    return helpers_.use(Helper::HalfFromInt, from) + "(" + code + ")";
  if (to == Scalar::Float16) return helpers_.use(Helper::RoundHalf, to) + "((float)(" + code + "))";
  if (sema::is_integer(to) && is_float_like(from) && d_.float_to_int == FloatToInt::Helper) {
    if (from == Scalar::Float64) return helpers_.use(Helper::FloatToInt, to) + "(" + code + ")";
    return helpers_.use(Helper::Float32ToInt, to) + "((float)(" + code + "))";
  }
  // float16 is a float in registers: widening it is exact and free.
  if (from == Scalar::Float16 && to == Scalar::Float32) return code;
  return "((" + to_name + ")(" + code + "))";
}

std::string Emitter::truth(const Expr& e) {
  const Type& t = info(e).type;
  if (t.is_scalar() && sema::is_bool(sema::concrete(t))) return expr(e);
  return convert(expr(e), t, Type::scalar_of(Scalar::Bool));
}

std::string Emitter::condition(const Expr& e) {
  std::string text = truth(e);
  if (text.size() < 2 || text.front() != '(' || text.back() != ')') return text;
  int depth = 0;
  for (size_t k = 0; k + 1 < text.size(); ++k) {
    depth += text[k] == '(' ? 1 : text[k] == ')' ? -1 : 0;
    if (depth == 0) return text;  // "(a) && (b)": the first parenthesis closes early
  }
  return text.substr(1, text.size() - 2);
}

}  // namespace simt::codegen::detail
