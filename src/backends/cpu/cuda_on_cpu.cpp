#include "backends/cpu/cuda_on_cpu.h"

#include <algorithm>
#include <cctype>
#include <cstddef>
#include <optional>
#include <string_view>
#include <utility>

#include "abi/cpu_entry.h"

namespace simt::cpu {

namespace {

// CUDA's vocabulary for C++ on the CPU (cuda_on_cpu.h). No header of the
// machine is ever read: this text declares everything CUDA device code may
// name without including anything.
constexpr std::string_view kPrelude = "typedef long long simt_i64;\n" SIMT_CPU_BLOCK_CONTEXT_C
                                      R"SIMT(
#define __CUDACC__ 1
#define __CUDACC_RTC__ 1
#define __CUDA_ARCH__ 800
#define SIMT_CPU 1
// Kernels inline into their entry's loop over threads, where the thread-local
// lookups then happen once per block.
#define __global__ __attribute__((always_inline))
#define __device__
#define __host__
#define __forceinline__ inline __attribute__((always_inline))
#define __noinline__ __attribute__((noinline))
#define __inline__ inline
#define __launch_bounds__(...)
#define __restrict__ __restrict
#define __align__(n) __attribute__((aligned(n)))
#define __constant__
#define __managed__
#define __grid_constant__
#define __shared__ thread_local
#define asm __simt_inline_assembly_cannot_run_on_the_cpu_device
#define __asm__ __simt_inline_assembly_cannot_run_on_the_cpu_device
#define __asm __simt_inline_assembly_cannot_run_on_the_cpu_device

extern "C" int printf(const char*, ...);
extern "C" void* malloc(unsigned long);
extern "C" void free(void*);
extern "C" void* memcpy(void*, const void*, unsigned long);
extern "C" void* memset(void*, int, unsigned long);

// ---- vector types --------------------------------------------------------
#define SIMT_VEC1(T, N, A) \
  struct __attribute__((aligned(A))) N { T x; }; \
  static inline N make_##N(T x) { N v = {x}; return v; }
#define SIMT_VEC2(T, N, A) \
  struct __attribute__((aligned(A))) N { T x, y; }; \
  static inline N make_##N(T x, T y) { N v = {x, y}; return v; }
#define SIMT_VEC3(T, N) \
  struct N { T x, y, z; }; \
  static inline N make_##N(T x, T y, T z) { N v = {x, y, z}; return v; }
#define SIMT_VEC4(T, N, A) \
  struct __attribute__((aligned(A))) N { T x, y, z, w; }; \
  static inline N make_##N(T x, T y, T z, T w) { N v = {x, y, z, w}; return v; }
#define SIMT_VECS(T, N, A1, A2, A4) \
  SIMT_VEC1(T, N##1, A1) SIMT_VEC2(T, N##2, A2) SIMT_VEC3(T, N##3) SIMT_VEC4(T, N##4, A4)
SIMT_VECS(signed char, char, 1, 2, 4)
SIMT_VECS(unsigned char, uchar, 1, 2, 4)
SIMT_VECS(short, short, 2, 4, 8)
SIMT_VECS(unsigned short, ushort, 2, 4, 8)
SIMT_VECS(int, int, 4, 8, 16)
SIMT_VECS(unsigned int, uint, 4, 8, 16)
SIMT_VECS(long, long, 8, 16, 16)
SIMT_VECS(unsigned long, ulong, 8, 16, 16)
SIMT_VECS(long long, longlong, 8, 16, 16)
SIMT_VECS(unsigned long long, ulonglong, 8, 16, 16)
SIMT_VECS(float, float, 4, 8, 16)
SIMT_VECS(double, double, 8, 16, 16)
struct dim3 {
  unsigned int x, y, z;
  constexpr dim3(unsigned int vx = 1, unsigned int vy = 1, unsigned int vz = 1)
      : x(vx), y(vy), z(vz) {}
  constexpr dim3(uint3 v) : x(v.x), y(v.y), z(v.z) {}
};

// ---- the running thread ---------------------------------------------------
// Each kernel takes the running thread as a hidden first parameter, and its body
// starts by declaring threadIdx and friends as locals from it
// (SIMT_RAW_THREAD_LOCALS, inserted by cuda_on_cpu_unit): inlined into the
// entry's loop over a block's threads, threadIdx.x is then that loop's variable,
// which the optimizer sees (no memory, no thread-local lookup per thread).
struct simt_raw_thread {
  uint3 thread_idx;
  uint3 block_idx;
  dim3 block_dim;
  dim3 grid_dim;
};
#define SIMT_RAW_THREAD_LOCALS                                     \
  [[maybe_unused]] const uint3 threadIdx = simt_raw_t.thread_idx; \
  [[maybe_unused]] const uint3 blockIdx = simt_raw_t.block_idx;   \
  [[maybe_unused]] const dim3 blockDim = simt_raw_t.block_dim;    \
  [[maybe_unused]] const dim3 gridDim = simt_raw_t.grid_dim;
// What device functions (and kernels a macro defines, which keep their own
// parameters) read: the same values in thread-local storage, set by the entry
// only where such code names them (SIMT_RAW_TLS_INDICES) and in fiber mode,
// where they are restored after each fiber switch.
static thread_local uint3 threadIdx;
static thread_local uint3 blockIdx;
static thread_local dim3 blockDim;
static thread_local dim3 gridDim;
static thread_local const simt_block_ctx* simt_raw_ctx;
static constexpr int warpSize = 32;

static inline simt_i64 simt_raw_linear_thread() {
  return threadIdx.x + (simt_i64)blockDim.x * (threadIdx.y + (simt_i64)blockDim.y * threadIdx.z);
}
static inline int simt_raw_lane() { return (int)(simt_raw_linear_thread() & 31); }

// ---- barriers and warp operations (fiber mode) ---------------------------
static inline int simt_raw_barrier(int kind, int pred) {
  const uint3 self = threadIdx;
  const int r = simt_raw_ctx->fibers->barrier(simt_raw_ctx, kind, pred);
  threadIdx = self;
  return r;
}
static inline void __syncthreads() { simt_raw_barrier(0, 0); }
static inline int __syncthreads_count(int p) { return simt_raw_barrier(1, p != 0); }
static inline int __syncthreads_and(int p) { return simt_raw_barrier(2, p != 0); }
static inline int __syncthreads_or(int p) { return simt_raw_barrier(3, p != 0); }
static inline void __threadfence() { __atomic_thread_fence(__ATOMIC_SEQ_CST); }
static inline void __threadfence_block() { __atomic_thread_fence(__ATOMIC_SEQ_CST); }
static inline void __threadfence_system() { __atomic_thread_fence(__ATOMIC_SEQ_CST); }

static inline void simt_raw_warp(simt_fiber_op* op) {
  const uint3 self = threadIdx;
  simt_raw_ctx->fibers->warp(simt_raw_ctx, op);
  threadIdx = self;
}
// Every shuffle is one from a computed lane (CpuFiberKind::ShflIdx), which
// gives the width argument CUDA's meaning.
template <class T>
static inline T simt_raw_shfl(int site, unsigned int mask, T x, int source) {
  static_assert(sizeof(T) <= 16, "a shuffled value has at most 16 bytes");
  simt_fiber_op op = {0, site, mask, 0, source, {0, 0}, {0, 0}};
  __builtin_memcpy(op.value, &x, sizeof x);
  simt_raw_warp(&op);
  T r;
  __builtin_memcpy(&r, op.result, sizeof r);
  return r;
}
template <class T>
static inline T simt_raw_shfl_idx(int site, unsigned int mask, T x, int src, int width = 32) {
  const int lane = simt_raw_lane();
  return simt_raw_shfl(site, mask, x, (lane & ~(width - 1)) + (src & (width - 1)));
}
template <class T>
static inline T simt_raw_shfl_up(int site, unsigned int mask, T x, unsigned int d, int width = 32) {
  const int lane = simt_raw_lane();
  return simt_raw_shfl(site, mask, x, (lane & (width - 1)) >= (int)d ? lane - (int)d : lane);
}
template <class T>
static inline T simt_raw_shfl_down(int site, unsigned int mask, T x, unsigned int d,
                                   int width = 32) {
  const int lane = simt_raw_lane();
  return simt_raw_shfl(site, mask, x, (lane & (width - 1)) + (int)d < width ? lane + (int)d : lane);
}
template <class T>
static inline T simt_raw_shfl_xor(int site, unsigned int mask, T x, int m, int width = 32) {
  const int lane = simt_raw_lane();
  const int src = lane ^ m;
  return simt_raw_shfl(site, mask, x, (src & ~(width - 1)) <= (lane & ~(width - 1)) ? src : lane);
}
static inline unsigned int simt_raw_vote(int site, int kind, unsigned int mask, int pred) {
  simt_fiber_op op = {kind, site, mask, pred, 0, {0, 0}, {0, 0}};
  simt_raw_warp(&op);
  return (unsigned int)op.result[0];
}
template <class T>
static inline unsigned int simt_raw_match(int site, int kind, unsigned int mask, T x, int* pred) {
  static_assert(sizeof(T) <= 16, "a matched value has at most 16 bytes");
  simt_fiber_op op = {kind, site, mask, 0, 0, {0, 0}, {0, 0}};
  __builtin_memcpy(op.value, &x, sizeof x);
  simt_raw_warp(&op);
  if (pred) *pred = op.pred;
  return (unsigned int)op.result[0];
}
static inline unsigned int simt_raw_full_mask(unsigned int m = 0xffffffffu) { return m; }
#define __shfl_sync(...) simt_raw_shfl_idx(__COUNTER__, __VA_ARGS__)
#define __shfl_up_sync(...) simt_raw_shfl_up(__COUNTER__, __VA_ARGS__)
#define __shfl_down_sync(...) simt_raw_shfl_down(__COUNTER__, __VA_ARGS__)
#define __shfl_xor_sync(...) simt_raw_shfl_xor(__COUNTER__, __VA_ARGS__)
#define __ballot_sync(m, p) simt_raw_vote(__COUNTER__, 4, (m), (p) != 0)
#define __all_sync(m, p) ((int)simt_raw_vote(__COUNTER__, 5, (m), (p) != 0))
#define __any_sync(m, p) ((int)simt_raw_vote(__COUNTER__, 6, (m), (p) != 0))
#define __uni_sync(m, p) ((int)simt_raw_vote(__COUNTER__, 5, (m), 1))
#define __syncwarp(...) ((void)simt_raw_vote(__COUNTER__, 7, simt_raw_full_mask(__VA_ARGS__), 1))
#define __activemask() simt_raw_vote(__COUNTER__, 10, 0u, 1)
#define __match_any_sync(m, x) simt_raw_match(__COUNTER__, 8, (m), (x), (int*)0)
#define __match_all_sync(m, x, p) simt_raw_match(__COUNTER__, 9, (m), (x), (p))
static inline unsigned int __lanemask_lt() { return (1u << simt_raw_lane()) - 1u; }

// ---- dynamic shared memory: `extern __shared__ T name[]` -----------------
template <class T>
struct simt_raw_extern_shared {
  template <class I>
  T& operator[](I i) const {
    return ((T*)simt_raw_ctx->dynamic_shared)[i];
  }
  operator T*() const { return (T*)simt_raw_ctx->dynamic_shared; }
  template <class U>
  explicit operator U*() const {
    return (U*)simt_raw_ctx->dynamic_shared;
  }
};

// ---- atomics ---------------------------------------------------------------
#define SIMT_RMW(NAME, BUILTIN, T) \
  static inline T NAME(T* p, T v) { return BUILTIN(p, v, __ATOMIC_RELAXED); }
#define SIMT_RMW_INTS(NAME, BUILTIN)        \
  SIMT_RMW(NAME, BUILTIN, int)              \
  SIMT_RMW(NAME, BUILTIN, unsigned int)     \
  SIMT_RMW(NAME, BUILTIN, long long)        \
  SIMT_RMW(NAME, BUILTIN, unsigned long long)
SIMT_RMW_INTS(atomicAdd, __atomic_fetch_add)
SIMT_RMW_INTS(atomicSub, __atomic_fetch_sub)
SIMT_RMW_INTS(atomicAnd, __atomic_fetch_and)
SIMT_RMW_INTS(atomicOr, __atomic_fetch_or)
SIMT_RMW_INTS(atomicXor, __atomic_fetch_xor)
SIMT_RMW_INTS(atomicMin, __atomic_fetch_min)
SIMT_RMW_INTS(atomicMax, __atomic_fetch_max)
SIMT_RMW_INTS(atomicExch, __atomic_exchange_n)
template <class T, class F>
static inline T simt_raw_atomic_update(T* p, F update) {
  T old;
  __atomic_load(p, &old, __ATOMIC_RELAXED);
  T next = update(old);
  while (!__atomic_compare_exchange(p, &old, &next, true, __ATOMIC_RELAXED, __ATOMIC_RELAXED))
    next = update(old);
  return old;
}
static inline float atomicAdd(float* p, float v) {
  return simt_raw_atomic_update(p, [v](float a) { return a + v; });
}
static inline double atomicAdd(double* p, double v) {
  return simt_raw_atomic_update(p, [v](double a) { return a + v; });
}
static inline float atomicSub(float* p, float v) { return atomicAdd(p, -v); }
static inline double atomicSub(double* p, double v) { return atomicAdd(p, -v); }
static inline float atomicMax(float* p, float v) {
  return simt_raw_atomic_update(p, [v](float a) { return a < v ? v : a; });
}
static inline float atomicMin(float* p, float v) {
  return simt_raw_atomic_update(p, [v](float a) { return v < a ? v : a; });
}
static inline double atomicMax(double* p, double v) {
  return simt_raw_atomic_update(p, [v](double a) { return a < v ? v : a; });
}
static inline double atomicMin(double* p, double v) {
  return simt_raw_atomic_update(p, [v](double a) { return v < a ? v : a; });
}
static inline float atomicExch(float* p, float v) {
  float old;
  __atomic_exchange(p, &v, &old, __ATOMIC_RELAXED);
  return old;
}
static inline unsigned int atomicInc(unsigned int* p, unsigned int v) {
  return simt_raw_atomic_update(p, [v](unsigned int a) { return a >= v ? 0u : a + 1u; });
}
static inline unsigned int atomicDec(unsigned int* p, unsigned int v) {
  return simt_raw_atomic_update(p,
                                [v](unsigned int a) { return (a == 0u || a > v) ? v : a - 1u; });
}
#define SIMT_CAS(T)                                                                        \
  static inline T atomicCAS(T* p, T compare, T value) {                                    \
    __atomic_compare_exchange_n(p, &compare, value, false, __ATOMIC_RELAXED, __ATOMIC_RELAXED); \
    return compare;                                                                        \
  }
SIMT_CAS(int)
SIMT_CAS(unsigned int)
SIMT_CAS(unsigned long long)
SIMT_CAS(unsigned short)
#define atomicAdd_block atomicAdd
#define atomicAdd_system atomicAdd
#define atomicSub_block atomicSub
#define atomicSub_system atomicSub
#define atomicExch_block atomicExch
#define atomicExch_system atomicExch
#define atomicMin_block atomicMin
#define atomicMin_system atomicMin
#define atomicMax_block atomicMax
#define atomicMax_system atomicMax
#define atomicCAS_block atomicCAS
#define atomicCAS_system atomicCAS
#define atomicAnd_block atomicAnd
#define atomicOr_block atomicOr
#define atomicXor_block atomicXor
#define atomicInc_block atomicInc
#define atomicDec_block atomicDec

// ---- math: CUDA's C functions (sqrtf, sqrt) and C++ overloads (sqrt(float)) --
#define SIMT_MATH1(F)                                                      \
  static inline float F##f(float x) { return __builtin_##F##f(x); }        \
  static inline double F(double x) { return __builtin_##F(x); }            \
  static inline float F(float x) { return __builtin_##F##f(x); }
#define SIMT_MATH2(F)                                                                      \
  static inline float F##f(float x, float y) { return __builtin_##F##f(x, y); }            \
  static inline double F(double x, double y) { return __builtin_##F(x, y); }               \
  static inline float F(float x, float y) { return __builtin_##F##f(x, y); }
SIMT_MATH1(sqrt) SIMT_MATH1(cbrt) SIMT_MATH1(exp) SIMT_MATH1(exp2) SIMT_MATH1(expm1)
SIMT_MATH1(log) SIMT_MATH1(log2) SIMT_MATH1(log10) SIMT_MATH1(log1p) SIMT_MATH1(logb)
SIMT_MATH1(sin) SIMT_MATH1(cos) SIMT_MATH1(tan) SIMT_MATH1(asin) SIMT_MATH1(acos)
SIMT_MATH1(atan) SIMT_MATH1(sinh) SIMT_MATH1(cosh) SIMT_MATH1(tanh) SIMT_MATH1(asinh)
SIMT_MATH1(acosh) SIMT_MATH1(atanh) SIMT_MATH1(erf) SIMT_MATH1(erfc) SIMT_MATH1(tgamma)
SIMT_MATH1(lgamma) SIMT_MATH1(floor) SIMT_MATH1(ceil) SIMT_MATH1(trunc) SIMT_MATH1(round)
SIMT_MATH1(rint) SIMT_MATH1(nearbyint) SIMT_MATH1(fabs)
SIMT_MATH2(pow) SIMT_MATH2(atan2) SIMT_MATH2(fmod) SIMT_MATH2(fmin) SIMT_MATH2(fmax)
SIMT_MATH2(hypot) SIMT_MATH2(copysign) SIMT_MATH2(remainder) SIMT_MATH2(fdim)
SIMT_MATH2(nextafter)
static inline float fmaf(float x, float y, float z) { return __builtin_fmaf(x, y, z); }
static inline double fma(double x, double y, double z) { return __builtin_fma(x, y, z); }
static inline float fma(float x, float y, float z) { return __builtin_fmaf(x, y, z); }
static inline float ldexpf(float x, int e) { return __builtin_ldexpf(x, e); }
static inline double ldexp(double x, int e) { return __builtin_ldexp(x, e); }
static inline float ldexp(float x, int e) { return __builtin_ldexpf(x, e); }
static inline float scalbnf(float x, int e) { return __builtin_scalbnf(x, e); }
static inline double scalbn(double x, int e) { return __builtin_scalbn(x, e); }
static inline float frexpf(float x, int* e) { return __builtin_frexpf(x, e); }
static inline double frexp(double x, int* e) { return __builtin_frexp(x, e); }
static inline float frexp(float x, int* e) { return __builtin_frexpf(x, e); }
static inline float modff(float x, float* i) { return __builtin_modff(x, i); }
static inline double modf(double x, double* i) { return __builtin_modf(x, i); }
static inline int ilogbf(float x) { return __builtin_ilogbf(x); }
static inline int ilogb(double x) { return __builtin_ilogb(x); }
static inline long lroundf(float x) { return __builtin_lroundf(x); }
static inline long lround(double x) { return __builtin_lround(x); }
static inline long long llroundf(float x) { return __builtin_llroundf(x); }
static inline long long llround(double x) { return __builtin_llround(x); }
static inline long lrintf(float x) { return __builtin_lrintf(x); }
static inline long lrint(double x) { return __builtin_lrint(x); }
static inline long long llrintf(float x) { return __builtin_llrintf(x); }
static inline long long llrint(double x) { return __builtin_llrint(x); }
static inline float exp10f(float x) { return __builtin_powf(10.0f, x); }
static inline double exp10(double x) { return __builtin_pow(10.0, x); }
static inline float exp10(float x) { return __builtin_powf(10.0f, x); }
static inline float rsqrtf(float x) { return 1.0f / __builtin_sqrtf(x); }
static inline double rsqrt(double x) { return 1.0 / __builtin_sqrt(x); }
static inline float rsqrt(float x) { return 1.0f / __builtin_sqrtf(x); }
static inline float rcbrtf(float x) { return 1.0f / __builtin_cbrtf(x); }
static inline double rcbrt(double x) { return 1.0 / __builtin_cbrt(x); }
static inline float sinpif(float x) { return __builtin_sinf(3.14159265358979323846f * x); }
static inline double sinpi(double x) { return __builtin_sin(3.14159265358979323846 * x); }
static inline float cospif(float x) { return __builtin_cosf(3.14159265358979323846f * x); }
static inline double cospi(double x) { return __builtin_cos(3.14159265358979323846 * x); }
static inline void sincosf(float x, float* s, float* c) {
  *s = __builtin_sinf(x);
  *c = __builtin_cosf(x);
}
static inline void sincos(double x, double* s, double* c) {
  *s = __builtin_sin(x);
  *c = __builtin_cos(x);
}
static inline void sincos(float x, float* s, float* c) { sincosf(x, s, c); }
static inline void sincospif(float x, float* s, float* c) { sincosf(3.14159265358979323846f * x, s, c); }
static inline void sincospi(double x, double* s, double* c) { sincos(3.14159265358979323846 * x, s, c); }
// The inverse error functions (libm has none): an estimate (Giles, "Approximating
// the erfinv function"), then Halley steps on erf or erfc to double precision.
static inline double simt_raw_erfinv_estimate(double w, double sign_x) {
  double p;
  if (w < 5.0) {
    w -= 2.5;
    p = 2.81022636e-08;
    p = 3.43273939e-07 + p * w;
    p = -3.5233877e-06 + p * w;
    p = -4.39150654e-06 + p * w;
    p = 0.00021858087 + p * w;
    p = -0.00125372503 + p * w;
    p = -0.00417768164 + p * w;
    p = 0.246640727 + p * w;
    p = 1.50140941 + p * w;
  } else {
    w = __builtin_sqrt(w) - 3.0;
    p = -0.000200214257;
    p = 0.000100950558 + p * w;
    p = 0.00134934322 + p * w;
    p = -0.00367342844 + p * w;
    p = 0.00573950773 + p * w;
    p = -0.0076224613 + p * w;
    p = 0.00943887047 + p * w;
    p = 1.00167406 + p * w;
    p = 2.83297682 + p * w;
  }
  return p * sign_x;
}
// erfc(x) = y for y in (0, 1]: x >= 0.
static inline double simt_raw_erfcinv_small(double y) {
  double x = simt_raw_erfinv_estimate(-__builtin_log(y * (2.0 - y)), 1.0 - y);
  if (x < 0.0) x = 0.0;
  for (int k = 0; k < 40; ++k) {
    const double f = __builtin_erfc(x) - y;
    const double d = -1.1283791670955126 * __builtin_exp(-x * x);  // erfc'(x)
    if (d == 0.0) break;
    const double step = f / (d + x * f);
    x -= step;
    if (__builtin_fabs(step) <= 1e-16 * __builtin_fabs(x)) break;
  }
  return x;
}
static inline double erfcinv(double y) {
  if (!(y > 0.0 && y < 2.0)) {
    if (y == 0.0) return __builtin_huge_val();
    if (y == 2.0) return -__builtin_huge_val();
    return __builtin_nan("");
  }
  return y <= 1.0 ? simt_raw_erfcinv_small(y) : -simt_raw_erfcinv_small(2.0 - y);
}
static inline double erfinv(double y) {
  if (!(y > -1.0 && y < 1.0)) {
    if (y == 1.0) return __builtin_huge_val();
    if (y == -1.0) return -__builtin_huge_val();
    return __builtin_nan("");
  }
  const double a = __builtin_fabs(y);
  if (a >= 0.5) return y > 0 ? simt_raw_erfcinv_small(1.0 - a) : -simt_raw_erfcinv_small(1.0 - a);
  double x = simt_raw_erfinv_estimate(-__builtin_log((1.0 - y) * (1.0 + y)), y);
  for (int k = 0; k < 40 && y != 0.0; ++k) {
    const double f = __builtin_erf(x) - y;
    const double d = 1.1283791670955126 * __builtin_exp(-x * x);
    const double step = f / (d + x * f);
    x -= step;
    if (__builtin_fabs(step) <= 1e-16 * __builtin_fabs(x)) break;
  }
  return x;
}
static inline float erfinvf(float y) { return (float)erfinv((double)y); }
static inline float erfcinvf(float y) { return (float)erfcinv((double)y); }
static inline float erfinv(float y) { return erfinvf(y); }
static inline float erfcinv(float y) { return erfcinvf(y); }
static inline double normcdf(double x) { return 0.5 * __builtin_erfc(-x * 0.7071067811865476); }
static inline float normcdff(float x) { return (float)normcdf((double)x); }
static inline float normcdf(float x) { return normcdff(x); }
static inline double normcdfinv(double y) { return -1.4142135623730951 * erfcinv(2.0 * y); }
static inline float normcdfinvf(float y) { return (float)normcdfinv((double)y); }
static inline float normcdfinv(float y) { return normcdfinvf(y); }
static inline bool isnan(float x) { return __builtin_isnan(x); }
static inline bool isnan(double x) { return __builtin_isnan(x); }
static inline bool isinf(float x) { return __builtin_isinf(x); }
static inline bool isinf(double x) { return __builtin_isinf(x); }
static inline bool isfinite(float x) { return __builtin_isfinite(x); }
static inline bool isfinite(double x) { return __builtin_isfinite(x); }
static inline bool signbit(float x) { return __builtin_signbit(x); }
static inline bool signbit(double x) { return __builtin_signbit(x); }
static inline int abs(int x) { return x < 0 ? -x : x; }
static inline long abs(long x) { return x < 0 ? -x : x; }
static inline long long abs(long long x) { return x < 0 ? -x : x; }
static inline float abs(float x) { return __builtin_fabsf(x); }
static inline double abs(double x) { return __builtin_fabs(x); }
static inline long labs(long x) { return x < 0 ? -x : x; }
static inline long long llabs(long long x) { return x < 0 ? -x : x; }
template <class A, class B>
static inline auto min(A a, B b) -> decltype(a + b) {
  return b < a ? b : a;
}
template <class A, class B>
static inline auto max(A a, B b) -> decltype(a + b) {
  return a < b ? b : a;
}
static inline unsigned int umin(unsigned int a, unsigned int b) { return b < a ? b : a; }
static inline unsigned int umax(unsigned int a, unsigned int b) { return a < b ? b : a; }
static inline long long llmin(long long a, long long b) { return b < a ? b : a; }
static inline long long llmax(long long a, long long b) { return a < b ? b : a; }
static inline unsigned long long ullmin(unsigned long long a, unsigned long long b) {
  return b < a ? b : a;
}
static inline unsigned long long ullmax(unsigned long long a, unsigned long long b) {
  return a < b ? b : a;
}
// Intrinsics: the fast variants are the accurate functions here.
static inline float __expf(float x) { return __builtin_expf(x); }
static inline float __exp10f(float x) { return __builtin_powf(10.0f, x); }
static inline float __logf(float x) { return __builtin_logf(x); }
static inline float __log2f(float x) { return __builtin_log2f(x); }
static inline float __log10f(float x) { return __builtin_log10f(x); }
static inline float __sinf(float x) { return __builtin_sinf(x); }
static inline float __cosf(float x) { return __builtin_cosf(x); }
static inline float __tanf(float x) { return __builtin_tanf(x); }
static inline void __sincosf(float x, float* s, float* c) { sincosf(x, s, c); }
static inline float __powf(float x, float y) { return __builtin_powf(x, y); }
static inline float __fdividef(float x, float y) { return x / y; }
static inline double __ddiv_rn(double x, double y) { return x / y; }
static inline float __fdiv_rn(float x, float y) { return x / y; }
static inline float __fadd_rn(float x, float y) { return x + y; }
static inline float __fsub_rn(float x, float y) { return x - y; }
static inline float __fmul_rn(float x, float y) { return x * y; }
static inline double __dadd_rn(double x, double y) { return x + y; }
static inline double __dsub_rn(double x, double y) { return x - y; }
static inline double __dmul_rn(double x, double y) { return x * y; }
static inline float __fmaf_rn(float x, float y, float z) { return __builtin_fmaf(x, y, z); }
static inline double __fma_rn(double x, double y, double z) { return __builtin_fma(x, y, z); }
static inline float __frcp_rn(float x) { return 1.0f / x; }
static inline double __drcp_rn(double x) { return 1.0 / x; }
static inline float __fsqrt_rn(float x) { return __builtin_sqrtf(x); }
static inline double __dsqrt_rn(double x) { return __builtin_sqrt(x); }
static inline float __frsqrt_rn(float x) { return 1.0f / __builtin_sqrtf(x); }
static inline float __saturatef(float x) { return x != x ? 0.0f : x < 0.0f ? 0.0f : x > 1.0f ? 1.0f : x; }
static inline float __int_as_float(int x) { return __builtin_bit_cast(float, x); }
static inline int __float_as_int(float x) { return __builtin_bit_cast(int, x); }
static inline float __uint_as_float(unsigned int x) { return __builtin_bit_cast(float, x); }
static inline unsigned int __float_as_uint(float x) { return __builtin_bit_cast(unsigned int, x); }
static inline double __longlong_as_double(long long x) { return __builtin_bit_cast(double, x); }
static inline long long __double_as_longlong(double x) { return __builtin_bit_cast(long long, x); }
static inline int __double2hiint(double x) { return (int)(__double_as_longlong(x) >> 32); }
static inline int __double2loint(double x) { return (int)__double_as_longlong(x); }
static inline double __hiloint2double(int hi, int lo) {
  return __longlong_as_double((long long)(((unsigned long long)(unsigned int)hi << 32) |
                                          (unsigned int)lo));
}
#define SIMT_ROUNDINGS(NAME, FROM, TO)                                          \
  static inline TO NAME##_rn(FROM x) { return (TO)__builtin_rint((double)x); }  \
  static inline TO NAME##_rz(FROM x) { return (TO)x; }                         \
  static inline TO NAME##_rd(FROM x) { return (TO)__builtin_floor((double)x); } \
  static inline TO NAME##_ru(FROM x) { return (TO)__builtin_ceil((double)x); }
SIMT_ROUNDINGS(__float2int, float, int)
SIMT_ROUNDINGS(__float2uint, float, unsigned int)
SIMT_ROUNDINGS(__float2ll, float, long long)
SIMT_ROUNDINGS(__float2ull, float, unsigned long long)
SIMT_ROUNDINGS(__double2int, double, int)
SIMT_ROUNDINGS(__double2uint, double, unsigned int)
SIMT_ROUNDINGS(__double2ll, double, long long)
SIMT_ROUNDINGS(__double2ull, double, unsigned long long)
static inline float __double2float_rn(double x) { return (float)x; }
static inline float __int2float_rn(int x) { return (float)x; }
static inline float __uint2float_rn(unsigned int x) { return (float)x; }
static inline float __ll2float_rn(long long x) { return (float)x; }
static inline double __int2double_rn(int x) { return (double)x; }
static inline double __ll2double_rn(long long x) { return (double)x; }
static inline int __popc(unsigned int x) { return __builtin_popcount(x); }
static inline int __popcll(unsigned long long x) { return __builtin_popcountll(x); }
static inline int __clz(int x) { return x == 0 ? 32 : __builtin_clz((unsigned int)x); }
static inline int __clzll(long long x) {
  return x == 0 ? 64 : __builtin_clzll((unsigned long long)x);
}
static inline int __ffs(int x) { return __builtin_ffs(x); }
static inline int __ffsll(long long x) { return __builtin_ffsll(x); }
static inline unsigned int __brev(unsigned int x) { return __builtin_bitreverse32(x); }
static inline unsigned long long __brevll(unsigned long long x) {
  return __builtin_bitreverse64(x);
}
static inline int __mulhi(int x, int y) { return (int)(((long long)x * y) >> 32); }
static inline unsigned int __umulhi(unsigned int x, unsigned int y) {
  return (unsigned int)(((unsigned long long)x * y) >> 32);
}
static inline long long __mul64hi(long long x, long long y) {
  return (long long)(((__int128)x * y) >> 64);
}
static inline unsigned long long __umul64hi(unsigned long long x, unsigned long long y) {
  return (unsigned long long)(((unsigned __int128)x * y) >> 64);
}
static inline int __mul24(int x, int y) { return ((x << 8) >> 8) * ((y << 8) >> 8); }
static inline unsigned int __umul24(unsigned int x, unsigned int y) {
  return (x & 0xffffffu) * (y & 0xffffffu);
}
static inline unsigned int __sad(int x, int y, unsigned int z) {
  return z + (unsigned int)(x > y ? x - y : y - x);
}
static inline unsigned int __usad(unsigned int x, unsigned int y, unsigned int z) {
  return z + (x > y ? x - y : y - x);
}
template <class T>
static inline T __ldg(const T* p) {
  return *p;
}
static inline long long clock64() { return (long long)__builtin_readcyclecounter(); }
static inline long long clock() { return clock64(); }
static inline void __nanosleep(unsigned int) {}
// A fault the runtime reports as the kernel's (SIGILL would end the process).
static inline void __trap() { *(volatile int*)0 = 0; }
static inline void __brkpt() { __trap(); }

// ---- entries ---------------------------------------------------------------
struct simt_raw_param_desc {
  int kind;
  int bytes;
  int scalar;
  const char* type_name;
};
template <class T>
struct simt_raw_scalar {
  static constexpr int code = -1;
  static constexpr const char* name = "";
};
#define SIMT_SCALAR(T, CODE)                     \
  template <>                                    \
  struct simt_raw_scalar<T> {                    \
    static constexpr int code = CODE;            \
    static constexpr const char* name = #T;      \
  };
SIMT_SCALAR(bool, 0)
SIMT_SCALAR(char, 1)
SIMT_SCALAR(signed char, 1)
SIMT_SCALAR(short, 2)
SIMT_SCALAR(int, 3)
SIMT_SCALAR(long, 4)
SIMT_SCALAR(long long, 4)
SIMT_SCALAR(unsigned char, 5)
SIMT_SCALAR(unsigned short, 6)
SIMT_SCALAR(unsigned int, 7)
SIMT_SCALAR(unsigned long, 8)
SIMT_SCALAR(unsigned long long, 8)
SIMT_SCALAR(float, 10)
SIMT_SCALAR(double, 11)
template <class T>
struct simt_raw_describe_one {
  static constexpr simt_raw_param_desc desc = {0, (int)sizeof(T), simt_raw_scalar<T>::code,
                                               simt_raw_scalar<T>::name};
};
template <class T>
struct simt_raw_describe_one<T*> {
  static constexpr simt_raw_param_desc desc = {1, (int)sizeof(T*), -1, "pointer"};
};
template <class... A>
static inline int simt_raw_describe_params(simt_raw_param_desc* out, int capacity) {
  const simt_raw_param_desc all[] = {simt_raw_describe_one<A>::desc..., {-1, 0, -1, ""}};
  const int count = (int)sizeof...(A);
  for (int k = 0; k <= count && k < capacity; ++k) out[k] = all[k];
  return count;
}
template <class... A>
static inline int simt_raw_describe(void (*)(A...), simt_raw_param_desc* out, int capacity) {
  return simt_raw_describe_params<A...>(out, capacity);
}
template <class... A>
static inline int simt_raw_describe(void (*)(simt_raw_thread, A...), simt_raw_param_desc* out,
                                    int capacity) {
  return simt_raw_describe_params<A...>(out, capacity);
}
static inline simt_raw_thread simt_raw_thread_of(const simt_block_ctx* ctx) {
  simt_raw_thread t;
  t.thread_idx = make_uint3(0, 0, 0);
  t.block_idx = make_uint3((unsigned int)ctx->block_idx[0], (unsigned int)ctx->block_idx[1],
                           (unsigned int)ctx->block_idx[2]);
  t.block_dim = dim3((unsigned int)ctx->block_dim[0], (unsigned int)ctx->block_dim[1],
                     (unsigned int)ctx->block_dim[2]);
  t.grid_dim = dim3((unsigned int)ctx->grid_dim[0], (unsigned int)ctx->grid_dim[1],
                    (unsigned int)ctx->grid_dim[2]);
  return t;
}
template <class B>
static inline void simt_raw_fiber_thread(const simt_block_ctx* ctx, void* body, simt_i64 t) {
  const simt_i64 bx = ctx->block_dim[0], by = ctx->block_dim[1];
  simt_raw_thread self = simt_raw_thread_of(ctx);
  self.thread_idx = make_uint3((unsigned int)(t % bx), (unsigned int)((t / bx) % by),
                               (unsigned int)(t / (bx * by)));
  threadIdx = self.thread_idx;
  (*(B*)body)(self);
}
// Runs body(thread) for each thread of the block: a loop, or fibers where the
// program names a barrier. `Tls`: the thread-local indices are kept up to date
// (code that reads them runs), else they are not touched in the loop.
template <bool Tls, class B>
static inline __attribute__((always_inline)) void simt_raw_run_block(const simt_block_ctx* ctx,
                                                                     B& body) {
  simt_raw_ctx = ctx;
  simt_raw_thread t = simt_raw_thread_of(ctx);
  if (Tls || SIMT_RAW_FIBERS) {
    blockIdx = t.block_idx;
    blockDim = t.block_dim;
    gridDim = t.grid_dim;
  }
  if (SIMT_RAW_FIBERS) {
    ctx->fibers->run_block(ctx, &simt_raw_fiber_thread<B>, &body, SIMT_RAW_STACK_BYTES);
    return;
  }
  const unsigned int bx = t.block_dim.x, by = t.block_dim.y, bz = t.block_dim.z;
  for (unsigned int z = 0; z < bz; ++z)
    for (unsigned int y = 0; y < by; ++y)
      for (unsigned int x = 0; x < bx; ++x) {
        t.thread_idx = make_uint3(x, y, z);
        if (Tls) threadIdx = t.thread_idx;
        body(t);
      }
}
// The kernel is a template argument, so its call is direct from the start and
// always_inline takes (a call through a function pointer was left a call).
// A kernel with the hidden parameter (every kernel the unit's text rewrite reached):
template <auto F, class... A>
static inline __attribute__((always_inline)) void simt_raw_block(const simt_block_ctx* ctx,
                                                                 void (*)(simt_raw_thread, A...),
                                                                 A... a) {
  auto body = [&](const simt_raw_thread& t) { F(t, a...); };
  simt_raw_run_block<SIMT_RAW_TLS_INDICES>(ctx, body);
}
// A kernel without it (one a macro defines): it reads the thread-local indices.
template <auto F, class... A>
static inline __attribute__((always_inline)) void simt_raw_block(const simt_block_ctx* ctx,
                                                                 void (*)(A...), A... a) {
  auto body = [&](const simt_raw_thread&) { F(a...); };
  simt_raw_run_block<true>(ctx, body);
}
template <class T, T... I>
struct simt_raw_seq {};
template <class T>
struct simt_raw_value {
  typedef T type;
};
template <auto F, class... A, unsigned long... I>
static inline __attribute__((always_inline)) void simt_raw_unpack(
    const simt_block_ctx* ctx, void* const* args, void (*)(A...),
    simt_raw_seq<unsigned long, I...>*) {
  simt_raw_block<F, A...>(ctx, F, *(typename simt_raw_value<A>::type*)args[I]...);
}
template <auto F, class... A, unsigned long... I>
static inline __attribute__((always_inline)) void simt_raw_unpack(
    const simt_block_ctx* ctx, void* const* args, void (*)(simt_raw_thread, A...),
    simt_raw_seq<unsigned long, I...>*) {
  simt_raw_block<F, A...>(ctx, F, *(typename simt_raw_value<A>::type*)args[I]...);
}
template <auto F, class... A>
static inline __attribute__((always_inline)) void simt_raw_entry_of(const simt_block_ctx* ctx,
                                                                    void* const* args,
                                                                    void (*)(A...)) {
  simt_raw_unpack<F>(ctx, args, F,
                     (__make_integer_seq<simt_raw_seq, unsigned long, sizeof...(A)>*)0);
}
template <auto F, class... A>
static inline __attribute__((always_inline)) void simt_raw_entry_of(
    const simt_block_ctx* ctx, void* const* args, void (*)(simt_raw_thread, A...)) {
  simt_raw_unpack<F>(ctx, args, F,
                     (__make_integer_seq<simt_raw_seq, unsigned long, sizeof...(A)>*)0);
}
template <auto F>
static inline __attribute__((always_inline)) void simt_raw_entry(const simt_block_ctx* ctx,
                                                                 void* const* args) {
  simt_raw_entry_of<F>(ctx, args, F);
}
)SIMT";

// Stack of each fiber: the kernel's locals, whatever they are (untouched
// pages cost nothing, and a guard page stops an overflow).
constexpr int64_t kFiberStackBytes = 256 * 1024;

// Names only the fiber runtime can run: a kernel naming one runs its threads as fibers.
constexpr std::string_view kCollectives[] = {
    "__syncthreads",   "__syncthreads_count", "__syncthreads_and", "__syncthreads_or",
    "__syncwarp",      "__shfl_sync",         "__shfl_up_sync",    "__shfl_down_sync",
    "__shfl_xor_sync", "__ballot_sync",       "__all_sync",        "__any_sync",
    "__uni_sync",      "__activemask",        "__match_any_sync",  "__match_all_sync"};

// What the CPU cannot run, and what it is.
struct Unsupported {
  std::string_view name;
  std::string_view what;
};
constexpr Unsupported kUnsupported[] = {
    {"asm", "inline PTX assembly (asm)"},
    {"__asm__", "inline PTX assembly (__asm__)"},
    {"__asm", "inline PTX assembly (__asm)"},
    {"texture", "texture references"},
    {"tex1Dfetch", "textures (tex1Dfetch)"},
    {"tex1D", "textures (tex1D)"},
    {"tex2D", "textures (tex2D)"},
    {"tex3D", "textures (tex3D)"},
    {"tex1DLayered", "textures (tex1DLayered)"},
    {"tex2DLayered", "textures (tex2DLayered)"},
    {"texCubemap", "textures (texCubemap)"},
    {"cudaTextureObject_t", "texture objects (cudaTextureObject_t)"},
    {"cudaSurfaceObject_t", "surface objects (cudaSurfaceObject_t)"},
    {"surf1Dread", "surfaces (surf1Dread)"},
    {"surf2Dread", "surfaces (surf2Dread)"},
    {"surf1Dwrite", "surfaces (surf1Dwrite)"},
    {"surf2Dwrite", "surfaces (surf2Dwrite)"},
};

// NVRTC options that mean nothing on the CPU (code generation for a GPU,
// debug information, the C++ standard: C++17 here).
constexpr std::string_view kIgnoredOptionPrefixes[] = {"-std=",
                                                       "--std=",
                                                       "-arch",
                                                       "--gpu-architecture",
                                                       "-lineinfo",
                                                       "--generate-line-info",
                                                       "-G",
                                                       "--device-debug",
                                                       "-rdc",
                                                       "--relocatable-device-code",
                                                       "-ftz",
                                                       "--ftz",
                                                       "-prec-div",
                                                       "--prec-div",
                                                       "-prec-sqrt",
                                                       "--prec-sqrt",
                                                       "-fmad",
                                                       "--fmad",
                                                       "-dopt",
                                                       "--dopt",
                                                       "--extra-device-vectorization",
                                                       "-default-device",
                                                       "--restrict",
                                                       "-maxrregcount",
                                                       "--maxrregcount",
                                                       "-w",
                                                       "--disable-warnings",
                                                       "-dlto",
                                                       "--dlink-time-opt",
                                                       "-Xptxas",
                                                       "--ptxas-options",
                                                       "-dw",
                                                       "--device-w",
                                                       "-builtin-move-forward",
                                                       "-builtin-initializer-list",
                                                       "--pre-include",
                                                       "-include",
                                                       "--no-source-include",
                                                       "-no-source-include",
                                                       "--minimal",
                                                       "-minimal",
                                                       "-split-compile",
                                                       "--split-compile"};

bool ident_char(char c) { return std::isalnum(static_cast<unsigned char>(c)) || c == '_'; }

// The source with comments blanked (newlines kept), so positions match; with
// `literals`, the insides of string and character literals too (brace matching).
std::string without_comments(const std::string& s, bool literals = false) {
  std::string out = s;
  size_t i = 0;
  const size_t n = s.size();
  while (i < n) {
    if (s[i] == '/' && i + 1 < n && s[i + 1] == '/') {
      while (i < n && s[i] != '\n') out[i++] = ' ';
    } else if (s[i] == '/' && i + 1 < n && s[i + 1] == '*') {
      out[i] = out[i + 1] = ' ';
      i += 2;
      while (i < n && !(s[i] == '*' && i + 1 < n && s[i + 1] == '/')) {
        if (s[i] != '\n') out[i] = ' ';
        ++i;
      }
      if (i < n) {
        out[i] = out[i + 1] = ' ';
        i += 2;
      }
    } else if (s[i] == '"' || s[i] == '\'') {
      const char quote = s[i++];
      while (i < n && s[i] != quote && s[i] != '\n') {
        const size_t step = s[i] == '\\' ? 2 : 1;
        if (literals)
          for (size_t k = i; k < i + step && k < n; ++k) out[k] = ' ';
        i += step;
      }
      ++i;
    } else {
      ++i;
    }
  }
  return out;
}

// Positions of `word` as a whole identifier in `text`.
std::vector<size_t> find_word(const std::string& text, std::string_view word) {
  std::vector<size_t> at;
  for (size_t p = text.find(word); p != std::string::npos; p = text.find(word, p + 1)) {
    const size_t end = p + word.size();
    if ((p == 0 || !ident_char(text[p - 1])) && (end >= text.size() || !ident_char(text[end])))
      at.push_back(p);
  }
  return at;
}

size_t skip_space(const std::string& t, size_t p) {
  while (p < t.size() && std::isspace(static_cast<unsigned char>(t[p]))) ++p;
  return p;
}

// From `p` at an opening `open`: just past the `close` that balances it.
size_t skip_balanced(const std::string& t, size_t p, char open, char close) {
  int depth = 0;
  for (; p < t.size(); ++p) {
    if (t[p] == open) ++depth;
    if (t[p] == close && --depth == 0) return p + 1;
  }
  return p;
}

size_t skip_parens(const std::string& t, size_t p) { return skip_balanced(t, p, '(', ')'); }
size_t skip_braces(const std::string& t, size_t p) { return skip_balanced(t, p, '{', '}'); }

// Whether `p` lies on a preprocessor directive (a macro's continuation lines included).
bool on_directive(const std::string& t, size_t p) {
  size_t begin = t.rfind('\n', p);
  // Back over lines that continue the one before them.
  while (begin != std::string::npos && begin > 0) {
    const size_t before = t.find_last_not_of(" \t\r", begin - 1);
    if (before == std::string::npos || t[before] != '\\') break;
    begin = t.rfind('\n', before);
  }
  const size_t first = t.find_first_not_of(" \t\r\n", begin == std::string::npos ? 0 : begin);
  return first != std::string::npos && t[first] == '#';
}

// After `__global__` at `at`: the kernel's name and the position of its
// parameter list's opening parenthesis (attributes skipped), if it has one.
std::optional<std::pair<std::string, size_t>> kernel_declarator(const std::string& code,
                                                                size_t at) {
  size_t p = at + 10;
  while (p < code.size()) {
    p = skip_space(code, p);
    if (p >= code.size() || !ident_char(code[p])) break;
    size_t e = p;
    while (e < code.size() && ident_char(code[e])) ++e;
    std::string word = code.substr(p, e - p);
    const size_t next = skip_space(code, e);
    if (word == "__launch_bounds__" || word == "__attribute__" || word == "__declspec") {
      p = next < code.size() && code[next] == '(' ? skip_parens(code, next) : next;
      continue;
    }
    if (next < code.size() && code[next] == '(') return std::make_pair(std::move(word), next);
    p = e;
  }
  return std::nullopt;
}

// Every kernel's definition and declaration with the hidden first parameter
// `simt_raw_thread simt_raw_t`, and each definition's body starting with
// SIMT_RAW_THREAD_LOCALS (threadIdx and friends as locals): the prelude's
// "running thread". Kernels a macro defines are left as they are. Lines keep
// their numbers.
struct ThreadParameter {
  std::string text;
  // Whether code other than the rewritten kernels' bodies names the thread
  // indices (device functions, macros): they are then kept in thread-local
  // storage too.
  bool tls_indices = false;
};

ThreadParameter add_thread_parameter(const std::string& source) {
  const std::string code = without_comments(source, true);
  std::string outside = code;  // with the rewritten kernels' bodies blanked
  struct Edit {
    size_t at;
    size_t erase;
    std::string_view text;
  };
  std::vector<Edit> edits;
  for (size_t at : find_word(code, "__global__")) {
    if (on_directive(code, at)) continue;
    const auto declarator = kernel_declarator(code, at);
    if (!declarator) continue;
    const size_t open = declarator->second;
    const size_t close = skip_parens(code, open);
    const size_t first = skip_space(code, open + 1);
    if (first + 1 >= close) {  // ()
      edits.push_back({open + 1, 0, "simt_raw_thread simt_raw_t"});
    } else if (code.compare(first, 4, "void") == 0 && skip_space(code, first + 4) + 1 == close) {
      edits.push_back({first, 4, "simt_raw_thread simt_raw_t"});  // (void)
    } else {
      edits.push_back({open + 1, 0, "simt_raw_thread simt_raw_t, "});
    }
    const size_t end = code.find_first_of("{;", close);
    if (end == std::string::npos || code[end] != '{') continue;  // a declaration
    edits.push_back({end + 1, 0, " SIMT_RAW_THREAD_LOCALS"});
    const size_t body_end = skip_braces(code, end);
    std::fill(outside.begin() + static_cast<std::ptrdiff_t>(end),
              outside.begin() + static_cast<std::ptrdiff_t>(body_end), ' ');
  }
  ThreadParameter out;
  size_t copied = 0;
  for (const Edit& e : edits) {
    out.text.append(source, copied, e.at - copied);
    out.text += e.text;
    copied = e.at + e.erase;
  }
  out.text.append(source, copied);
  for (std::string_view name : {"threadIdx", "blockIdx", "blockDim", "gridDim"})
    out.tls_indices = out.tls_indices || !find_word(outside, name).empty();
  return out;
}

int line_of(const std::string& t, size_t p) {
  return 1 +
         static_cast<int>(std::count(t.begin(), t.begin() + static_cast<std::ptrdiff_t>(p), '\n'));
}

[[noreturn]] void refuse(const std::string& kernel, const std::string& why) {
  throw runtime::BackendCompileError("raw kernel '" + kernel +
                                     "' cannot run on the cpu device: " + why);
}

// `extern __shared__ T name[];` (the launch's dynamic shared memory) as an
// object that indexes and converts as that array does: the one CUDA
// declaration a macro cannot map.
std::string map_extern_shared(const std::string& source) {
  const std::string code = without_comments(source);
  std::string out;
  size_t copied = 0;
  for (size_t at : find_word(code, "extern")) {
    if (at < copied) continue;
    size_t p = skip_space(code, at + 6);
    if (code.compare(p, 10, "__shared__") != 0 ||
        (p + 10 < code.size() && ident_char(code[p + 10])))
      continue;
    const size_t end = code.find(';', p);
    if (end == std::string::npos) continue;
    std::string decl = code.substr(p + 10, end - (p + 10));
    // Alignment attributes: the buffer is aligned for every type.
    for (std::string_view attr : {"__align__", "__attribute__"}) {
      for (size_t a = decl.find(attr); a != std::string::npos; a = decl.find(attr)) {
        size_t open = skip_space(decl, a + attr.size());
        size_t close = open < decl.size() && decl[open] == '(' ? skip_parens(decl, open) : open;
        decl.replace(a, close - a, std::string(close - a, ' '));
      }
    }
    // `type name [ ]`
    size_t r = decl.find_last_not_of(" \t\r\n");
    if (r == std::string::npos || decl[r] != ']') continue;
    size_t l = decl.find_last_not_of(" \t\r\n", r - 1);
    if (l == std::string::npos || decl[l] != '[') continue;
    size_t name_end = decl.find_last_not_of(" \t\r\n", l - 1);
    if (name_end == std::string::npos || !ident_char(decl[name_end])) continue;
    size_t name_begin = name_end;
    while (name_begin > 0 && ident_char(decl[name_begin - 1])) --name_begin;
    std::string type = decl.substr(0, name_begin);
    type.erase(0, type.find_first_not_of(" \t\r\n"));
    type.erase(type.find_last_not_of(" \t\r\n") + 1);
    if (type.empty()) continue;
    const std::string name = decl.substr(name_begin, name_end + 1 - name_begin);
    const std::string replaced = source.substr(at, end + 1 - at);
    out += source.substr(copied, at - copied);
    out += "static simt_raw_extern_shared<" + type + "> " + name + ";";
    out +=
        std::string(static_cast<size_t>(std::count(replaced.begin(), replaced.end(), '\n')), '\n');
    copied = end + 1;
  }
  out += source.substr(copied);
  return out;
}

}  // namespace

std::vector<std::string> cuda_kernel_names(const std::string& source) {
  const std::string code = without_comments(source);
  std::vector<std::string> names;
  for (size_t at : find_word(code, "__global__")) {
    // A macro's parameter is no kernel's name (the kernel asked for is added by name).
    if (on_directive(code, at)) continue;
    // A template's kernels are instances: name expressions only.
    size_t start = code.find_last_of(";{}", at);
    start = start == std::string::npos ? 0 : start + 1;
    if (!find_word(code.substr(start, at - start), "template").empty()) continue;
    const auto declarator = kernel_declarator(code, at);
    if (declarator && std::find(names.begin(), names.end(), declarator->first) == names.end())
      names.push_back(declarator->first);
  }
  return names;
}

bool cuda_source_names(const std::string& source, const std::string& name) {
  return !find_word(without_comments(source), name).empty();
}

CudaOnCpuUnit cuda_on_cpu_unit(const runtime::RawSource& source,
                               const std::vector<std::string>& kernels, const std::string& kernel) {
  CudaOnCpuUnit unit;
  unit.kernels = kernels;
  const std::string code = without_comments(source.source);
  for (const Unsupported& u : kUnsupported) {
    auto at = find_word(code, u.name);
    if (!at.empty())
      refuse(kernel, std::string(u.what) + " at line " + std::to_string(line_of(code, at[0])) +
                         " has no CPU equivalent; run it on a CUDA device");
  }
  std::string defines;
  const auto& options = source.options;
  for (size_t k = 0; k < options.size(); ++k) {
    const std::string& o = options[k];
    // The value after the flag ("-DN=4", "--define-macro=N=4"), or the next option.
    auto value_of = [&](std::string_view flag) -> std::string {
      if (o.size() > flag.size()) return o.substr(flag.size() + (o[flag.size()] == '=' ? 1 : 0));
      if (k + 1 >= options.size()) refuse(kernel, "the option " + o + " needs a value");
      return options[++k];
    };
    if (o.rfind("-D", 0) == 0 || o.rfind("--define-macro", 0) == 0) {
      std::string d = value_of(o.rfind("-D", 0) == 0 ? "-D" : "--define-macro");
      const size_t eq = d.find('=');
      defines += "#define " +
                 (eq == std::string::npos ? d + " 1" : d.substr(0, eq) + " " + d.substr(eq + 1)) +
                 "\n";
    } else if (o.rfind("-U", 0) == 0 || o.rfind("--undefine-macro", 0) == 0) {
      defines += "#undef " + value_of(o.rfind("-U", 0) == 0 ? "-U" : "--undefine-macro") + "\n";
    } else if (o.rfind("-I", 0) == 0 || o.rfind("--include-path", 0) == 0) {
      unit.include_dirs.push_back(value_of(o.rfind("-I", 0) == 0 ? "-I" : "--include-path"));
    } else if (o == "--use_fast_math" || o == "-use_fast_math") {
      unit.fastmath = true;
    } else if (std::none_of(std::begin(kIgnoredOptionPrefixes), std::end(kIgnoredOptionPrefixes),
                            [&](std::string_view prefix) { return o.rfind(prefix, 0) == 0; })) {
      refuse(kernel, "the cpu device's compiler does not take the option '" + o +
                         "' (it takes -D, -U, -I and --use_fast_math, and ignores NVRTC's "
                         "code generation options)");
    }
  }
  unit.fibers = std::any_of(std::begin(kCollectives), std::end(kCollectives),
                            [&](std::string_view name) { return !find_word(code, name).empty(); });
  // A header may hold a barrier this text does not show.
  if (!unit.include_dirs.empty() && !find_word(code, "include").empty()) unit.fibers = true;
  std::string& text = unit.text;
  text += "#define SIMT_RAW_FIBERS " + std::string(unit.fibers ? "1" : "0") + "\n";
  const ThreadParameter rewritten = add_thread_parameter(source.source);
  unit.tls_indices = rewritten.tls_indices;
  // A header may name them too.
  if (!unit.include_dirs.empty() && !find_word(code, "include").empty()) unit.tls_indices = true;
  text += "#define SIMT_RAW_STACK_BYTES " + std::to_string(kFiberStackBytes) + "\n";
  text += "#define SIMT_RAW_TLS_INDICES " + std::string(unit.tls_indices ? "1" : "0") + "\n";
  text += kPrelude;
  text += defines;
  text += "#line 1 \"" + kernel + ".cu\"\n";
  text += map_extern_shared(rewritten.text);
  text += "\n#line 1 \"simt_raw_entries\"\n";
  for (size_t k = 0; k < kernels.size(); ++k) {
    const std::string n = std::to_string(k);
    text += "constexpr auto simt_raw_fn_" + n + " = &" + kernels[k] + ";\n";
    text += "extern \"C\" void simt_raw_entry_" + n +
            "(const simt_block_ctx* c, void* const* a) { simt_raw_entry<simt_raw_fn_" + n +
            ">(c, a); }\n";
    text += "extern \"C\" int simt_raw_params_" + n +
            "(simt_raw_param_desc* out, int capacity) { return simt_raw_describe(simt_raw_fn_" + n +
            ", out, capacity); }\n";
  }
  return unit;
}

}  // namespace simt::cpu
