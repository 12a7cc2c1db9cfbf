// The three dialect tables. Everything that differs between CUDA C++,
// OpenCL C and the CPU's C++ is a row here; emitter.cpp reads them.
#include "codegen/dialect.h"

namespace simt::codegen {

namespace {

// Generated code includes no headers: each dialect's prelude declares what
// kernels need.
constexpr std::string_view kCudaPrelude = R"(typedef long long simt_i64;
)";

// FP_CONTRACT is on by default in OpenCL C: off, a*b+c rounds twice as in
// NumPy and on the other backends (the CUDA and CPU rows get that from
// compiler options).
constexpr std::string_view kOpenCLPrelude = R"(#if defined(cl_khr_fp64)
#pragma OPENCL EXTENSION cl_khr_fp64 : enable
#endif
#pragma OPENCL FP_CONTRACT OFF
typedef long simt_i64;
)";

// The CPU backend calls `simt_kernel_<name>(ctx, args)` once per block;
// threads of the block run as loops inside it.
constexpr std::string_view kCppPrelude = R"(typedef long long simt_i64;
extern "C" int printf(const char*, ...);
struct simt_block_ctx {
  simt_i64 grid_dim[3];
  simt_i64 block_dim[3];
  simt_i64 block_idx[3];
};
struct simt_thread {
  simt_i64 x, y, z;
};
)";

const Dialect kCuda{
    DialectId::Cuda,
    "cuda",
    {"bool", "signed char", "short", "int", "long long", "unsigned char", "unsigned short",
     "unsigned int", "unsigned long long", "float", "float", "double", "simt_c64", "simt_c128"},
    {"unsigned char", "signed char", "short", "int", "long long", "unsigned char", "unsigned short",
     "unsigned int", "unsigned long long", "unsigned short", "float", "double", "simt_c64",
     "simt_c128"},
    "extern \"C\" __global__ ",
    "static __device__ __forceinline__ ",
    "",
    "",
    "",
    "",
    "%lld",
    "%llu",
    "LL",
    "ULL",
    {{{"threadIdx.x", "threadIdx.y", "threadIdx.z"},
      {"blockIdx.x", "blockIdx.y", "blockIdx.z"},
      {"blockDim.x", "blockDim.y", "blockDim.z"},
      {"gridDim.x", "gridDim.y", "gridDim.z"}}},
    "",
    true,
    "isnan",
    "isinf",
    "isfinite",
    "helper",
    "__float_as_uint(%x)",
    "__uint_as_float(%x)",
    "__double_as_longlong(%x)",
    "__longlong_as_double(%x)",
    kCudaPrelude,
};

const Dialect kOpenCL{
    DialectId::OpenCL,
    "opencl",
    {"bool", "char", "short", "int", "long", "uchar", "ushort", "uint", "ulong", "float", "float",
     "double", "simt_c64", "simt_c128"},
    {"uchar", "char", "short", "int", "long", "uchar", "ushort", "uint", "ulong", "ushort", "float",
     "double", "simt_c64", "simt_c128"},
    "__kernel ",
    "static inline ",
    "",
    "",
    "__global ",
    "ulong",
    "%ld",
    "%lu",
    "L",
    "UL",
    {{{"get_local_id(0)", "get_local_id(1)", "get_local_id(2)"},
      {"get_group_id(0)", "get_group_id(1)", "get_group_id(2)"},
      {"get_local_size(0)", "get_local_size(1)", "get_local_size(2)"},
      {"get_num_groups(0)", "get_num_groups(1)", "get_num_groups(2)"}}},
    "",
    false,
    "isnan",
    "isinf",
    "isfinite",
    "helper",
    "as_uint(%x)",
    "as_float(%x)",
    "as_long(%x)",
    "as_double(%x)",
    kOpenCLPrelude,
};

const Dialect kCpp{
    DialectId::Cpp,
    "cpp",
    {"bool", "signed char", "short", "int", "long long", "unsigned char", "unsigned short",
     "unsigned int", "unsigned long long", "float", "float", "double", "simt_c64", "simt_c128"},
    {"unsigned char", "signed char", "short", "int", "long long", "unsigned char", "unsigned short",
     "unsigned int", "unsigned long long", "unsigned short", "float", "double", "simt_c64",
     "simt_c128"},
    "extern \"C\" ",
    "static inline ",
    "const simt_block_ctx* simt_ctx, simt_thread simt_tid",
    "simt_ctx, simt_tid",
    "",
    "",
    "%lld",
    "%llu",
    "LL",
    "ULL",
    {{{"simt_tid.x", "simt_tid.y", "simt_tid.z"},
      {"simt_ctx->block_idx[0]", "simt_ctx->block_idx[1]", "simt_ctx->block_idx[2]"},
      {"simt_ctx->block_dim[0]", "simt_ctx->block_dim[1]", "simt_ctx->block_dim[2]"},
      {"simt_ctx->grid_dim[0]", "simt_ctx->grid_dim[1]", "simt_ctx->grid_dim[2]"}}},
    "__builtin_",
    true,
    "__builtin_isnan",
    "__builtin_isinf",
    "__builtin_isfinite",
    "",
    "__builtin_bit_cast(unsigned int, %x)",
    "__builtin_bit_cast(float, %x)",
    "__builtin_bit_cast(long long, %x)",
    "__builtin_bit_cast(double, %x)",
    kCppPrelude,
};

}  // namespace

std::string_view Dialect::index_expr(IndexObject object, int component) const {
  return index_objects[static_cast<int>(object)][component];
}

std::string Dialect::math_name(std::string_view c_name, sema::Scalar real) const {
  std::string name = std::string(math_prefix) + std::string(c_name);
  if (float_suffix && real != sema::Scalar::Float64) name += 'f';
  return name;
}

const Dialect& dialect(DialectId id) {
  switch (id) {
    case DialectId::Cuda:
      return kCuda;
    case DialectId::OpenCL:
      return kOpenCL;
    case DialectId::Cpp:
      return kCpp;
  }
  return kCuda;
}

std::optional<DialectId> dialect_from_name(std::string_view name) {
  if (name == "cuda") return DialectId::Cuda;
  if (name == "opencl") return DialectId::OpenCL;
  if (name == "cpp" || name == "cpu") return DialectId::Cpp;
  return std::nullopt;
}

}  // namespace simt::codegen
