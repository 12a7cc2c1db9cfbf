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
#if defined(cl_khr_int64_base_atomics)
#pragma OPENCL EXTENSION cl_khr_int64_base_atomics : enable
#endif
#if defined(cl_khr_int64_extended_atomics)
#pragma OPENCL EXTENSION cl_khr_int64_extended_atomics : enable
#endif
#pragma OPENCL FP_CONTRACT OFF
typedef long simt_i64;
)";

// The CPU backend calls `simt_kernel_<name>(ctx, args)` once per block;
// threads of the block run as loops inside it.
constexpr std::string_view kCppPrelude = R"(typedef long long simt_i64;
extern "C" int printf(const char*, ...);
extern "C" void* calloc(unsigned long, unsigned long);
extern "C" void free(void*);
struct simt_block_ctx {
  simt_i64 grid_dim[3];
  simt_i64 block_dim[3];
  simt_i64 block_idx[3];
  void* dynamic_shared;
};
static inline unsigned int simt_cas32(unsigned int* p, unsigned int e, unsigned int d) {
  __atomic_compare_exchange_n(p, &e, d, false, __ATOMIC_RELAXED, __ATOMIC_RELAXED);
  return e;
}
static inline unsigned long long simt_cas64(unsigned long long* p, unsigned long long e,
                                            unsigned long long d) {
  __atomic_compare_exchange_n(p, &e, d, false, __ATOMIC_RELAXED, __ATOMIC_RELAXED);
  return e;
}
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
    "",
    "__shared__ ",
    "__syncthreads();",
    {"__syncthreads_count(%x)", "__syncthreads_and(%x)", "__syncthreads_or(%x)"},
    {"__threadfence()", "__threadfence_block()", "__threadfence_system()"},
    "atomicCAS((unsigned int*)(%p), %e, %d)",
    "atomicCAS((unsigned long long*)(%p), %e, %d)",
    {"atomicAdd(%p, %v)", "atomicSub(%p, %v)", "atomicMin(%p, %v)", "atomicMax(%p, %v)",
     "atomicAnd(%p, %v)", "atomicOr(%p, %v)", "atomicXor(%p, %v)", "atomicExch(%p, %v)"},
    {"(%T)atomicAdd((unsigned long long*)(%p), (unsigned long long)(%v))",
     "(%T)atomicAdd((unsigned long long*)(%p), 0ULL - (unsigned long long)(%v))",
     "atomicMin(%p, %v)", "atomicMax(%p, %v)",
     "(%T)atomicAnd((unsigned long long*)(%p), (unsigned long long)(%v))",
     "(%T)atomicOr((unsigned long long*)(%p), (unsigned long long)(%v))",
     "(%T)atomicXor((unsigned long long*)(%p), (unsigned long long)(%v))",
     "(%T)atomicExch((unsigned long long*)(%p), (unsigned long long)(%v))"},
    {"atomicAdd(%p, %v)", "atomicAdd(%p, %v)"},
    {"__shfl_sync(%m, %x, %l)", "__shfl_up_sync(%m, %x, %l)", "__shfl_down_sync(%m, %x, %l)",
     "__shfl_xor_sync(%m, %x, %l)"},
    {"__ballot_sync(%m, %x)", "__all_sync(%m, %x)", "__any_sync(%m, %x)"},
    "__activemask()",
    "warpSize",
    "static __constant__ ",
    "",
    {"", ""},  // NVRTC has no constant spelling of them: floats are stored as bits
    {"", ""},
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
    "__local ",
    "__local ",
    "barrier(CLK_LOCAL_MEM_FENCE | CLK_GLOBAL_MEM_FENCE);",
    {"", "", ""},
    {"mem_fence(CLK_GLOBAL_MEM_FENCE)", "mem_fence(CLK_LOCAL_MEM_FENCE | CLK_GLOBAL_MEM_FENCE)",
     "mem_fence(CLK_GLOBAL_MEM_FENCE)"},
    "atomic_cmpxchg((volatile %Suint*)(%p), %e, %d)",
    "atom_cmpxchg((volatile %Sulong*)(%p), %e, %d)",
    {"atomic_add(%p, %v)", "atomic_sub(%p, %v)", "atomic_min(%p, %v)", "atomic_max(%p, %v)",
     "atomic_and(%p, %v)", "atomic_or(%p, %v)", "atomic_xor(%p, %v)", "atomic_xchg(%p, %v)"},
    {"atom_add(%p, %v)", "atom_sub(%p, %v)", "atom_min(%p, %v)", "atom_max(%p, %v)",
     "atom_and(%p, %v)", "atom_or(%p, %v)", "atom_xor(%p, %v)", "atom_xchg(%p, %v)"},
    {"", ""},
    {"", "", "", ""},
    {"", "", ""},
    "",
    "",
    "__constant ",
    "__constant ",
    // Clang's builtins: PoCL's NAN and NVIDIA's INFINITY are not constant
    // expressions, so they cannot initialize __constant arrays.
    {"__builtin_inff()", "(double)__builtin_inff()"},
    {"__builtin_nanf(\"\")", "(double)__builtin_nanf(\"\")"},
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
    "",
    "",
    "",
    {"", "", ""},
    {"__atomic_thread_fence(__ATOMIC_SEQ_CST)", "__atomic_thread_fence(__ATOMIC_SEQ_CST)",
     "__atomic_thread_fence(__ATOMIC_SEQ_CST)"},
    "simt_cas32((unsigned int*)(%p), %e, %d)",
    "simt_cas64((unsigned long long*)(%p), %e, %d)",
    {"__atomic_fetch_add(%p, %v, __ATOMIC_RELAXED)", "__atomic_fetch_sub(%p, %v, __ATOMIC_RELAXED)",
     "__atomic_fetch_min(%p, %v, __ATOMIC_RELAXED)", "__atomic_fetch_max(%p, %v, __ATOMIC_RELAXED)",
     "__atomic_fetch_and(%p, %v, __ATOMIC_RELAXED)", "__atomic_fetch_or(%p, %v, __ATOMIC_RELAXED)",
     "__atomic_fetch_xor(%p, %v, __ATOMIC_RELAXED)",
     "__atomic_exchange_n(%p, %v, __ATOMIC_RELAXED)"},
    {"__atomic_fetch_add(%p, %v, __ATOMIC_RELAXED)", "__atomic_fetch_sub(%p, %v, __ATOMIC_RELAXED)",
     "__atomic_fetch_min(%p, %v, __ATOMIC_RELAXED)", "__atomic_fetch_max(%p, %v, __ATOMIC_RELAXED)",
     "__atomic_fetch_and(%p, %v, __ATOMIC_RELAXED)", "__atomic_fetch_or(%p, %v, __ATOMIC_RELAXED)",
     "__atomic_fetch_xor(%p, %v, __ATOMIC_RELAXED)",
     "__atomic_exchange_n(%p, %v, __ATOMIC_RELAXED)"},
    {"", ""},
    {"", "", "", ""},
    {"", "", ""},
    "",
    "32",
    "static const ",
    "const ",
    {"__builtin_huge_valf()", "__builtin_huge_val()"},
    {"__builtin_nanf(\"\")", "__builtin_nan(\"\")"},
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
