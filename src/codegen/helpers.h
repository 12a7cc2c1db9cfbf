// Small functions and types that generated kernels call where C's own
// operators differ from Python's or NumPy's (floor division, shifts past the
// width, float16, complex numbers) or where C has no such operator. Each is
// written once as a template and instantiated per type and dialect, only
// when a kernel uses it.
#pragma once

#include <optional>
#include <set>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "codegen/dialect.h"
#include "sema/types.h"

namespace simt::codegen {

enum class Helper {
  FloorDiv,             // Python //, integers (0 for division by zero, as NumPy) and floats
  Mod,                  // Python %, integers and floats
  IntPow,               // integer ** integer (negative exponents give 0 unless the base is +-1)
  ShiftLeft,            // << with NumPy's result for counts outside [0, width)
  ShiftRight,           // >> likewise
  WrapIndex,            // a negative index counts from the end
  ContainIndex,         // the CPU's local arrays: WrapIndex, else a contained fault
  SliceClamp,           // a slice bound clamped to an axis, as NumPy
  SliceLength,          // the elements a clamped slice selects
  RoundDigits,          // round(x, ndigits), as NumPy rounds
  FloatToInt,           // double -> integer type: saturating, NaN to 0
  Float32ToInt,         // the same from float (no double: OpenCL devices may lack fp64)
  HalfToFloat,          // float16 bits -> float
  FloatToHalf,          // float -> float16 bits, round to nearest even
  RoundHalf,            // float -> nearest float16 value, as a float
  RoundHalfFromDouble,  // double -> nearest float16 value, as a float (one rounding)
  ComplexType,          // the struct of a complex type
  ComplexMake,
  ComplexAdd,
  ComplexSub,
  ComplexMul,
  ComplexDiv,
  ComplexNeg,
  ComplexEq,
  ComplexAbs,
  ComplexTruth,
  // cmath's and NumPy's complex functions (complex_math.cpp), and complex **.
  ComplexExp,
  ComplexLog,
  ComplexLog10,
  ComplexLogBase,  // cmath.log(z, base) of complex64 where complex64_work is double
  ComplexSqrt,
  ComplexSin,
  ComplexCos,
  ComplexTan,
  ComplexSinh,
  ComplexCosh,
  ComplexTanh,
  ComplexAsin,
  ComplexAcos,
  ComplexAtan,
  ComplexAsinh,
  ComplexAcosh,
  ComplexAtanh,
  ComplexRect,  // cmath.rect(r, phi), of the complex type's real parts
  ComplexPow,
  PopCount,           // set bits of an integer's $W bits (Numba's cuda.popc)
  CountLeadingZeros,  // zeros above the highest set bit, within $W bits (cuda.clz)
  FindFirstSet,       // 1 + the index of the lowest set bit, 0 for 0 (cuda.ffs): an int
  BitReverse,         // the $W bits in reverse order (cuda.brev)
  HalfFma,            // float16 a * b + c, rounded to float16 once (cuda.fp16.hfma)
  // float16 in the hardware's instructions, where the dialect has them (Dialect::native_half;
  // the emitter asks for these only then): an integer type -> float16, and float16's
  // operators.
  HalfFromInt,
  HalfAdd,
  HalfSub,
  HalfMul,
  HalfNeg,
  HalfAbs,
  HalfLt,
  HalfLe,
  HalfGt,
  HalfGe,
  HalfEq,
  HalfNe,
  FmaErrorSign,  // the sign of a * b + c - fma(a, b, c), exactly (libdevice's directed fma)
  Select,        // cuda.selp(c, a, b): both values evaluated (call arguments), then one taken
  // libdevice's Bessel functions for OpenCL and the CPU (bessel.cpp): J_0, J_1, Y_0, Y_1 of
  // x; J_n and Y_n of (n, x).
  BesselJ0,
  BesselJ1,
  BesselY0,
  BesselY1,
  BesselJn,
  BesselYn,
};

// A complex function's helper text and the helpers it calls ($log_c, $sqrt_c, ...: the
// same type's helper of that name).
struct ComplexMathText {
  const char* text;
  std::vector<Helper> calls;
};
ComplexMathText complex_math_text(Helper helper);

// The complex helper computing the C math function `c_name` ("exp", "asinh", ...) of a
// complex value; nullopt for functions without a complex form.
std::optional<Helper> complex_math_helper(std::string_view c_name);

// A Bessel helper's text for `type` (its literals spelled in that type: OpenCL devices may
// lack double) and the Bessel helpers it calls ($j0, $j1, $y0, $y1 in the text).
struct BesselText {
  std::string text;
  std::vector<Helper> calls;
};
BesselText bessel_text(Helper helper, sema::Scalar type);

// The suffix that names a scalar in helper names: i32, u8, f64, c64.
std::string scalar_suffix(sema::Scalar s);

class HelperSet {
 public:
  explicit HelperSet(const Dialect& d) : dialect_(d) {}

  // Requests the helper for `type` and returns the name to call.
  std::string use(Helper helper, sema::Scalar type);
  // The struct type name of an array type, defining it on first use.
  std::string array_struct(const sema::Type& array);
  // The struct of a record's bytes (Dialect::record_struct), defined on first use: what
  // an array of records points at and a record reference is a pointer to.
  std::string record_struct(const abi::Record& record);
  // The wrapper reaching a scalar's storage type at any address (Dialect::packed_struct).
  std::string packed_struct(sema::Scalar s);
  // What an array's data pointer points at: its record struct, the packed wrapper of a
  // packed array's elements, or the storage type of its scalars.
  std::string element_type(const sema::Type& array);

  // Defines `name` with `code` on its first request (helpers the emitter
  // composes itself, such as atomics per operation, type and space).
  void define_once(const std::string& name, const std::string& code);

  // Every requested definition, dependencies first.
  std::string definitions() const;

  // Whether the dialect does float16's `op` in the hardware's instructions.
  bool has_native_half(HalfOp op) const;

 private:
  std::string define(Helper helper, sema::Scalar type);
  // The dialect's definition of a float16 helper in the hardware's instructions, if it has one.
  std::optional<std::string> native_half_text(Helper helper, sema::Scalar type);

  const Dialect& dialect_;
  std::set<std::string> defined_;
  std::vector<std::pair<abi::Record, std::string>> records_;  // each record struct's name
  std::vector<std::string> code_;
};

}  // namespace simt::codegen
