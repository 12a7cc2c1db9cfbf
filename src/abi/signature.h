// The one reader of the signatures users write, in Numba's vocabulary: cuda.jit's
// "void(float32[:], int64)", the result-less "(float32[::1], float32)" and the bare
// "float32[:], int64", a device function's or declare_device's "float32(f4, CPointer(i4))"
// and "none(...)". Every facade reads them here, so none can read one otherwise.
#pragma once

#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "abi/arg_type.h"

namespace simt::abi {

// One parameter: a kernel argument's type, or `CPointer(scalar)` (a pointer parameter of a
// function written in C, declare_device's; `type` is then the pointee's scalar type).
struct SignatureParam {
  ArgType type;
  bool pointer = false;

  // ArgType::str(), or "CPointer(float32)".
  std::string str() const;
  bool operator==(const SignatureParam&) const = default;
};

struct Signature {
  // nullopt where the text declares none ("void(...)", "none(...)", "(...)", the bare form).
  std::optional<ArgType> result;
  std::vector<SignatureParam> params;
};

// Reads `text`; nullopt with `*why_not` (when given) naming the text and what is wrong.
std::optional<Signature> parse_signature(std::string_view text, std::string* why_not);

}  // namespace simt::abi
