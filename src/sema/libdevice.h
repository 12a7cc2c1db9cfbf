// Numba's cuda.libdevice: libdevice's functions under their names without
// `__nv_` (`sinf`, `fast_expf`, `umulhi`, `float2int_rd`, `sincos`, ...),
// as one table that typing (intrinsic_typing.cpp, Rule::Libdevice) and every
// dialect's lowering (codegen/emit_libdevice.cpp) read. Each row gives the
// argument and result types (Numba's signatures: pointer outputs become
// tuple results) and how the value is computed: CUDA calls its own math
// function or intrinsic; OpenCL and the CPU evaluate a portable C
// expression over C99 math. A row without an implementation is a name
// Numba has that simt does not compute: using it is a TypingError.
#pragma once

#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "sema/intrinsics.h"
#include "sema/types.h"

namespace simt::sema {

struct LibdeviceFunction {
  std::string name;  // without __nv_: "sinf"
  // The result types, '(' the argument types ')': f float32, d float64,
  // i int32, l int64, h int16 ("fi(f)": frexpf(float32) -> (float32, int32)).
  std::string signature;
  // The helper's code for OpenCL and the CPU, one part per result separated
  // by '|||'; empty: not implemented. A part is an expression, or a function
  // body when it holds `return`. Arguments are a, b, c; `@sin` is the math
  // function for the row's float type; `$h $i $u $l $U $f $d` are int16,
  // int32, uint32, int64, uint64, float and double; F2U( U2F( D2U( U2D( are
  // the bit casts between float/uint32 and double/uint64; `#popc$u` is a
  // codegen helper for a type (emit_libdevice.cpp lists them: cuda.popc's,
  // float16's conversions, the Bessel functions, the fma error's sign).
  std::string portable;
  std::string cuda;  // the same for CUDA, where it differs (its own functions)

  bool implemented() const { return !portable.empty(); }
  std::vector<Scalar> results() const;
  std::vector<Scalar> arguments() const;
  // The float type `@name` spells math functions in: a float result's, else
  // the first float argument's.
  Scalar real() const;
};

// The row of `name` ("sinf"), or nullptr.
const LibdeviceFunction* find_libdevice(std::string_view name);
std::span<const LibdeviceFunction> libdevice_table();

// The intrinsic of "simt.libdevice.<name>" (Rule::Libdevice, c_name the
// name), or nullptr.
const Intrinsic* find_libdevice_intrinsic(std::string_view qualified_name);

}  // namespace simt::sema
