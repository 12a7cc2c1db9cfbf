// The three dialect tables. Everything that differs between CUDA C++,
// OpenCL C and the CPU's C++ is a row here, written as the fields where the
// row differs from the defaults in dialect.h; codegen/emit_*.cpp read them.
#include "abi/cpu_entry.h"
#include "codegen/cuda_native_half.h"
#include "codegen/dialect.h"

namespace simt::codegen {

namespace {

// Generated code includes no headers: each dialect's prelude declares what
// kernels need.
constexpr std::string_view kCudaPrelude = R"(typedef long long simt_i64;
)";

// A kernel's register cap (Dialect::max_registers): __maxnreg__, which NVRTC
// understands from 12.4 on; an older one compiles the kernel without it.
constexpr std::string_view kCudaRegisterCap =
    R"(#if __CUDACC_VER_MAJOR__ > 12 || (__CUDACC_VER_MAJOR__ == 12 && __CUDACC_VER_MINOR__ >= 4)
#define SIMT_MAXNREG __maxnreg__(%n)
#else
#define SIMT_MAXNREG
#endif
)";

// FP_CONTRACT is on by default in OpenCL C: off, a*b+c rounds twice as in
// NumPy and on the other backends (the CUDA and CPU rows get that from
// compiler options).
// Ahead of a CuPy snippet kernel's preamble on OpenCL: CUDA's qualifiers, and
// the CUDA math a CuPy preamble calls that OpenCL C lacks (its `abs` is for
// integers only; `erfinv`/`erfcinv`, CUDA's float-suffixed names). `inline`
// carries always_inline: OpenCL C's `inline` alone is C99's, which defines no
// function to call where the compiler does not inline it. The overloads need
// Clang's `overloadable` (PoCL, and the Clang-based vendor compilers).
constexpr std::string_view kOpenCLCudaSpellings = R"(#ifndef __device__
#define __device__ __attribute__((always_inline))
#define __host__
#define __forceinline__ inline
#define __noinline__ __attribute__((noinline))
#define __inline__ inline
#define __restrict__ restrict
#endif
#if defined(__clang__) && !defined(SIMT_CUDA_MATH)
#define SIMT_CUDA_MATH
#define SIMT_OVERLOAD static inline __attribute__((overloadable, always_inline))
#define SIMT_INT_ABS(T) SIMT_OVERLOAD T simt_cuda_abs(T x) { return x < 0 ? -x : x; }
#define SIMT_UINT_ABS(T) SIMT_OVERLOAD T simt_cuda_abs(T x) { return x; }
SIMT_INT_ABS(char) SIMT_INT_ABS(short) SIMT_INT_ABS(int) SIMT_INT_ABS(long)
SIMT_UINT_ABS(uchar) SIMT_UINT_ABS(ushort) SIMT_UINT_ABS(uint) SIMT_UINT_ABS(ulong)
/* Halley's steps on erf(x) - y (erfc(x) - z), from Winitzki's closed form: the
   derivative is 2/sqrt(pi) exp(-x^2) (its negative), so a step is f / (f' + x f).
   z (2 - z) is 1 - y^2 without the rounding of 1 - y in the tails. */
#define SIMT_ERF_INVERSES(T)                                                      \
  SIMT_OVERLOAD T simt_cuda_abs(T x) { return fabs(x); }                          \
  SIMT_OVERLOAD T simt_erfinv_start(T one_minus_y2, T sign) {                     \
    T w = -log(one_minus_y2), b = (T)4.3307467508 - w / (T)2;                     \
    return sign * sqrt(sqrt(b * b + w / (T)0.147) - b);                           \
  }                                                                               \
  SIMT_OVERLOAD T erfinv(T y) {                                                   \
    if (!(y > (T)-1 && y < (T)1)) return y == (T)1 ? INFINITY : y == (T)-1 ? -INFINITY : NAN; \
    T x = simt_erfinv_start(((T)1 - y) * ((T)1 + y), y < 0 ? (T)-1 : (T)1);       \
    for (int k = 0; k < 3; ++k) {                                                 \
      T f = erf(x) - y;                                                           \
      x -= f / ((T)1.1283791670955126 * exp(-x * x) + x * f);                    \
    }                                                                             \
    return x;                                                                     \
  }                                                                               \
  SIMT_OVERLOAD T erfcinv(T z) {                                                  \
    if (!(z > (T)0 && z < (T)2)) return z == (T)0 ? INFINITY : z == (T)2 ? -INFINITY : NAN; \
    T x = simt_erfinv_start(z * ((T)2 - z), z > (T)1 ? (T)-1 : (T)1);             \
    for (int k = 0; k < 3; ++k) {                                                 \
      T f = erfc(x) - z;                                                          \
      x -= f / ((T)-1.1283791670955126 * exp(-x * x) + x * f);                   \
    }                                                                             \
    return x;                                                                     \
  }
SIMT_ERF_INVERSES(float)
#if defined(cl_khr_fp64) || defined(__opencl_c_fp64)
#pragma OPENCL EXTENSION cl_khr_fp64 : enable
SIMT_ERF_INVERSES(double)
#endif
/* CUDA's atomic functions on global and local memory: OpenCL's own for 32-bit integers
   (its 64-bit ones where the device has the extensions), a compare-and-swap loop on the
   bits for floats and for CUDA's wrapping atomicInc/atomicDec. The type parameters are
   TY and UY, never a snippet's type name: `T(x)` there is rewritten as a cast. */
#define SIMT_ATOMIC_FN(AS, NAME, TY, FN) \
  SIMT_OVERLOAD TY NAME(AS TY* p, TY v) { return FN((volatile AS TY*)p, v); }
#define SIMT_ATOMIC_CAS_LOOP(AS, NAME, TY, UY, CAS, NEW)                              \
  SIMT_OVERLOAD TY NAME(AS TY* p, TY v) {                                              \
    volatile AS UY* q = (volatile AS UY*)p;                                           \
    UY seen, old = *q;                                                               \
    do {                                                                            \
      seen = old;                                                                   \
      const TY x = as_##TY (seen);                                                     \
      old = CAS(q, seen, as_##UY (NEW));                                              \
    } while (old != seen);                                                          \
    return as_##TY (old);                                                             \
  }
#define SIMT_ATOMIC_CAS(AS, TY, CAS) \
  SIMT_OVERLOAD TY atomicCAS(AS TY* p, TY expected, TY v) { return CAS((volatile AS TY*)p, expected, v); }
#define SIMT_ATOMIC_INTS(AS, TY, P)                                                       \
  SIMT_ATOMIC_FN(AS, atomicAdd, TY, P##_add) SIMT_ATOMIC_FN(AS, atomicSub, TY, P##_sub)   \
  SIMT_ATOMIC_FN(AS, atomicExch, TY, P##_xchg) SIMT_ATOMIC_CAS(AS, TY, P##_cmpxchg)
#define SIMT_ATOMIC_ORDERS(AS, TY, P)                                                     \
  SIMT_ATOMIC_FN(AS, atomicMin, TY, P##_min) SIMT_ATOMIC_FN(AS, atomicMax, TY, P##_max)   \
  SIMT_ATOMIC_FN(AS, atomicAnd, TY, P##_and) SIMT_ATOMIC_FN(AS, atomicOr, TY, P##_or)     \
  SIMT_ATOMIC_FN(AS, atomicXor, TY, P##_xor)
#define SIMT_ATOMICS_32(AS)                                                              \
  SIMT_ATOMIC_INTS(AS, int, atomic) SIMT_ATOMIC_INTS(AS, uint, atomic)                   \
  SIMT_ATOMIC_ORDERS(AS, int, atomic) SIMT_ATOMIC_ORDERS(AS, uint, atomic)               \
  SIMT_ATOMIC_CAS_LOOP(AS, atomicAdd, float, uint, atomic_cmpxchg, x + v)                \
  SIMT_ATOMIC_FN(AS, atomicExch, float, atomic_xchg)                                     \
  SIMT_ATOMIC_CAS_LOOP(AS, atomicInc, uint, uint, atomic_cmpxchg, x >= v ? 0u : x + 1u)  \
  SIMT_ATOMIC_CAS_LOOP(AS, atomicDec, uint, uint, atomic_cmpxchg,                        \
                       (x == 0u || x > v) ? v : x - 1u)
SIMT_ATOMICS_32(__global) SIMT_ATOMICS_32(__local)
#if defined(cl_khr_int64_base_atomics)
#pragma OPENCL EXTENSION cl_khr_int64_base_atomics : enable
#define SIMT_ATOMICS_64(AS)                                                              \
  SIMT_ATOMIC_INTS(AS, long, atom) SIMT_ATOMIC_INTS(AS, ulong, atom)
SIMT_ATOMICS_64(__global) SIMT_ATOMICS_64(__local)
#if defined(cl_khr_fp64) || defined(__opencl_c_fp64)
#define SIMT_ATOMICS_F64(AS) \
  SIMT_ATOMIC_CAS_LOOP(AS, atomicAdd, double, ulong, atom_cmpxchg, x + v)
SIMT_ATOMICS_F64(__global) SIMT_ATOMICS_F64(__local)
#endif
#endif
#if defined(cl_khr_int64_extended_atomics)
#pragma OPENCL EXTENSION cl_khr_int64_extended_atomics : enable
#define SIMT_ATOMICS_64_ORDERS(AS) \
  SIMT_ATOMIC_ORDERS(AS, long, atom) SIMT_ATOMIC_ORDERS(AS, ulong, atom)
SIMT_ATOMICS_64_ORDERS(__global) SIMT_ATOMICS_64_ORDERS(__local)
#endif
#undef abs
#define abs(x) simt_cuda_abs(x)
#define sqrtf sqrt
#define rsqrtf rsqrt
#define expf exp
#define exp2f exp2
#define logf log
#define log2f log2
#define log10f log10
#define powf pow
#define fabsf fabs
#define sinf sin
#define cosf cos
#define tanf tan
#define tanhf tanh
#define atanf atan
#define atan2f atan2
#define floorf floor
#define ceilf ceil
#define fminf fmin
#define fmaxf fmax
#define fmodf fmod
#define erff erf
#define erfcf erfc
#define erfinvf erfinv
#define erfcinvf erfcinv
#endif
)";

// simt_complex64_work (Dialect::complex64_work) names double by pasting: the runtime's
// check for code computing in float64 (check_requirements) reads the source's words, not
// its #if, and would refuse every kernel on devices without fp64.
constexpr std::string_view kOpenCLPrelude = R"(#if defined(cl_khr_fp64)
#pragma OPENCL EXTENSION cl_khr_fp64 : enable
#define SIMT_PASTE(a, b) a##b
typedef SIMT_PASTE(dou, ble) simt_complex64_work;
#else
typedef float simt_complex64_work;
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

// CUDA's warps on OpenCL (kOpenCL's warp spellings). Where the device has 32-lane
// sub-groups (its DeviceInfo::warps_in_rows), warps are sub-groups. The shuffles take
// their source lane by CUDA's rule, as the CPU's fibers do (backends/cpu/fibers.cpp):
// the reader's own lane where the source lies outside the warp. What a lane shuffles or
// votes goes through a volatile first: Intel's compiler takes a sub-group function for a
// function of the work-item's own operands, so where a lane's result goes unused (a
// thread past the end of the array, whose store is guarded) it computed the operand
// from the wrong branch (`x[i] if i < n else x[0]` became `x[i]`), and the other lanes
// read that. Matches compare bits, through one overload per type (Clang's OpenCL C,
// which every driver with these extensions compiles with).
//
// Where it has none (PoCL, NVIDIA's OpenCL), the device defines SIMT_WARP_SCRATCH (its
// largest work-group, in whole warps: OpenCLDevice::build_options) and a kernel using a
// warp operation declares that many 8-byte __local slots (kOpenCLWarpStorage): each
// operation stores every work-item's operand in its slot, waits at a work-group
// barrier, reads its warp's slots (warps being 32 consecutive work-items of the
// block's linear order, as in CUDA) and waits again before the slots are reused. So
// every work-item of the block must reach it (passes::first_divergent_warp_call; the
// device rejects the others), and every lane then takes part, whatever the mask: CUDA
// leaves what a lane outside the mask contributes unspecified. These helpers are
// always_inline: as ordinary calls, PoCL 3.1 (its default work-group method, CBS) ran
// their barriers wrongly in about half of the fresh builds of a test module, a lane
// reading another's slot as it was before the work-group's stores; inlined, the barriers
// are the kernel's own. The slots are read and written as volatile, so that no load is
// forwarded or moved across a barrier. The helpers take the kernel's slots through
// macros naming them, which a device function lacks (warp operations there are
// rejected too).
constexpr std::string_view kOpenCLWarps =
    R"(#if defined(SIMT_WARP_SCRATCH)
#define SIMT_WARP_KERNEL
static inline __attribute__((always_inline)) uint simt_warp_tid(void) {
  return (uint)(get_local_id(0) + get_local_size(0) * (get_local_id(1) + get_local_size(1) * get_local_id(2)));
}
static inline __attribute__((always_inline)) uint simt_warp_threads(void) {
  return (uint)(get_local_size(0) * get_local_size(1) * get_local_size(2));
}
#define SIMT_WARP_INLINE __attribute__((always_inline))
#define SIMT_WARP_LANE() (simt_warp_tid() & 31u)
static inline __attribute__((always_inline)) uint simt_warp_width(void) {
  return min(simt_warp_threads() - (simt_warp_tid() & ~31u), 32u);
}
static inline __attribute__((always_inline)) uint simt_warp_active(void) {
  const uint n = simt_warp_width();
  return n >= 32u ? 0xffffffffu : (1u << n) - 1u;
}
#define SIMT_WARP_SHUFFLE(T)                                                                \
  static inline __attribute__((always_inline)) T __attribute__((overloadable)) simt_warp_shuffle_in(__local ulong* s, T v, \
                                                                     uint src) {            \
    const uint t = simt_warp_tid();                                                         \
    const uint from = (t & ~31u) + src;                                                     \
    ((volatile __local T*)s)[t] = v;                                                        \
    barrier(CLK_LOCAL_MEM_FENCE);                                                           \
    const T r = from < simt_warp_threads() ? ((volatile __local T*)s)[from] : v;            \
    barrier(CLK_LOCAL_MEM_FENCE);                                                           \
    return r;                                                                               \
  }
#define simt_warp_shuffle(v, src) simt_warp_shuffle_in(simt_warp_scratch, v, src)
static inline __attribute__((always_inline)) uint simt_warp_ballot_in(__local ulong* s, int p) {
  const uint t = simt_warp_tid(), first = t & ~31u, n = simt_warp_width();
  ((volatile __local uint*)s)[t] = p != 0;
  barrier(CLK_LOCAL_MEM_FENCE);
  uint bits = 0u;
  for (uint j = 0; j < n; ++j) bits |= (((volatile __local uint*)s)[first + j] != 0u ? 1u : 0u) << j;
  barrier(CLK_LOCAL_MEM_FENCE);
  return bits;
}
#define simt_warp_ballot(p) simt_warp_ballot_in(simt_warp_scratch, p)
static inline __attribute__((always_inline)) int simt_warp_all_in(__local ulong* s, uint mask, int p) {
  const uint named = mask & simt_warp_active();
  return (simt_warp_ballot_in(s, p) & named) == named;
}
#define simt_warp_all(mask, p) simt_warp_all_in(simt_warp_scratch, mask, p)
#define SIMT_WARP_BARRIER() barrier(CLK_LOCAL_MEM_FENCE | CLK_GLOBAL_MEM_FENCE)
#define SIMT_WARP_MATCH(T, B, BITS)                                                         \
  static inline __attribute__((always_inline)) uint __attribute__((overloadable)) simt_warp_match_in(__local ulong* s, \
                                                                      uint mask, T v,       \
                                                                      int* all) {           \
    const uint named = mask & simt_warp_active();                                           \
    const uint t = simt_warp_tid(), first = t & ~31u, n = simt_warp_width();                \
    const B bits = BITS(v);                                                                 \
    ((volatile __local B*)s)[t] = bits;                                                     \
    barrier(CLK_LOCAL_MEM_FENCE);                                                           \
    uint same = 0u;                                                                         \
    for (uint j = 0; j < n; ++j)                                                            \
      if (((volatile __local B*)s)[first + j] == bits) same |= 1u << j;                     \
    barrier(CLK_LOCAL_MEM_FENCE);                                                           \
    same &= named;                                                                          \
    if (!all) return same;                                                                  \
    *all = same == named;                                                                   \
    return same == named ? named : 0u;                                                      \
  }
#define simt_warp_match(mask, v, all) simt_warp_match_in(simt_warp_scratch, mask, v, all)
#else
#pragma OPENCL EXTENSION cl_khr_subgroup_shuffle : enable
#pragma OPENCL EXTENSION cl_khr_subgroup_ballot : enable
#define SIMT_WARP_KERNEL __attribute__((intel_reqd_sub_group_size(32)))
#define SIMT_WARP_INLINE
#define SIMT_WARP_LANE() get_sub_group_local_id()
#define SIMT_WARP_SHUFFLE(T)                                                               \
  static inline T __attribute__((overloadable)) simt_warp_shuffle(T v, uint src) {         \
    volatile T operand = v;                                                                \
    return sub_group_shuffle(operand, src);                                                \
  }
static inline uint simt_warp_ballot(int p) {
  volatile int operand = p;
  return sub_group_ballot(operand).x;
}
static inline uint simt_warp_active(void) { return sub_group_ballot(1).x; }
static inline int simt_warp_all(uint mask, int p) {
  const uint named = mask & simt_warp_active();
  return (simt_warp_ballot(p) & named) == named;
}
#define SIMT_WARP_BARRIER() sub_group_barrier(CLK_LOCAL_MEM_FENCE | CLK_GLOBAL_MEM_FENCE)
#define SIMT_WARP_MATCH(T, B, BITS)                                                            \
  static inline uint __attribute__((overloadable)) simt_warp_match(uint mask, T v, int* all) { \
    const uint named = mask & simt_warp_active();                                              \
    const B bits = BITS(v);                                                                    \
    uint same = 0u;                                                                            \
    for (uint j = 0; j < get_sub_group_size(); ++j)                                            \
      if (simt_warp_shuffle(bits, j) == bits) same |= 1u << j;                                 \
    same &= named;                                                                             \
    if (!all) return same;                                                                     \
    *all = same == named;                                                                      \
    return same == named ? named : 0u;                                                         \
  }
#endif
SIMT_WARP_SHUFFLE(int)
SIMT_WARP_SHUFFLE(uint)
SIMT_WARP_SHUFFLE(long)
SIMT_WARP_SHUFFLE(ulong)
SIMT_WARP_SHUFFLE(float)
#if defined(cl_khr_fp64)
SIMT_WARP_SHUFFLE(double)
#endif
#undef SIMT_WARP_SHUFFLE
static inline SIMT_WARP_INLINE uint simt_warp_source(int kind, int arg) {
  const long lane = (long)SIMT_WARP_LANE();
  const long src = kind == 0 ? (long)(arg & 31) : kind == 1 ? lane - arg
                 : kind == 2 ? lane + arg : lane ^ (long)arg;
  return (uint)(arg < 0 || src < 0 || src >= 32 ? lane : src);
}
SIMT_WARP_MATCH(int, uint, as_uint)
SIMT_WARP_MATCH(uint, uint, )
SIMT_WARP_MATCH(float, uint, as_uint)
SIMT_WARP_MATCH(long, ulong, as_ulong)
SIMT_WARP_MATCH(ulong, ulong, )
#if defined(cl_khr_fp64)
SIMT_WARP_MATCH(double, ulong, as_ulong)
#endif
#undef SIMT_WARP_MATCH
)";

// A kernel's warp slots where the device has no sub-groups (kOpenCLWarps).
constexpr std::string_view kOpenCLWarpStorage =
    "#if defined(SIMT_WARP_SCRATCH)\n"
    "  __local ulong simt_warp_scratch[SIMT_WARP_SCRATCH];\n"
    "#endif\n";

// The CPU backend calls `simt_kernel_<name>(ctx, args)` once per block;
// threads of the block run as loops inside it (abi/cpu_entry.h).
constexpr std::string_view kCppPrelude =
    R"(typedef long long simt_i64;
extern "C" int printf(const char*, ...);
extern "C" void* calloc(unsigned long, unsigned long);
extern "C" void free(void*);
#if defined(__clang__)
#define SIMT_ASSUME(x) __builtin_assume(x)
#else
#define SIMT_ASSUME(x) ((x) ? (void)0 : __builtin_unreachable())
#endif
)" SIMT_CPU_BLOCK_CONTEXT_C
    R"(static inline unsigned int simt_cas32(unsigned int* p, unsigned int e, unsigned int d) {
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
template <class T>
static inline T simt_fiber_shfl(const simt_block_ctx* c, int kind, int site, unsigned int mask,
                                T x, simt_i64 lane) {
  simt_fiber_op op = {kind, site, mask, 0, lane, {0, 0}, {0, 0}};
  __builtin_memcpy(op.value, &x, sizeof x);
  c->fibers->warp(c, &op);
  T r;
  __builtin_memcpy(&r, op.result, sizeof r);
  return r;
}
static inline unsigned int simt_fiber_vote(const simt_block_ctx* c, int kind, int site,
                                           unsigned int mask, int pred) {
  simt_fiber_op op = {kind, site, mask, pred, 0, {0, 0}, {0, 0}};
  c->fibers->warp(c, &op);
  const unsigned int r = op.result[0];
  return r;
}
template <class T>
static inline unsigned int simt_fiber_match(const simt_block_ctx* c, int kind, int site,
                                            unsigned int mask, T x, int* pred) {
  simt_fiber_op op = {kind, site, mask, 0, 0, {0, 0}, {0, 0}};
  __builtin_memcpy(op.value, &x, sizeof x);
  c->fibers->warp(c, &op);
  if (pred) *pred = op.pred;
  const unsigned int r = op.result[0];
  return r;
}
)";

// The CPU's atomics are the compiler's builtins, the same for 32 and 64 bits.
constexpr std::array<std::string_view, 8> kCppAtomics{
    "__atomic_fetch_add(%p, %v, __ATOMIC_RELAXED)",
    "__atomic_fetch_sub(%p, %v, __ATOMIC_RELAXED)",
    "__atomic_fetch_min(%p, %v, __ATOMIC_RELAXED)",
    "__atomic_fetch_max(%p, %v, __ATOMIC_RELAXED)",
    "__atomic_fetch_and(%p, %v, __ATOMIC_RELAXED)",
    "__atomic_fetch_or(%p, %v, __ATOMIC_RELAXED)",
    "__atomic_fetch_xor(%p, %v, __ATOMIC_RELAXED)",
    "__atomic_exchange_n(%p, %v, __ATOMIC_RELAXED)"};

// The grid barrier of a cooperative launch, without <cooperative_groups.h>
// (NVRTC finds no headers): bar[0] counts the blocks that arrived, bar[1] is
// the generation. Each block's first thread reads the generation before it
// arrives (the last arrival cannot move it on before this block arrives), the
// last arrival resets the count and then moves the generation on, and the
// others spin until it does. The fences make each block's writes before the
// barrier visible to every block after it (__syncthreads orders the block's
// own threads around its first thread's fences). The count is back at 0
// after every barrier; the launch zeroes both words before the kernel runs.
constexpr std::string_view kCudaGridSync =
    R"(static __device__ __noinline__ int simt_grid_sync(unsigned int* bar) {
  __syncthreads();
  if (threadIdx.x == 0 && threadIdx.y == 0 && threadIdx.z == 0) {
    const unsigned int blocks = gridDim.x * gridDim.y * gridDim.z;
    volatile unsigned int* generation = bar + 1;
    const unsigned int seen = *generation;
    __threadfence();
    if (atomicAdd(bar, 1u) == blocks - 1u) {
      atomicExch(bar, 0u);
      __threadfence();
      atomicAdd(bar + 1, 1u);
    } else {
      while (*generation == seen) {
      }
    }
    __threadfence();
  }
  __syncthreads();
  return 0;
}
)";

const Dialect kCuda{
    .id = abi::Language::Cuda,
    .name = "cuda",
    .kernel_prefix = "extern \"C\" __global__ ",
    .max_registers = {kCudaRegisterCap, "SIMT_MAXNREG "},
    .function_prefix = "static __device__ __forceinline__ ",
    .cold_function_prefix = "static __device__ __noinline__ ",
    .rolled_loop = "#pragma unroll 1",
    .index_objects = {{{"threadIdx.x", "threadIdx.y", "threadIdx.z"},
                       {"blockIdx.x", "blockIdx.y", "blockIdx.z"},
                       {"blockDim.x", "blockDim.y", "blockDim.z"},
                       {"gridDim.x", "gridDim.y", "gridDim.z"}}},
    .native_half = kCudaNativeHalf,
    .float_as_uint = "__float_as_uint(%x)",
    .uint_as_float = "__uint_as_float(%x)",
    .double_as_ulong = "__double_as_longlong(%x)",
    .ulong_as_double = "__longlong_as_double(%x)",
    .prelude = kCudaPrelude,
    .shared_decl = "__shared__ ",
    .dynamic_shared_storage =
        "  extern __shared__ __align__(16) unsigned char simt_dynamic_shared[];\n",
    .barrier = "__syncthreads();",
    .barrier_reduce = {"__syncthreads_count(%x)", "__syncthreads_and(%x)", "__syncthreads_or(%x)"},
    .fences = {"__threadfence()", "__threadfence_block()", "__threadfence_system()"},
    .grid_sync = "simt_grid_sync(simt_grid_barrier)",
    .grid_sync_helper = kCudaGridSync,
    .grid_barrier_type = "unsigned int*",
    .atomic_cas32 = "atomicCAS((unsigned int*)(%p), %e, %d)",
    .atomic_cas64 = "atomicCAS((unsigned long long*)(%p), %e, %d)",
    .atomic_int32 = {"atomicAdd(%p, %v)", "atomicSub(%p, %v)", "atomicMin(%p, %v)",
                     "atomicMax(%p, %v)", "atomicAnd(%p, %v)", "atomicOr(%p, %v)",
                     "atomicXor(%p, %v)", "atomicExch(%p, %v)"},
    .atomic_int64 = {"(%T)atomicAdd((unsigned long long*)(%p), (unsigned long long)(%v))",
                     "(%T)atomicAdd((unsigned long long*)(%p), 0ULL - (unsigned long long)(%v))",
                     "atomicMin(%p, %v)", "atomicMax(%p, %v)",
                     "(%T)atomicAnd((unsigned long long*)(%p), (unsigned long long)(%v))",
                     "(%T)atomicOr((unsigned long long*)(%p), (unsigned long long)(%v))",
                     "(%T)atomicXor((unsigned long long*)(%p), (unsigned long long)(%v))",
                     "(%T)atomicExch((unsigned long long*)(%p), (unsigned long long)(%v))"},
    .atomic_float_add = {"atomicAdd(%p, %v)", "atomicAdd(%p, %v)"},
    .shuffles = {"__shfl_sync(%m, %x, %l)", "__shfl_up_sync(%m, %x, %l)",
                 "__shfl_down_sync(%m, %x, %l)", "__shfl_xor_sync(%m, %x, %l)"},
    .votes = {"__ballot_sync(%m, %x)", "__all_sync(%m, %x)", "__any_sync(%m, %x)"},
    .syncwarp = "__syncwarp(%m)",
    .matches = {"__match_any_sync(%m, %x)", "__match_all_sync(%m, %x, %l)"},
    .activemask = "__activemask()",
    .warpsize = "warpSize",
    .constant_decl = "static __constant__ ",
    .constant_floats_as_bits = true,  // NVRTC has no constant spelling of infinity and NaN
};

const Dialect kOpenCL{
    .id = abi::Language::OpenCL,
    .name = "opencl",
    .value_types = {"bool", "char", "short", "int", "long", "uchar", "ushort", "uint", "ulong",
                    "float", "float", "double", "simt_c64", "simt_c128"},
    .storage_types = {"uchar", "char", "short", "int", "long", "uchar", "ushort", "uint", "ulong",
                      "ushort", "float", "double", "simt_c64", "simt_c128"},
    .kernel_prefix = "__kernel ",
    .global_space = "__global ",
    .array_offset_type = "ulong",
    .printf_int64 = "%ld",
    .printf_uint64 = "%lu",
    .int64_suffix = "L",
    .uint64_suffix = "UL",
    .index_objects = {{{"get_local_id(0)", "get_local_id(1)", "get_local_id(2)"},
                       {"get_group_id(0)", "get_group_id(1)", "get_group_id(2)"},
                       {"get_local_size(0)", "get_local_size(1)", "get_local_size(2)"},
                       {"get_num_groups(0)", "get_num_groups(1)", "get_num_groups(2)"}}},
    .float_suffix = false,
    .float_as_uint = "as_uint(%x)",
    .uint_as_float = "as_float(%x)",
    .double_as_ulong = "as_long(%x)",
    .ulong_as_double = "as_double(%x)",
    .complex64_work = "simt_complex64_work",
    .prelude = kOpenCLPrelude,
    .cuda_qualifiers = kOpenCLCudaSpellings,
    .source_suffix = ".cl",
    .shared_space = "__local ",
    .shared_decl = "__local ",
    .dynamic_shared_param = "__local uint4* simt_dynamic_shared",  // uint4: 16-byte alignment
    .barrier = "barrier(CLK_LOCAL_MEM_FENCE | CLK_GLOBAL_MEM_FENCE);",
    .fences = {"mem_fence(CLK_GLOBAL_MEM_FENCE)",
               "mem_fence(CLK_LOCAL_MEM_FENCE | CLK_GLOBAL_MEM_FENCE)",
               "mem_fence(CLK_GLOBAL_MEM_FENCE)"},
    .atomic_cas32 = "atomic_cmpxchg((volatile %Suint*)(%p), %e, %d)",
    .atomic_cas64 = "atom_cmpxchg((volatile %Sulong*)(%p), %e, %d)",
    .atomic_int32 = {"atomic_add(%p, %v)", "atomic_sub(%p, %v)", "atomic_min(%p, %v)",
                     "atomic_max(%p, %v)", "atomic_and(%p, %v)", "atomic_or(%p, %v)",
                     "atomic_xor(%p, %v)", "atomic_xchg(%p, %v)"},
    .atomic_int64 = {"atom_add(%p, %v)", "atom_sub(%p, %v)", "atom_min(%p, %v)", "atom_max(%p, %v)",
                     "atom_and(%p, %v)", "atom_or(%p, %v)", "atom_xor(%p, %v)",
                     "atom_xchg(%p, %v)"},
    .shuffles = {"simt_warp_shuffle(%x, simt_warp_source(0, %l))",
                 "simt_warp_shuffle(%x, simt_warp_source(1, %l))",
                 "simt_warp_shuffle(%x, simt_warp_source(2, %l))",
                 "simt_warp_shuffle(%x, simt_warp_source(3, %l))"},
    .votes = {"(simt_warp_ballot(%x) & (%m))", "simt_warp_all(%m, %x)",
              "((simt_warp_ballot(%x) & (%m)) != 0u)"},
    .syncwarp = "SIMT_WARP_BARRIER()",
    .matches = {"simt_warp_match(%m, %x, (int*)0)", "simt_warp_match(%m, %x, %l)"},
    .activemask = "simt_warp_active()",
    .warpsize = "32",
    .warp_helpers = kOpenCLWarps,
    .warp_kernel_attribute = "SIMT_WARP_KERNEL ",
    .warp_kernel_storage = kOpenCLWarpStorage,
    .constant_decl = "__constant ",
    .constant_space = "__constant ",
    // Clang's builtins: PoCL's NAN and NVIDIA's INFINITY are not constant
    // expressions, so they cannot initialize __constant arrays.
    .infinity = {"__builtin_inff()", "(double)__builtin_inff()"},
    .nan = {"__builtin_nanf(\"\")", "(double)__builtin_nanf(\"\")"},
};

const Dialect kCpp{
    .id = abi::Language::Cpp,
    .name = "cpp",
    .block_model = BlockModel::Loops,
    .kernel_prefix = "extern \"C\" ",
    .cold_function_prefix = "static __attribute__((noinline, cold)) ",
    .function_hidden_params = "const simt_block_ctx* simt_ctx, simt_thread simt_tid",
    .function_hidden_args = "simt_ctx, simt_tid",
    .index_objects =
        {{{"simt_tid.x", "simt_tid.y", "simt_tid.z"},
          {"simt_ctx->block_idx[0]", "simt_ctx->block_idx[1]", "simt_ctx->block_idx[2]"},
          {"simt_ctx->block_dim[0]", "simt_ctx->block_dim[1]", "simt_ctx->block_dim[2]"},
          {"simt_ctx->grid_dim[0]", "simt_ctx->grid_dim[1]", "simt_ctx->grid_dim[2]"}}},
    .math_prefix = "__builtin_",
    .isnan_name = "__builtin_isnan",
    .isinf_name = "__builtin_isinf",
    .isfinite_name = "__builtin_isfinite",
    .float_to_int = FloatToInt::Cast,
    .float_as_uint = "__builtin_bit_cast(unsigned int, %x)",
    .uint_as_float = "__builtin_bit_cast(float, %x)",
    .double_as_ulong = "__builtin_bit_cast(long long, %x)",
    .ulong_as_double = "__builtin_bit_cast(double, %x)",
    .complex64_work = "double",
    .prelude = kCppPrelude,
    .linked_prelude =
        "#ifndef __device__\n#define __device__\n#define __host__\n#define __forceinline__ "
        "inline\n#endif\n",
    .source_suffix = ".cpp",
    .loop_cancel_flag = "extern \"C\" simt_i64 simt_cancel;",
    .loop_cancel_check =
        "if (__builtin_expect(__atomic_load_n(&simt_cancel, __ATOMIC_RELAXED) != "
        "simt_ctx->cancel_epoch, 0)) break;",
    .assume = "SIMT_ASSUME(%x)",
    .dynamic_shared_storage =
        "  unsigned char* simt_dynamic_shared = (unsigned char*)simt_ctx->dynamic_shared;\n",
    // Fiber mode's calls into the runtime (abi/cpu_entry.h: the kinds are
    // CpuBarrierKind and CpuFiberKind; `%s` numbers the call site). Region
    // mode lowers collectives itself (emit_regions.cpp) and never reads these.
    .barrier = "simt_ctx->fibers->barrier(simt_ctx, 0, 0);",
    .barrier_reduce = {"simt_ctx->fibers->barrier(simt_ctx, 1, %x)",
                       "simt_ctx->fibers->barrier(simt_ctx, 2, %x)",
                       "simt_ctx->fibers->barrier(simt_ctx, 3, %x)"},
    .fences = {"__atomic_thread_fence(__ATOMIC_SEQ_CST)", "__atomic_thread_fence(__ATOMIC_SEQ_CST)",
               "__atomic_thread_fence(__ATOMIC_SEQ_CST)"},
    // The runtime's barrier across the launch's blocks (abi/cpu_entry.h).
    .grid_sync = "simt_ctx->grid_sync(simt_ctx)",
    .atomic_cas32 = "simt_cas32((unsigned int*)(%p), %e, %d)",
    .atomic_cas64 = "simt_cas64((unsigned long long*)(%p), %e, %d)",
    .atomic_int32 = kCppAtomics,
    .atomic_int64 = kCppAtomics,
    // Fiber mode's warp operations (CpuFiberKind).
    .shuffles = {"simt_fiber_shfl(simt_ctx, 0, %s, %m, %x, %l)",
                 "simt_fiber_shfl(simt_ctx, 1, %s, %m, %x, %l)",
                 "simt_fiber_shfl(simt_ctx, 2, %s, %m, %x, %l)",
                 "simt_fiber_shfl(simt_ctx, 3, %s, %m, %x, %l)"},
    .votes = {"simt_fiber_vote(simt_ctx, 4, %s, %m, %x)",
              "simt_fiber_vote(simt_ctx, 5, %s, %m, %x)",
              "simt_fiber_vote(simt_ctx, 6, %s, %m, %x)"},
    .syncwarp = "simt_fiber_vote(simt_ctx, 7, %s, %m, 1)",
    .matches = {"simt_fiber_match(simt_ctx, 8, %s, %m, %x, (int*)0)",
                "simt_fiber_match(simt_ctx, 9, %s, %m, %x, %l)"},
    // activemask names no lanes to wait for: the lanes at its call site then.
    .activemask = "simt_fiber_vote(simt_ctx, 10, %s, 0u, 1)",
    .warpsize = "32",
    .constant_decl = "static const ",
    .constant_space = "const ",
    .infinity = {"__builtin_huge_valf()", "__builtin_huge_val()"},
    .nan = {"__builtin_nanf(\"\")", "__builtin_nan(\"\")"},
};

}  // namespace

std::string_view Dialect::index_expr(IndexObject object, int component) const {
  return index_objects[static_cast<int>(object)][component];
}

std::string_view Dialect::pointer_space(sema::Space space) const {
  switch (space) {
    case sema::Space::Global:
      return global_space;
    case sema::Space::Shared:
      return shared_space;
    case sema::Space::Constant:
      return constant_space;
    case sema::Space::Local:
      break;
  }
  return {};
}

std::string Dialect::math_name(std::string_view c_name, sema::Scalar real) const {
  std::string name = std::string(math_prefix) + std::string(c_name);
  if (float_suffix && real != sema::Scalar::Float64) name += 'f';
  return name;
}

const Dialect& dialect(abi::Language id) {
  switch (id) {
    case abi::Language::Cuda:
      return kCuda;
    case abi::Language::OpenCL:
      return kOpenCL;
    case abi::Language::Cpp:
      return kCpp;
  }
  return kCuda;
}

std::optional<abi::Language> dialect_from_name(std::string_view name) {
  if (name == "cuda") return abi::Language::Cuda;
  if (name == "opencl") return abi::Language::OpenCL;
  if (name == "cpp" || name == "cpu") return abi::Language::Cpp;
  return std::nullopt;
}

}  // namespace simt::codegen
