// The scalar types a kernel argument, an array element or a C parameter can
// have, and the array layouts: the vocabulary every layer shares, from the
// type checker to the launch path's packing.
#pragma once

#include <cstdint>
#include <optional>
#include <string_view>
#include <vector>

namespace simt::abi {

// Scalar kinds, in the order NumPy's type hierarchy ranks them within a kind
// (promotion in sema/types.cpp compares these values).
enum class Scalar : uint8_t {
  Bool,
  Int8,
  Int16,
  Int32,
  Int64,
  UInt8,
  UInt16,
  UInt32,
  UInt64,
  Float16,
  Float32,
  Float64,
  Complex64,
  Complex128,
};
inline constexpr int kScalarCount = 14;

const char* scalar_name(Scalar s);  // NumPy's name: "float32"

// Whose vocabulary a name is read in. Numba's signatures ("void(f4[:], intp)") share most
// of NumPy's aliases but read two of them otherwise (`float_` is float32 and `byte` is
// uint8 in Numba, float64 and int8 in NumPy) and add a few (`boolean`, `char`, `size_t`).
enum class Spelling : uint8_t { NumPy, Numba };

// Accepts NumPy's names and, in `spelling`, the usual aliases ("float32", "f4", "single",
// "int", "float", "complex", "bool", "intp", ...); nullopt otherwise. The alias table in
// scalar.cpp is simt's only one.
std::optional<Scalar> scalar_from_name(std::string_view name, Spelling spelling = Spelling::NumPy);

struct ScalarAlias {
  std::string_view name;
  Scalar scalar;
};
// Every alias scalar_from_name reads in `spelling` (not the canonical names).
std::vector<ScalarAlias> scalar_aliases(Spelling spelling);

bool is_bool(Scalar s);
bool is_integer(Scalar s);  // signed or unsigned, not bool
bool is_signed(Scalar s);   // signed integers only
bool is_unsigned(Scalar s);
bool is_float(Scalar s);  // real floating point
bool is_complex(Scalar s);
int bit_width(Scalar s);  // 8 for bool
Scalar unsigned_of(Scalar integer);
Scalar complex_of(Scalar real);  // the complex type holding this real type's precision
Scalar real_of(Scalar complex);

// C: row-major contiguous, F: column-major contiguous, Any: strided. A
// one-dimensional contiguous array is C (C and F describe the same memory).
enum class Layout : uint8_t { C, F, Any };

}  // namespace simt::abi
