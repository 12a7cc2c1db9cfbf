#include "abi/scalar.h"

namespace simt::abi {

namespace {

struct ScalarInfo {
  Scalar scalar;
  const char* name;
  int bits;
};

constexpr ScalarInfo kScalars[] = {
    {Scalar::Bool, "bool", 8},
    {Scalar::Int8, "int8", 8},
    {Scalar::Int16, "int16", 16},
    {Scalar::Int32, "int32", 32},
    {Scalar::Int64, "int64", 64},
    {Scalar::UInt8, "uint8", 8},
    {Scalar::UInt16, "uint16", 16},
    {Scalar::UInt32, "uint32", 32},
    {Scalar::UInt64, "uint64", 64},
    {Scalar::Float16, "float16", 16},
    {Scalar::Float32, "float32", 32},
    {Scalar::Float64, "float64", 64},
    {Scalar::Complex64, "complex64", 64},
    {Scalar::Complex128, "complex128", 128},
};
static_assert(sizeof kScalars / sizeof kScalars[0] == kScalarCount);

struct Alias {
  const char* name;
  Scalar scalar;
};

// Python's and NumPy's other spellings. `int`, `float` and `complex` are the
// Python types, which NumPy maps to its default int64, float64, complex128.
constexpr Alias kAliases[] = {
    {"bool_", Scalar::Bool},         {"b1", Scalar::Bool},
    {"int", Scalar::Int64},          {"intp", Scalar::Int64},
    {"int_", Scalar::Int64},         {"long", Scalar::Int64},
    {"longlong", Scalar::Int64},     {"i1", Scalar::Int8},
    {"i2", Scalar::Int16},           {"i4", Scalar::Int32},
    {"i8", Scalar::Int64},           {"byte", Scalar::Int8},
    {"short", Scalar::Int16},        {"intc", Scalar::Int32},
    {"uintp", Scalar::UInt64},       {"uint", Scalar::UInt64},
    {"ulonglong", Scalar::UInt64},   {"u1", Scalar::UInt8},
    {"u2", Scalar::UInt16},          {"u4", Scalar::UInt32},
    {"u8", Scalar::UInt64},          {"ubyte", Scalar::UInt8},
    {"ushort", Scalar::UInt16},      {"uintc", Scalar::UInt32},
    {"float", Scalar::Float64},      {"half", Scalar::Float16},
    {"single", Scalar::Float32},     {"double", Scalar::Float64},
    {"float_", Scalar::Float64},     {"f2", Scalar::Float16},
    {"f4", Scalar::Float32},         {"f8", Scalar::Float64},
    {"complex", Scalar::Complex128}, {"csingle", Scalar::Complex64},
    {"cdouble", Scalar::Complex128}, {"complex_", Scalar::Complex128},
    {"c8", Scalar::Complex64},       {"c16", Scalar::Complex128},
};

const ScalarInfo& info(Scalar s) { return kScalars[static_cast<int>(s)]; }

}  // namespace

const char* scalar_name(Scalar s) { return info(s).name; }

std::optional<Scalar> scalar_from_name(std::string_view name) {
  for (const auto& s : kScalars)
    if (name == s.name) return s.scalar;
  for (const auto& a : kAliases)
    if (name == a.name) return a.scalar;
  return std::nullopt;
}

bool is_bool(Scalar s) { return s == Scalar::Bool; }
bool is_integer(Scalar s) { return s >= Scalar::Int8 && s <= Scalar::UInt64; }
bool is_signed(Scalar s) { return s >= Scalar::Int8 && s <= Scalar::Int64; }
bool is_unsigned(Scalar s) { return s >= Scalar::UInt8 && s <= Scalar::UInt64; }
bool is_float(Scalar s) { return s >= Scalar::Float16 && s <= Scalar::Float64; }
bool is_complex(Scalar s) { return s == Scalar::Complex64 || s == Scalar::Complex128; }
int bit_width(Scalar s) { return info(s).bits; }

Scalar unsigned_of(Scalar integer) {
  switch (integer) {
    case Scalar::Int8:
      return Scalar::UInt8;
    case Scalar::Int16:
      return Scalar::UInt16;
    case Scalar::Int32:
      return Scalar::UInt32;
    case Scalar::Int64:
      return Scalar::UInt64;
    default:
      return integer;
  }
}

Scalar complex_of(Scalar real) {
  if (is_complex(real)) return real;
  return real == Scalar::Float64 ? Scalar::Complex128 : Scalar::Complex64;
}

Scalar real_of(Scalar complex) {
  if (complex == Scalar::Complex64) return Scalar::Float32;
  if (complex == Scalar::Complex128) return Scalar::Float64;
  return complex;
}

}  // namespace simt::abi
