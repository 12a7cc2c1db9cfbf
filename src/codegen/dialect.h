// What differs between the three C-family languages simt emits: data, read
// by the one emitter (codegen/emit_*.cpp). A dialect never holds control
// logic. The defaults are C as CUDA and the CPU's C++ spell it; each row in
// dialects.cpp names only the fields where it differs.
#pragma once

#include <array>
#include <optional>
#include <string>
#include <string_view>

#include "abi/kernel_abi.h"
#include "sema/types.h"

namespace simt::codegen {

// The device-API objects whose x/y/z components a dialect spells.
enum class IndexObject { ThreadIdx, BlockIdx, BlockDim, GridDim };

// How a block's threads run.
enum class BlockModel : uint8_t {
  // Each thread is a hardware thread: barriers and warp operations are the
  // dialect's builtins.
  Hardware,
  // One call per block runs its threads as loops (the CPU): barriers split
  // the loops into regions (emit_regions.cpp), warp operations are emulated
  // there, and atomics on shared arrays are plain read-modify-writes (a
  // block's threads never run at once). Kernels the regions cannot take
  // (a barrier under a condition that differs between threads, a collective
  // in a device function or an expression) run in fiber mode instead: each
  // thread a fiber, the dialect's barrier and warp spellings calls into the
  // runtime (backends/cpu/fibers.h).
  Loops,
};

// How a float becomes an integer, saturating, NaN to 0.
enum class FloatToInt : uint8_t {
  // A plain C cast does it on this target (the CPU's
  // -fno-strict-float-cast-overflow).
  Cast,
  // The generated simt_f2int_* helpers: CUDA's casts turn NaN into the most
  // negative integer and do not saturate narrow types; NVIDIA's OpenCL
  // convert_long_sat_rtz turns NaN into the most negative long.
  Helper,
};

// float16 operations a dialect may do in the hardware's own instructions
// (Dialect::native_half), in that array's order.
enum class HalfOp : uint8_t {
  ToFloat,     // float16 bits (`h`) -> float
  FromFloat,   // float (`f`) -> float16 bits, to nearest even
  FromDouble,  // double (`x`) -> float16 value as a float, one rounding
  FromInt,     // an integer (`x`, of C type $T, PTX type $I) -> float16 value as a float
  Fma,         // a * b + c rounded once
  Add,
  Sub,
  Mul,
  Neg,
  Abs,
  Compare,  // a $op b, $op the PTX comparison (lt, le, gt, ge, eq, neu)
};
inline constexpr int kHalfOpCount = 11;

// The order of Dialect::atomic_int32/atomic_int64 entries.
enum class AtomicOp { Add, Sub, Min, Max, And, Or, Xor, Exch };

using ScalarNames = std::array<std::string_view, abi::kScalarCount>;

struct Dialect {
  abi::Language id = abi::Language::Cuda;  // one dialect per source language
  std::string_view name{};                 // "cuda", "opencl", "cpp"
  BlockModel block_model = BlockModel::Hardware;

  // C spelling of each sema::Scalar as a value in registers, and as stored
  // in arrays (bool is a byte in memory; float16 is 16 bits in memory and
  // a float in registers).
  ScalarNames value_types{"bool",
                          "signed char",
                          "short",
                          "int",
                          "long long",
                          "unsigned char",
                          "unsigned short",
                          "unsigned int",
                          "unsigned long long",
                          "float",
                          "float",
                          "double",
                          "simt_c64",
                          "simt_c128"};
  ScalarNames storage_types{
      "unsigned char",      "signed char",    "short",          "int",
      "long long",          "unsigned char",  "unsigned short", "unsigned int",
      "unsigned long long", "unsigned short", "float",          "double",
      "simt_c64",           "simt_c128"};

  std::string_view kernel_prefix{};  // before `void name(...)` of the kernel
  // A kernel that caps its registers per thread (Numba's max_registers): lines
  // before the kernel (`%n` the cap), then what follows kernel_prefix. CUDA's
  // __maxnreg__ (none for an NVRTC before 12.4), which NVRTC writes into the
  // PTX (.maxnreg), so it holds for a cubin and for the driver's JIT alike.
  // Empty: the device's compiler takes no such cap, and the option is ignored.
  std::array<std::string_view, 2> max_registers{};
  std::string_view function_prefix = "static inline ";  // helpers and device functions
  // A helper only failures call (checked kernels' reporting): kept out of
  // line, so the checks' fast path stays small.
  std::string_view cold_function_prefix = "static ";
  // What every device function takes before its own parameters, and what
  // every call passes for them: the C++ dialect's index expressions read the
  // block context and the thread index, which only the kernel body has in
  // scope. Empty for CUDA and OpenCL, whose index expressions are builtins.
  std::string_view function_hidden_params{};
  std::string_view function_hidden_args{};
  std::string_view global_space{};  // qualifier of pointers to kernel-argument memory
  // Non-empty: an array argument arrives as two C parameters, its buffer and
  // a byte offset of this type into it (abi::Param::c_params). OpenCL buffers
  // are handles, not addresses, so a view into one (a slice) cannot be a
  // plain pointer.
  std::string_view array_offset_type{};
  // A line before a loop that must stay rolled: a rarely taken fallback whose
  // unrolled copy would raise the whole kernel's register count (and cut its
  // occupancy; CUDA's register file is shared by the resident blocks). Empty:
  // the compiler decides.
  std::string_view rolled_loop{};
  std::string_view printf_int64 = "%lld";  // printf conversion for 64-bit ints
  std::string_view printf_uint64 = "%llu";
  std::string_view int64_suffix = "LL";  // integer literal suffixes: 5LL / 5L
  std::string_view uint64_suffix = "ULL";

  // The x, y, z components of each IndexObject.
  std::array<std::array<std::string_view, 3>, 4> index_objects{};

  // Math: the C name for a function of `float`/`double`, from the float64
  // spelling: CUDA and C++ add an `f` suffix for float, OpenCL overloads.
  std::string_view math_prefix{};         // "__builtin_" for the CPU (no headers)
  bool float_suffix = true;               // sinf for float
  std::string_view isnan_name = "isnan";  // classification functions' names, prefix included
  std::string_view isinf_name = "isinf";
  std::string_view isfinite_name = "isfinite";

  FloatToInt float_to_int = FloatToInt::Helper;

  // float16 values are floats in registers; where the hardware converts and computes
  // float16 itself, by HalfOp: the definition of the helper doing that ($Q the function
  // prefix, $N its name; operands `a`, `b`, `c` floats holding float16 values). Each gives
  // the portable helper's result bit for bit (float16's +, -, * and fma rounded once; a
  // conversion's NaN keeps its payload); only faster. Empty: the portable helper (integer
  // code for conversions, float's operation rounded to float16 for the rest).
  std::array<std::string_view, kHalfOpCount> native_half{};
  std::string_view native_half_op(HalfOp op) const { return native_half[static_cast<int>(op)]; }

  // Bit casts between float/uint32 and double/uint64, for float16 and for
  // infinities. `%x` is the value.
  std::string_view float_as_uint{};
  std::string_view uint_as_float{};
  std::string_view double_as_ulong{};
  std::string_view ulong_as_double{};

  // The type complex64's tanh (and tan) is computed in, where not float: the float
  // formula compounds the errors of its tanh, tan and cosh to 9 ulps (OpenCL allows
  // those up to 4 and 5 ulps each); in double the result is float's within 1 ulp. CUDA
  // keeps float: most GPUs run double at 1/32 or 1/64 of its rate.
  std::string_view complex64_work{};
  std::string_view prelude{};  // declarations every kernel of this dialect needs
  // Ahead of each linked source (cuda.jit(link=...)): the CPU's C++ reads
  // CUDA's function qualifiers in .cu sources as nothing.
  std::string_view linked_prelude{};
  // Ahead of a CuPy snippet kernel's preamble (ElementwiseKernel's preamble=):
  // CUDA's function qualifiers (`__device__ inline T f(T x)`) in this
  // dialect. Empty where the dialect reads them itself (CUDA, and the cpu
  // device, which compiles snippet kernels as CUDA C++).
  std::string_view cuda_qualifiers{};
  // The name the backend's compiler gives the generated source, entry + this.
  std::string_view source_suffix = ".cu";
  // A statement at the top of a `while` loop's body that leaves the loop
  // when the runtime asks running kernels to stop (the CPU's Ctrl-C), and the
  // declaration of the epoch it reads (defined once, where used); empty
  // where a kernel cannot be stopped from the host.
  std::string_view loop_cancel_flag{};
  std::string_view loop_cancel_check{};
  // %x: a condition the C compiler may take as true (the CPU's thread guard,
  // passes/thread_guard.h); empty where the dialect has no such builtin.
  std::string_view assume{};

  // ---- shared memory, barriers, atomics, warps ----------------------------
  // Qualifier of pointers into shared (block) memory, and of its declarations.
  std::string_view shared_space{};
  std::string_view shared_decl{};
  // The launch's dynamic shared memory (`shared.array(0, dtype)`): a C
  // parameter declared before its size (OpenCL's `__local` buffer; the size's
  // record then has c_params 2), or a statement declaring it at the top of
  // the kernel body.
  std::string_view dynamic_shared_param{};
  std::string_view dynamic_shared_storage{};
  // `syncthreads()` as a statement (BlockModel::Loops: fiber mode's; regions
  // lower barriers themselves).
  std::string_view barrier{};
  // syncthreads_count/and/or with `%x` the int predicate; empty: lowered on
  // a shared counter (OpenCL 1.2 has no work-group reductions) or regions.
  std::array<std::string_view, 3> barrier_reduce{};
  std::array<std::string_view, 3> fences{};  // threadfence, _block, _system
  // cuda.cg.this_grid().sync(): an expression making every thread of the
  // launch wait for all the others, nonzero where the launch is being
  // stopped (the CPU: a fault in another block, or Ctrl-C); empty where the
  // dialect has no grid barrier (OpenCL: a kernel using it requires the
  // device's grid_sync capability, which it lacks).
  std::string_view grid_sync{};
  // Where the barrier is code of simt's own: its definition (a helper, added
  // once), and the C type of the hidden parameter carrying its state (an
  // abi::Param::Role::GridBarrier record), which every device function then
  // also takes. Empty: the state comes from elsewhere (the CPU's block context).
  std::string_view grid_sync_helper{};
  std::string_view grid_barrier_type{};
  // Compare-and-swap on 32/64-bit unsigned words, returning the old word:
  // `%S` the pointer's space qualifier, `%p` the pointer, `%e` expected, `%d`
  // desired.
  std::string_view atomic_cas32{};
  std::string_view atomic_cas64{};
  // Native atomics on 32- and 64-bit integers, by AtomicOp; `%p` the
  // element's pointer, `%v` the value, `%T` the element's C type. Empty: a
  // compare-and-swap loop.
  std::array<std::string_view, 8> atomic_int32{};
  std::array<std::string_view, 8> atomic_int64{};
  // float32, float64; empty: a compare-and-swap loop (for float64 one on
  // 64-bit words: the kernel then requires 64-bit atomics).
  std::array<std::string_view, 2> atomic_float_add{};
  // Warp operations; empty where the dialect has none (OpenCL 1.2): a
  // compile error, or the CPU's emulation in regions. `%m` mask, `%x`
  // value, `%l` lane / delta / lane mask, `%s` a number for the call site
  // (the CPU's fibers group the lanes waiting at one site).
  std::array<std::string_view, 4> shuffles{};  // idx, up, down, xor
  std::array<std::string_view, 3> votes{};     // ballot, all, any
  std::string_view syncwarp{};                 // a statement
  // match_any_sync, match_all_sync (`%l`: an int* that receives the predicate).
  std::array<std::string_view, 2> matches{};
  std::string_view activemask{};
  std::string_view warpsize{};
  // Where warps are the dialect's sub-groups: the helpers the spellings above call
  // (defined once, where a kernel uses a warp operation), and the kernel attribute
  // that makes each sub-group 32 lanes wide.
  std::string_view warp_helpers{};
  std::string_view warp_kernel_attribute{};
  // Declarations at the top of a kernel using a warp operation: storage its helpers
  // use (OpenCL without sub-groups: the work-items' exchange slots).
  std::string_view warp_kernel_storage{};

  // Constant arrays (global NumPy arrays): the qualifier of their program-
  // scope definition and of pointers to them, and infinity and NaN as
  // constant expressions for their initializers (float, double).
  std::string_view constant_decl{};
  std::string_view constant_space{};
  std::array<std::string_view, 2> infinity{};
  std::array<std::string_view, 2> nan{};
  // No constant spelling of infinity and NaN: float arrays are defined as
  // their bits (unsigned integers) and read through a float pointer (safe:
  // nothing ever writes them).
  bool constant_floats_as_bits = false;

  // Record dtypes (emit_records.cpp). A record's bytes as a struct whose every value
  // starts at `%a`-byte alignment (`%n` bytes, named `%N`); and a struct reaching a
  // scalar's storage type `%T` at any address (named `%N`), for the fields and elements
  // a record's alignment does not cover: compilers load and store a packed member byte by
  // byte where they cannot prove it aligned. GNU attributes: NVRTC, Clang and OpenCL C
  // compilers all take them.
  std::string_view record_struct =
      "typedef struct __attribute__((aligned(%a))) {\n  unsigned char simt_bytes[%n];\n} %N;\n";
  std::string_view packed_struct = "typedef struct __attribute__((packed)) {\n  %T v;\n} %N;\n";

  std::string_view value_type(sema::Scalar s) const { return value_types[static_cast<int>(s)]; }
  // The qualifier of pointers into memory of `space` (empty for a thread's own).
  std::string_view pointer_space(sema::Space space) const;
  std::string_view storage_type(sema::Scalar s) const { return storage_types[static_cast<int>(s)]; }
  // "threadIdx.x", "get_local_id(0)", ...
  std::string_view index_expr(IndexObject object, int component) const;
  // "sinf", "sin", "__builtin_sin": the math function for a float or double.
  std::string math_name(std::string_view c_name, sema::Scalar real) const;
  bool threads_are_loops() const { return block_model == BlockModel::Loops; }
};

const Dialect& dialect(abi::Language id);
std::optional<abi::Language> dialect_from_name(std::string_view name);

}  // namespace simt::codegen
