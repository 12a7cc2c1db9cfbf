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

// Which vocabularies read an alias.
enum class Reader : uint8_t { Both, NumPy, Numba };

struct Alias {
  const char* name;
  Scalar scalar;
  Reader reader;
};

// Python's, NumPy's and Numba's other spellings. `int`, `float` and `complex` are the
// Python types, which NumPy maps to its default int64, float64, complex128. Where Numba
// reads a name otherwise than NumPy, the name has a row for each.
constexpr Alias kAliases[] = {
    {"bool_", Scalar::Bool, Reader::Both},
    {"b1", Scalar::Bool, Reader::Both},
    {"boolean", Scalar::Bool, Reader::Numba},
    {"int", Scalar::Int64, Reader::Both},
    {"intp", Scalar::Int64, Reader::Both},
    {"int_", Scalar::Int64, Reader::Both},
    {"long", Scalar::Int64, Reader::Both},
    {"long_", Scalar::Int64, Reader::Numba},
    {"longlong", Scalar::Int64, Reader::Both},
    {"ssize_t", Scalar::Int64, Reader::Numba},
    {"i1", Scalar::Int8, Reader::Both},
    {"i2", Scalar::Int16, Reader::Both},
    {"i4", Scalar::Int32, Reader::Both},
    {"i8", Scalar::Int64, Reader::Both},
    {"byte", Scalar::Int8, Reader::NumPy},
    {"byte", Scalar::UInt8, Reader::Numba},
    {"char", Scalar::Int8, Reader::Numba},
    {"short", Scalar::Int16, Reader::Both},
    {"intc", Scalar::Int32, Reader::Both},
    {"uintp", Scalar::UInt64, Reader::Both},
    {"uint", Scalar::UInt64, Reader::Both},
    {"ulong", Scalar::UInt64, Reader::Numba},
    {"ulonglong", Scalar::UInt64, Reader::Both},
    {"size_t", Scalar::UInt64, Reader::Numba},
    {"u1", Scalar::UInt8, Reader::Both},
    {"u2", Scalar::UInt16, Reader::Both},
    {"u4", Scalar::UInt32, Reader::Both},
    {"u8", Scalar::UInt64, Reader::Both},
    {"ubyte", Scalar::UInt8, Reader::Both},
    {"uchar", Scalar::UInt8, Reader::Numba},
    {"ushort", Scalar::UInt16, Reader::Both},
    {"uintc", Scalar::UInt32, Reader::Both},
    {"float", Scalar::Float64, Reader::Both},
    {"half", Scalar::Float16, Reader::Both},
    {"single", Scalar::Float32, Reader::Both},
    {"double", Scalar::Float64, Reader::Both},
    {"float_", Scalar::Float64, Reader::NumPy},
    {"float_", Scalar::Float32, Reader::Numba},
    {"f2", Scalar::Float16, Reader::Both},
    {"f4", Scalar::Float32, Reader::Both},
    {"f8", Scalar::Float64, Reader::Both},
    {"complex", Scalar::Complex128, Reader::Both},
    {"csingle", Scalar::Complex64, Reader::Both},
    {"cdouble", Scalar::Complex128, Reader::Both},
    {"complex_", Scalar::Complex128, Reader::Both},
    {"c8", Scalar::Complex64, Reader::Both},
    {"c16", Scalar::Complex128, Reader::Both},
};

bool reads(Reader reader, Spelling spelling) {
  return reader == Reader::Both || (reader == Reader::NumPy) == (spelling == Spelling::NumPy);
}

const ScalarInfo& info(Scalar s) { return kScalars[static_cast<int>(s)]; }

}  // namespace

const char* scalar_name(Scalar s) { return info(s).name; }

std::optional<Scalar> scalar_from_name(std::string_view name, Spelling spelling) {
  for (const auto& s : kScalars)
    if (name == s.name) return s.scalar;
  for (const auto& a : kAliases)
    if (name == a.name && reads(a.reader, spelling)) return a.scalar;
  return std::nullopt;
}

std::vector<ScalarAlias> scalar_aliases(Spelling spelling) {
  std::vector<ScalarAlias> out;
  for (const auto& a : kAliases)
    if (reads(a.reader, spelling)) out.push_back({a.name, a.scalar});
  return out;
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
