// The emitter's private header. Emitter is declared once, here, and its
// members are defined in the emit_*.cpp files of this folder, one concern
// each; nothing outside src/codegen/ includes this (emitter.h is the API).
//
// Expressions are emitted as C expressions in the C type of their inferred
// type; every operand is converted to the operation's type first (the
// `operand` of its ExprInfo), so C's own promotions never decide a result.
// Tuples never exist in C: a tuple value is a list of item expressions and
// a tuple variable is one C variable per item.
#pragma once

#include <functional>
#include <initializer_list>
#include <map>
#include <memory>
#include <optional>
#include <set>
#include <string>
#include <string_view>
#include <unordered_map>
#include <utility>
#include <vector>

#include "codegen/emitter.h"
#include "codegen/helpers.h"
#include "passes/passes.h"

// A named namespace rather than an anonymous one: the members and helpers
// are defined in several files.
namespace simt::codegen::detail {

using abi::PythonLine;
using lang::Expr;
using lang::ExprKind;
using lang::Op;
using lang::Stmt;
using lang::StmtKind;
using sema::Constant;
using sema::ExprInfo;
using sema::Scalar;
using sema::Type;
using sema::TypeKind;

// ---- text helpers (emit_text.cpp) -------------------------------------------

// User names get a prefix no generated name has, so a kernel variable named
// `sin`, `int`, `float4` or `kernel` never meets a C or CUDA name.
std::string mangle(const std::string& name);

// The shortest text that reads back as `v`, always a C floating literal
// (with a '.' or an exponent; format_float adds the `f`).
std::string format_double(double v);
std::string format_float(float v);

// A dialect pattern with each two-character placeholder ("%x") replaced by
// its text; replaced text is never scanned again.
std::string fill_pattern(std::string_view pattern,
                         std::initializer_list<std::pair<std::string_view, std::string>> values);

std::string apply(std::string_view pattern, const std::string& type, const std::string& x);

// A Python source line as a C comment: no line splicing backslash at its
// end, ASCII only (OpenCL compilers need not accept other bytes).
std::string comment_text(std::string_view line);

bool is_float_like(Scalar s);

// "a, b, c".
std::string join_list(const std::vector<std::string>& parts);

// Whether `kernel` or a device function it calls syncs the grid (emit_grid.cpp).
bool uses_grid_sync(const sema::TypedFunction& kernel);

// Whether `kernel` and the device functions it calls read a thread's x position only
// through cuda.grid() (never threadIdx.x, blockIdx.x or the lane): then a row of
// threads may span several blocks along x, and the grid's x index stays exact
// (abi::Requirements::x_spans; emit_grid.cpp).
bool x_position_only_from_grid(const sema::TypedFunction& kernel);

// How many statements of `body` (nested ones too) assign local `local`; a tuple target
// counts as one whatever it holds.
int assignments_to(const sema::TypedFunction& fn, const std::vector<lang::StmtPtr>& body,
                   int local);

// `step` is the grid's size (cuda.gridsize(1), or a local assigned it once).
bool is_grid_stride(const sema::TypedFunction& fn, const Expr& step);

// The step of a grid-stride loop: `range(start, stop, step)`'s, or the `counter += step`
// of `while counter < stop:` (any ordering test of the counter), where that step is the
// grid's size; null for any other statement.
const Expr* grid_stride_step(const sema::TypedFunction& fn, const Stmt& loop);

// Whether `body`, a loop's, holds a `kind` statement (break, continue) of that loop:
// a nested loop's are its own (emit_stmt.cpp).
bool loop_contains(const std::vector<lang::StmtPtr>& body, StmtKind kind);

// An expression whose value cannot change while a loop runs other than through its
// locals: names, literals, attributes (x.size, x.shape), tuple items, the launch's
// sizes (gridsize, len) and arithmetic on them; no array element (emit_gang.cpp).
bool reads_no_array(const sema::TypedFunction& fn, const Expr& e);

// A scalar of a signed integer type (emit_gang.cpp).
bool signed_integer(const Type& t);

// Whether a statement after `loop`, a statement of the kernel's body (its top level),
// may read local `local`; true also where `loop` is nested (emit_gang.cpp).
bool read_after(const sema::TypedFunction& fn, const Stmt& loop, int local);

// The CPU emits a kernel twice (Module::lockstep_form): no barriers or shared arrays
// (those run as regions already), no exits, a grid-stride loop at its top level.
bool wants_lockstep_form(const sema::TypedFunction& fn, const EmitOptions& options);

// What the kernel and the device functions it calls share in one generated
// source: helpers, array views, tuple-result structs and the functions.
struct Module {
  explicit Module(const Dialect& d) : helpers(d) {}
  HelperSet helpers;
  std::string view_code;
  std::set<std::string> views;
  std::set<std::string> tuple_structs;
  std::string tuple_code;
  std::string function_code;
  // Constant arrays (global NumPy arrays), defined at program scope once.
  std::set<std::string> constants;
  std::string constant_code;
  // Linked sources (each once, as origin and text) ahead of the device
  // functions that call the foreign functions they define; the symbols
  // already checked.
  std::set<std::string> linked;
  std::set<std::string> foreign_symbols;
  std::vector<std::pair<std::string, std::string>> linked_sources;
  // A translated CUDA source's pointer parameters (`SIMT_SPACE_<symbol>_<k>`, private
  // where undefined): OpenCL C 1.2 has no generic pointers, so each takes the address
  // space of the arrays the kernel passes it, one per module.
  std::map<std::string, std::string> pointer_spaces;
  std::set<std::string> translated_symbols;
  // The CPU's lockstep form of a kernel without barriers whose grid-stride loop
  // would walk the array thread by thread (emit_kernel.cpp): emitted first, as regions
  // under `<entry>_lockstep`; the plain entry calls it for grids smaller than the data.
  bool lockstep_form = false;
  std::string lockstep_code;
  // Features a device must have, from the kernel or any device function.
  std::optional<PythonLine> warp_use;
  std::optional<PythonLine> int64_atomic_use;
  // The first grid barrier (cuda.cg.this_grid().sync()): the kernel is
  // cooperative (abi::Requirements::grid_sync).
  std::optional<PythonLine> grid_sync_use;
  // The kernel or a device function it calls syncs the grid: where the
  // dialect passes the barrier's state as a hidden parameter, the kernel and
  // every device function take it (known before any of them is emitted).
  bool grid_barrier = false;
  int64_t shared_bytes = 0;  // static shared arrays (abi::Requirements::shared_bytes)
  std::optional<PythonLine> shared_use;
  // What a checked kernel and its device functions check, numbered in
  // emission order (abi::GeneratedKernel::check_sites).
  std::vector<abi::CheckSite> check_sites;
  // What a race-checked kernel and its device functions report to the
  // recorder, numbered in emission order (abi::GeneratedKernel::race_sites).
  std::vector<abi::RaceSite> race_sites;
  std::vector<bool> race_unwritten;  // passes::unwritten_array_params of the kernel
  std::vector<bool> race_own;        // passes::own_element_params of the kernel
  // The CPU kernel runs in fiber mode (backends/cpu/fibers.h): each thread
  // a fiber, barriers and warp operations calls into the runtime.
  bool fibers = false;
  int warp_sites = 0;            // call sites of warp operations so far (`%s`)
  int64_t cpu_shared_bytes = 0;  // CPU: static shared arrays (abi::Requirements::cpu_shared_bytes)
  int64_t local_bytes = 0;       // local arrays per thread, all functions together
  // OpenCL declares __local variables in kernels only: each shared array a
  // device function allocates (a slot) is declared in the kernel and passed
  // down, through every function between, as a hidden parameter named after
  // its slot (emit_shared_slots.cpp). Empty for the other dialects.
  struct SharedSlot {
    const sema::TypedDeviceFunction* owner = nullptr;
    const Expr* alloc = nullptr;
  };
  std::vector<SharedSlot> shared_slots;
};

// Fills Module::shared_slots where the dialect needs them (emit_shared_slots.cpp).
void collect_shared_slots(const sema::TypedFunction& kernel, const Dialect& d, Module& m);

// Thrown by the region lowering where it cannot place a barrier or warp
// operation; emit_kernel then emits the kernel in fiber mode. Not a
// std::exception, so no statement's error handler takes it for a failure.
struct RegionsRefused {};

// The CPU's lowering of a kernel with barriers (emit_regions.cpp): all of
// its state in one place, so that what the other parts of the emitter read
// of it is plain to see; inactive for other kernels and dialects.
struct RegionLowering {
  // The CPU kernel runs as regions: loops over the block's threads between
  // barriers.
  bool active = false;
  std::unique_ptr<passes::Uniformity> uniformity;
  bool uniform_level = false;              // emitting outside the loops over threads
  bool bare_names = false;                 // local_name() without the per-thread index
  bool has_exits = false;                  // a thread may return before others: simt_exited[]
  bool suppress_comment = false;           // the next statement's source line is already out
  std::string thread_exit_label;           // inside a region: where a returning thread goes
  std::vector<std::string> scratch_sizes;  // per-thread arrays, in bytes
  std::vector<std::string> masks;          // under varying conditions: the active threads
  // A gang round's counter kept in a C local instead of its per-thread array
  // (emit_gang.cpp): local_name() of `register_local` is `register_name`.
  int register_local = -1;
  std::string register_name;
};

class Emitter {
 public:
  // `self` is the device function being emitted, null for the kernel.
  Emitter(const sema::TypedFunction& fn, const Dialect& d, const EmitOptions& options, Module& m,
          const sema::TypedDeviceFunction* self = nullptr);

  // A device function: `static inline R simt_func_<name>_<n>(params) { ... }`.
  // Parameters are the callee's own C variables where their types agree:
  // scalars by value, arrays as their struct, tuples one parameter per item.
  void emit_function();

  abi::GeneratedKernel run();

 private:
  // ---- the function (emit_function.cpp) -------------------------------------

  // The kernel's C parameters, one declaration each, in the order of their
  // slots; the prologue unpacks them into the locals.
  std::vector<std::string> parameters(std::vector<abi::Param>& slots);
  static std::vector<int> tuple_path(const Type& t, size_t flat_index);
  static bool find_path(const Type& t, size_t target, size_t& counter, std::vector<int>& path);
  std::string function_body();
  // The locals' C declarations, each set to zero.
  std::string local_declarations();
  // The body of the thread guard's test function: the statements before the
  // guard, then `return` whether the guard lets the thread go on.
  std::string thread_guard_test();
  // The plain entry's call of the lockstep form (Module::lockstep_code) for grids
  // smaller than the data; empty without one.
  std::string lockstep_dispatch(const std::vector<abi::Param>& params,
                                const std::string& entry) const;
  // The CPU kernel's loops over a block's threads calling `body_name`.
  // `x_spans`: the row of threads spans simt_block.x_blocks blocks along x.
  std::string thread_loops(const std::string& body_name, const std::string& args,
                           bool x_spans) const;
  // Fiber mode's entry: a function running one thread (reading the
  // arguments, `reads`, and calling the body with them, `args`), handed to
  // the runtime with the stack and shared memory a block needs.
  std::string fiber_entry(const std::string& entry, const std::string& body_name,
                          const std::string& reads, const std::string& args) const;

  // ---- names, types, literals and conversions (emit_types.cpp) --------------

  const ExprInfo& info(const Expr& e) const;
  std::string ctype(const Type& t);

  // In regions (the CPU's barrier kernels) a local that varies between
  // threads lives in a per-thread array, indexed by the thread.
  std::string local_name(int index) const;
  // The per-thread array of local `index` (local_name() indexes it with simt_t).
  std::string per_thread_array(int index) const;

  bool per_thread(int index) const;

  // An assignment to local `index`: at the uniform level a per-thread local
  // (the counter of a loop with barriers, reused in varying code) takes the
  // value in every thread.
  std::string for_every_thread(int index, const std::string& assignment) const;

  // The C type a device function returns: void, a scalar, or the struct of
  // a tuple's (flattened) items.
  std::string result_ctype(const Type& t);

  // `simt_tuple_i64_f32`: fields v0, v1, ... one per flattened item. Tuples
  // with the same flattened items share one struct.
  std::string tuple_struct(const Type& t);

  // The C variables holding a value of type `t` named `base`: one for a
  // scalar or array, one per (nested) item for a tuple.
  void flatten(const Type& t, const std::string& base, std::vector<std::string>& names,
               std::vector<Type>& types, const std::string& path = "");

  std::string literal_int(int64_t v, Scalar s);
  std::string literal(const Constant& c, const Type& to);
  std::string float_literal(double v, Scalar s);

  // Converts code of type `from` to type `to` (scalars), with Python's and
  // NumPy's semantics rather than C's where they differ.
  std::string convert(const std::string& code, const Type& from_type, const Type& to_type);

  std::string truth(const Expr& e);
  // truth(e) for an if/while statement: without the outer parentheses an expression brings,
  // which Clang flags as `if ((a == b))` (-Wparentheses-equality).
  std::string condition(const Expr& e);

  // ---- statements (emit_stmt.cpp) -------------------------------------------

  void line(const std::string& text);
  void source_comment(const Stmt& s);
  void block(const std::vector<lang::StmtPtr>& body);
  void stmt(const Stmt& s);
  void stmt_unchecked(const Stmt& s);
  void loop_body(const std::vector<lang::StmtPtr>& body, bool unrolled, std::string label = "");
  void assign(const Stmt& s);

  // Saves each part in a fresh temporary; returns the temporaries' names.
  std::vector<std::string> temporaries(const Type& t, const std::vector<std::string>& parts);

  void store(const Expr& target, const Expr& value);

  // The value converted to the target's type, emitted directly when it is
  // a constant.
  std::string emit_as_target(const Expr& target, const Expr& value);

  Type target_type(const Expr& target);

  // Stores already-evaluated parts (one per flattened item of `vt`),
  // converted to the target's type.
  void store_parts(const Expr& target, const std::vector<std::string>& parts, const Type& vt);

  void aug_assign(const Stmt& s);
  void if_stmt(const Stmt& s);

  // A range loop's header, the loop variable's assignment from the counter,
  // and the body.
  void range_loop(const std::string& header, const std::string& assign_local, const Stmt& s);

  void for_stmt(const Stmt& s);
  // range(start, stop, step) (other than the steps for_stmt writes as C's plain
  // loops), its three values in C variables: the loop counted by range_length(), each
  // value computed from the iteration number (exact for any step, zero included).
  struct RangeVars {
    Type type;  // the range's (strong) integer type
    std::string start, stop, step, it, assign_local;
  };
  // `rolled`: kept rolled where the dialect can say so (Dialect::rolled_loop).
  void counted_range_loop(const Stmt& s, const RangeVars& r, std::optional<int64_t> known_step,
                          bool rolled = false);
  // The same loop as C's `for (it = start; it < stop; it += step)` for a positive
  // step and `it > stop` for a negative one, each under a run-time test that makes
  // it exact, the counted loop for the rest (emit_range_versions.cpp); false, with
  // nothing emitted, where the body is too large or must not be copied.
  bool versioned_range_loop(const Stmt& s, const RangeVars& r);
  // Whether the value of `e` is known >= 0 here: sema's fact, or a read of a loop
  // variable that the loop version being emitted keeps non-negative.
  bool known_nonnegative(const Expr& e) const;
  // The unsigned type a range of `s` values counts in (at least 32 bits, so
  // narrow types never promote to int).
  std::string range_unsigned(Scalar s) const;
  // How many values range(start, stop, step) yields, as Python's range
  // computes it, in the unsigned type `u`: no value past `stop` is formed,
  // so nothing wraps near the ends of the type. `known_step`: the step's
  // value when constant (one branch then); a step of 0 yields none (Python
  // raises there).
  std::string range_length(const std::string& u, const std::string& start, const std::string& stop,
                           const std::string& step, std::optional<int64_t> known_step) const;
  // A for loop over an array, or over enumerate/zip of ranges, arrays (and tuples
  // zipped with those): one counted loop, each value computed from the iteration
  // number.
  void counted_loop(const Stmt& s);
  // One sequence of a counted loop: how many values it yields and the value of
  // iteration `k` (an unsigned counter's C name).
  struct CountedPart {
    std::string length;  // a C variable; empty: unbounded (enumerate's counter)
    std::function<std::string(const std::string& k)> value;
  };
  // Evaluates the sequences of `iter` once, here, into variables named after `tag`;
  // appends their parts in the order the yielded tuple flattens to.
  void counted_parts(const Expr& iter, const std::string& tag, std::vector<CountedPart>& out);
  // The flattened items of enumerate/zip over tuples (a tuple of tuples, unrolled).
  std::vector<std::string> tuple_iteration_parts(const Expr& call);
  void expr_stmt(const Expr& e);
  void print(const Expr& call);

  // ---- regions: CPU kernels with barriers (emit_regions.cpp) ----------------

  bool needs_regions() const;
  [[noreturn]] void fail_at(lang::Span span, const std::string& message) const;
  const Expr* first_collective(const Stmt& s) const;

  // Whether `s` runs at the uniform level (once per block) rather than in a
  // region.
  bool uniform_level(const Stmt& s) const;

  // Whether a statement of `body` must run at the uniform level; `in_loop`:
  // `body` is a loop's own body (its break/continue target that loop, which
  // is then at the uniform level only if something else puts it there).
  bool contains_uniform_level(const std::vector<lang::StmtPtr>& body, bool in_loop) const;

  void region_block(const std::vector<lang::StmtPtr>& body);
  void open_thread_loop();
  void close_thread_loop();
  void flush_region(std::vector<const Stmt*>& pending);
  void uniform_stmt(const Stmt& s);

  // Whether every collective in `s` is a warp operation (shuffle or vote):
  // those may run under varying conditions, block barriers may not.
  bool warp_collectives_only(const Stmt& s) const;

  // A per-thread flag array for a mask: set in a loop over the block's
  // threads to `value` where the enclosing mask is active, 0 elsewhere.
  std::string new_mask(const std::function<std::string()>& value);

  void masked_if(const Stmt& s);

  // `while` under a varying condition: each pass re-evaluates the condition
  // for the threads still in the loop, and ends when none is.
  void masked_while(const Stmt& s);
  // A varying loop the regions run in lockstep (one iteration of every thread per round)
  // rather than thread by thread: a grid-stride loop without exits.
  bool lockstep_loop(const Stmt& s);
  void lockstep_loop_rounds(const Stmt& s);
  void lockstep_rounds(const Stmt& s);
  // Ctrl-C's check at the head of a loop that may run long (`break` leaves it).
  void loop_cancel_check();
  // `while i < n: ...; i += cuda.gridsize(1)` as a loop of a count known before it
  // starts, which compilers unroll (emit_counted_while.cpp); false (nothing emitted)
  // for any other loop.
  bool counted_grid_stride_while(const Stmt& s);
  // Where a loop of lockstep_rounds() may run as a gang (emit_gang.cpp), emits the
  // gang's rounds under a run-time check that the block's counters are consecutive,
  // then `} else {` for the masked rounds, and returns true. `next` and `strong`:
  // a range's per-thread next values and their type.
  bool gang_rounds(const Stmt& s, const std::string& next, const Type& strong);

  // A statement made of one collective call, split in two regions around the
  // barrier: the first stores each thread's operands, the second computes
  // each thread's result from all of them and runs the statement.
  void collective_stmt(const Stmt& s, const Expr& call);

  void stmt_without_comment(const Stmt& s);

  // Per-thread state of a kernel run as regions: `count` zeroed values of
  // `type` in the block's scratch buffer, which the kernel allocates on the
  // heap once per block (a block of 1024 threads with a local array can need
  // megabytes, more than a worker thread's stack has).
  std::string scratch(const std::string& type, const std::string& count);

  // The scratch buffer's layout and allocation, for the top of the kernel.
  std::string scratch_setup() const;

  // The body of a kernel run as regions: uniform locals are plain variables,
  // varying ones per-thread arrays (parameters copied into theirs).
  std::string region_function_body();

  // ---- device functions: returns and calls (emit_calls.cpp) -----------------

  void return_stmt(const Stmt& s);

  // Calls with effects the C expression must not duplicate or drop:
  // atomics, warp operations, barriers and fences.
  static bool effectful_intrinsic(const ExprInfo& i);

  // Whether `e` contains a call of a device function or an effectful
  // intrinsic (memoized).
  bool has_call(const Expr* e);

  // Evaluates the device-function calls inside `e` into temporaries, in
  // Python's order, before the statement that uses `e`: a call then runs
  // exactly once however often its value appears in the C expression.
  // Calls evaluated only under a condition (`and`/`or`, the branches of
  // `a if c else b`, the rest of a chained comparison) become if-statements.
  void prepare(const Expr& e);

  void prepare_arguments(const Expr& call);

  // The parts of an assignment target that are evaluated: array and index.
  void prepare_target(const Expr& target);

  void hoist_intrinsic(const Expr& e);
  // `a.reshape(shape)` into a temporary view (emit_access.cpp); a shape of
  // another size stops the thread, as a raise (ValueError in debug mode).
  void hoist_reshape(const Expr& e);
  void hoist_call(const Expr& e);
  // A declare_device function's call (Numba's ABI, the result through a
  // pointer), its linked sources added to the module on first use.
  void hoist_foreign(const Expr& e);
  void link_foreign(const sema::ForeignFunction& fn, lang::Span at);
  void point_into(const sema::ForeignFunction& fn, size_t param, sema::Space space, lang::Span at);
  // The linked sources for a module whose text so far ends at line
  // `lines`: each under a #line naming its file, so the compiler's errors in
  // it point there; the generated code after them numbered as `file` again.
  std::string linked_text(size_t lines, const std::string& file) const;

  // `simt_func_f_0(hidden..., args...)`: each argument converted to the
  // callee's parameter type; a missing one is the parameter's default.
  // `status`: raise_status(e), for a callee that raises.
  std::string call_code(const Expr& e, const std::string& status);

  // A temporary for each flattened item of `t`, declared (zeroed) here.
  std::vector<std::string> declare_temporaries(const Type& t);

  // Assigns the value of `e` (converted to `t`) to the temporaries.
  void assign_temporaries(const std::vector<std::string>& temps, const Expr& e, const Type& t);

  // `a if c else b` with a call in a branch: an if-statement.
  void lower_if_exp(const Expr& e);

  // `a and f(x)`: Python's value semantics, each operand evaluated only
  // when the ones before it did not decide the result.
  void lower_bool_op(const Expr& e);

  // `lo < f(x) < g(y)`: each further comparison only when the ones before
  // it held.
  void lower_compare(const Expr& e);

  // ---- expressions (emit_expr.cpp) ------------------------------------------

  // The C expressions of a value: one for a scalar or array, one per item
  // (flattened) for a tuple.
  std::vector<std::string> values(const Expr& e);

  // Where item k of a tuple starts among its flattened parts (items before
  // it may be tuples of several parts).
  size_t item_offset(const Type& tuple, int64_t k);
  // The item of a named tuple's field (sema checked that it has one).
  static size_t field_index(const Type& tuple, const std::string& field);
  size_t count_parts(const Type& t);
  void constant_parts(const Constant& c, std::vector<std::string>& out);
  std::string emit_as(const Expr& e, const Type& to);

  // A scalar or array expression in the C type of its (concrete) type.
  std::string expr(const Expr& e);

  std::string expr_operand(const Expr& e, const Type& operand);
  std::string name(const Expr& e);

  // Signed and narrow integers add, subtract and multiply in an unsigned
  // type of at least 32 bits: wrapping is then defined, as NumPy's is.
  std::string wrap_arith(const std::string& op, Scalar s, const std::string& a,
                         const std::string& b);

  std::string round_half_if(Scalar s, const std::string& code);
  // float16's `helper` (+, -, *, unary -, abs, a comparison: `c_op` names which) in the
  // hardware's instructions where the dialect has them (Dialect::native_half); nullopt: the
  // caller's float operation, rounded to float16.
  std::optional<std::string> native_half(Helper helper, const std::string& args);
  std::optional<std::string> native_half_compare(std::string_view c_op, const std::string& a,
                                                 const std::string& b);
  // A cuda.fp16.h* call; `arg` emits argument k as a type.
  std::string half_call(const sema::Intrinsic& fn,
                        const std::function<std::string(size_t, const Type&)>& arg);

  // x ** c for the constants NumPy computes without pow (its fast paths for
  // array ** scalar): exact, where a device's pow may be off by an ulp.
  std::string float_power(Scalar s, const std::string& a, const std::string& b,
                          const ExprInfo& exponent);

  // + - * whose operands' value ranges show they cannot wrap (sema::arith_range) are C's
  // signed operators: the same value, and the C compiler may rely on it.
  std::string binary_code(Op op, const Type& operand, const std::string& a, const ExprInfo& ai,
                          const Expr& rhs);
  std::string unary(const Expr& e);
  // `op operand` computed in `operand_type` (unary(e), operator.neg(x)).
  std::string unary_code(Op op, const Type& operand_type, const Expr& operand);
  std::string compare(const Expr& e);
  // `a op b` of two numbers compared as type `t`.
  std::string compare_code(Op op, const Type& t, const Expr& a, const Expr& b);

  // The k-th comparison of a chain: items[k] ops[k] items[k + 1].
  std::string compare_pair(const Expr& e, size_t k);

  std::string bool_op(const Expr& e);

  // ---- intrinsic calls, thread indices and warps (emit_intrinsics.cpp) ------

  // A complex function (cmath's, NumPy's on complex numbers) of `arg`, of complex type s.
  std::string complex_call(std::string_view c_name, Scalar s, const std::string& arg);
  std::string math_call(std::string_view c_name, Scalar s, const std::string& args);
  std::string call(const Expr& e);

  // ---- cuda.libdevice (emit_libdevice.cpp) -----------------------------------
  // Result `part` of a libdevice call: its helper called on the arguments
  // converted to the row's types.
  std::string libdevice_part(const Expr& e, size_t part);
  // Defines the helper computing result `part` of libdevice function `name`
  // (and the helpers its code calls) once; returns its name.
  std::string libdevice_helper(std::string_view name, size_t part);
  std::optional<PythonLine> where(const Expr& e) const;
  void note_warp_use(const Expr& e);
  // A warp operation's pattern filled in; each call is a new site (`%s`).
  std::string warp_call(std::string_view pattern, const std::string& mask, const std::string& value,
                        const std::string& lane);

  // The thread's index within its block, x fastest (how warps are formed).
  std::string linear_thread();

  std::string lane_id();

  // `<result>_bits`: bit k set for each lane k of this thread's warp that
  // exists, runs (not exited, under the current mask) and where `holds(lane
  // index expression)` is true (ballot, match).
  void lane_bits(const std::string& result,
                 const std::function<std::string(const std::string&)>& holds);

  // On the CPU every thread of a warp that exists runs: the mask of those.
  std::string cpu_active_mask();

  // syncthreads_count/and/or where the dialect has no such call (OpenCL 1.2):
  // a shared counter between barriers.
  std::string shared_counter_reduce(int k, const std::string& pred);

  std::string index_value(IndexObject object, int c);
  // Which of threadIdx, blockIdx, blockDim, gridDim a dim3 value is.
  static IndexObject index_object(const Type& dim3);
  std::string grid_component(sema::Rule rule, int c);

  // ---- constant, shared and local arrays; atomics (emit_memory.cpp) ---------

  // A global NumPy array: its values as a program-scope constant array
  // (CUDA __constant__, OpenCL __constant, static const on the CPU), and a
  // view of it in this function.
  std::string constant_array(const ExprInfo& i);

  // The definition of a constant array `data` of numbers of `dtype`, or of records (of
  // struct type `element`), holding `bytes`.
  std::string constant_numbers(const std::string& data, Scalar dtype, const std::string& bytes);
  std::string constant_records(const std::string& data, const std::string& element,
                               const std::string& bytes, const abi::Record& record);

  // One element of a constant array from its bytes, as a constant expression.
  std::string constant_element(Scalar s, const char* bytes);

  // ---- the grid group, cuda.cg.this_grid() (emit_grid.cpp) ----------------

  // `g.sync()` as the hardware runs it: the dialect's grid barrier.
  void grid_sync(const Expr& call);
  // `g.sync()` at the uniform level of the CPU's regions: every thread of the
  // block has run the region above; then the block waits for the others and
  // leaves the kernel when the launch is stopping.
  void region_grid_sync(const Expr& call);
  // The hidden parameter carrying the barrier's state (a GridBarrier record),
  // for the kernel and for device functions; empty where the dialect has none.
  std::string grid_barrier_param() const;
  void add_grid_barrier(std::vector<abi::Param>& slots, std::vector<std::string>& params);

  // The dynamic shared memory of a launch: its size is the last parameter
  // (a SharedBytes slot); its storage is CUDA's extern __shared__ array, an
  // OpenCL __local parameter, or the CPU block context's buffer.
  void add_dynamic_shared(std::vector<abi::Param>& slots, std::vector<std::string>& params,
                          std::string& body);

  // `shared.array(shape, dtype)` / `local.array(...)`: storage declared at the
  // top of the function, and a view of it (the expression's value).
  std::string array_alloc(const Expr& e);

  // ---- shared arrays of device functions on OpenCL (emit_shared_slots.cpp) --
  // The slots `f` (this function's own when `owner` is self_) reaches: its own
  // allocations and its callees', by index into Module::shared_slots.
  std::vector<size_t> slots_reached(const sema::TypedFunction& f,
                                    const sema::TypedDeviceFunction* owner) const;
  static std::string slot_name(size_t k) { return "simt_shared_slot" + std::to_string(k); }
  // A device function's hidden parameters for them, and a call's arguments.
  std::vector<std::string> shared_slot_params() const;
  std::vector<std::string> shared_slot_args(const sema::TypedDeviceFunction& callee) const;
  // The kernel: every slot declared at its top (into prologue_).
  void declare_shared_slots();
  // The slot of allocation `e` in this device function, if it has one.
  std::optional<size_t> shared_slot_of(const Expr& e) const;
  // Counts an array's bytes: shared ones for the kernel's requirements,
  // local ones against kMaxLocalBytes (a CompileError at the array beyond).
  void count_array_bytes(const Expr& e, bool shared, int64_t elements);
  static constexpr int64_t kMaxLocalBytes = 512 * 1024;

  static int atomic_op_index(std::string_view op);

  // `atomic.op(a, index, value)`: the element's old value.
  std::string atomic_code(const Expr& e);

  // A compare-and-swap loop performing `op` on one element; `plain`: a read,
  // modify and write, for shared arrays on the CPU, where a block's threads
  // run on one OS thread one after another (a locked instruction per update
  // made shared-memory histograms 8x slower there).
  std::string atomic_helper(std::string_view op, Scalar s, const std::string& space,
                            bool plain = false);

  // An atomic's element as the unsigned word compare-and-swap works on, and
  // back: floats by their bits, integers by conversion.
  std::string to_bits(Scalar s, const std::string& x) const;

  std::string from_bits(Scalar s, const std::string& x) const;

  // ---- checked kernels: bounds and asserts (emit_checks.cpp) -----------------

  // debug=True or boundscheck=True: indices are checked, the kernel takes a
  // check record (simt_checks), and so does every device function.
  bool checked() const;
  // Defines the record's helpers once; returns the index check's name.
  std::string check_helpers();
  // A new site of the module at `span`.
  int check_site(abi::CheckSite::Kind kind, const lang::Span& span, std::string what);
  std::string source_text(const lang::Span& span) const;
  // ", tx, ty, tz, bx, by, bz": the current thread and block, for a failure.
  std::string thread_and_block();
  // `index` into axis `axis` of the array C value `a` (the expression
  // `array`): wrapped when negative, checked in checked kernels.
  std::string index_into(const std::string& index, bool nonnegative, const std::string& a,
                         size_t axis, const Expr& array);
  // A run-time `index` into a tuple of `size` values (the expression
  // `tuple`): wrapped when negative; checked in checked kernels (Python's
  // IndexError, "tuple index out of range").
  std::string tuple_index(const std::string& index, size_t size, const Expr& tuple);
  void assert_stmt(const Stmt& s);
  // The C statement recording a failed check of `kind` at `site` (its index
  // word `index`) for the current thread and block; defines the helpers.
  std::string check_failure(abi::CheckSite::Kind kind, int site, const std::string& index = "0");
  // Whether `e` is a division (`/`, `//`, `%` of real numbers) that debug mode
  // checks for a zero divisor: Python's ZeroDivisionError, as Numba's debug.
  // prepare() hoists such a division's divisor, as it does a call.
  bool checked_division(const Expr& e) const;
  // The divisor of `e` into a temporary, and the test that records the
  // error and stops the thread (a kernel's; a device function records it and
  // goes on with a divisor of 1, as it cannot end its caller).
  void hoist_divisor(const Expr& e);
  // At the top of a loop's body: leave once any check failed (not in loops
  // that wait for other threads).
  void stop_loop_after_failure(const std::vector<lang::StmtPtr>& body);
  // The kernel's record parameter (its slot, its C declarations).
  void add_check_record(std::vector<abi::Param>& slots, std::vector<std::string>& params);
  // A device function's record parameter.
  std::string check_record_param() const;

  // ---- race-checked kernels (emit_race.cpp) ---------------------------------

  // racecheck=True on the CPU: every shared and global element access, barrier,
  // warp operation and kernel `return` reports to the launch's recorder
  // (simt_race, a hidden parameter of the kernel and of every device function).
  bool racecheck() const;
  int race_site(abi::RaceSite::Kind kind, const lang::Span& span, std::string what,
                bool shared = false);
  // `ref` (an element of the array C value `a`, the expression `array`) with
  // its access of kind `kind` reported first; `ref` itself for arrays that
  // are neither shared nor global.
  std::string race_ref(const std::string& ref, const std::string& a, const Expr& array,
                       abi::RaceSite::Kind kind);
  // A barrier (`warp`: a syncwarp) every thread of the block passes at once
  // (regions: once per block).
  void race_block_barrier(const Expr& call, bool warp = false);
  // The call (an expression) reporting that this thread calls syncwarp(mask).
  std::string race_syncwarp(const Expr& call, const std::string& mask);
  // The call (an expression) reporting that this thread waits at the barrier `call`.
  std::string race_barrier(const Expr& call);
  // The call (an expression) reporting that this thread calls the warp
  // operation `call` with `mask`.
  std::string race_warp(const Expr& call, const std::string& mask);
  // Fiber mode: `code` (the warp operation `call`, whose first argument is its
  // mask) after its report; `code` itself elsewhere (regions report from
  // collective_stmt).
  std::string race_warp_call(const Expr& call, const std::string& code);
  // At a kernel's `return`: the thread has left (it owes no later barrier).
  void race_exit(const Stmt& s);
  void add_race_recorder(std::vector<abi::Param>& slots, std::vector<std::string>& params);
  // An access of `array` that needs a report only where the launch's arguments
  // share memory or its threads share simt.grid(1): a read of a kernel
  // parameter no thread writes, any access of one whose elements are each a
  // thread's own.
  bool race_unreported(const Expr& array, abi::RaceSite::Kind kind);

  // ---- raise, in kernels and device functions (emit_raise.cpp) --------------

  // `raise E(...)`: recorded as a failed check in debug mode; the thread
  // stops there, as at a return (in a device function: it sets its caller's
  // status and returns).
  void raise_stmt(const Stmt& s);
  // Ends the thread as a raise does: a kernel's returns, a device function
  // sets its caller's status and returns.
  void stop_thread();
  // A device function that raises takes its caller's status,
  // `int* simt_raised`; empty for others.
  std::string raise_status_param() const;
  // Before a call of `call`'s device function: what it receives as its status
  // (a flag the kernel declares here, or a device function's own status); empty
  // for callees that never raise, whose calls stay as they are.
  std::string raise_status(const Expr& call);
  // After that call: when the callee raised, the caller leaves too (a kernel's
  // thread ends as at a return; a device function returns to its own caller).
  void leave_if_raised(const std::string& status);

  // ---- records (emit_records.cpp) --------------------------------------------

  // The C type of a reference to a record of type `t`: a pointer to its struct.
  std::string record_pointer(const Type& t);
  // The address of a field's first byte, an `unsigned char*` in the record's space.
  std::string field_bytes(const Expr& e, const abi::RecordField& f);
  // `r.f`, `r['f']`, `r[k]` of a scalar field as an lvalue of its storage type: the
  // type's own access where the record's alignment covers it, else the packed wrapper's.
  std::string field_ref(const Expr& e);
  // The lvalue of scalar field `f` at `bytes` (its address as chars) of a record of
  // type `record`.
  std::string field_ref_at(const std::string& bytes, const Type& record, const abi::RecordField& f);
  // A tuple stored into the record `target` (NumPy's `a[i] = (1, 2.5)`): its
  // parts set the fields in order.
  void store_tuple_in_record(const Expr& target, const std::vector<std::string>& parts,
                             const Type& vt);
  // The value of a field access: a scalar field's number, a nested record's reference,
  // an array field's view.
  std::string record_field(const Expr& e);
  // `r.v = value` of an array field `v`: each element from the array `value` (of the
  // field's shape; `source` its expression, null for a temporary, for checked kernels'
  // index checks) or `value` itself (a number), converted to the field's type.
  void store_array_field(const Expr& target, const std::string& value, const Type& vt,
                         const Expr* source);
  // `dst = src` of records of one layout (references `dst`, `src`): a statement copying
  // the bytes.
  std::string record_copy(const std::string& dst, const Type& dst_type, const std::string& src,
                          const Type& src_type);

  // ---- attributes and array access (emit_access.cpp) ------------------------

  std::string attribute(const Expr& e);

  // `a[i, j]`: the element's lvalue in the array's storage type.
  // `race`: the kind of access a race-checked kernel reports (none: not reported).
  std::string element_ref(const Expr& e, std::optional<abi::RaceSite::Kind> race = std::nullopt);
  // What an assignment writes: an array element's or a record field's lvalue.
  std::string target_ref(const Expr& target);

  std::vector<std::string> indices(const Expr& e, const std::string& a, const Type&);

  // The indices of an atomic's `index` argument (an int or a tuple).
  std::vector<std::string> index_list(const Expr& array, const Expr& index, const std::string& a);

  // Offsets from indices: C and F layouts known at compile time use the
  // extents (no stride loads); others use the strides.
  std::string offset(const std::string& a, const Type& t, const std::vector<std::string>& idx);

  std::string subscript(const Expr& e);

  // `a[i]` of a 2-D array: a 1-D array sharing a's data.
  std::string view(const Expr& e, const Type& bt, const Type& rt);
  // `.real` or `.imag` of the complex array C value `a` (of type `bt`): a
  // view of type `rt` over its memory.
  std::string complex_part_view(const Type& bt, const Type& rt, const std::string& a, bool imag);
  // A view of type `rt` of the array `a` (C code, of type `bt`) starting `off`
  // elements in: `pattern` has an `i` per integer index and `s` and three digits per
  // slice (its start, stop and step written or not), whose bounds `args` passes.
  std::string view_call(const Type& bt, const Type& rt, const std::string& a,
                        const std::string& off, const std::string& pattern,
                        const std::string& args);

  // NumPy's `np.<c_name>(x, out)` computed in `s`: out's every element from x's
  // element at its index (or the number x); the value is out.
  std::string ufunc_into(std::string_view c_name, Scalar s, const Expr& x, const Expr& out);

  // An element as stored to the value it is in registers.
  std::string load_storage(const std::string& ref, Scalar s);

  std::string store_conversion(const std::string& value, Scalar s);

  const sema::TypedFunction& fn_;
  const Dialect& d_;
  EmitOptions options_;
  const sema::TypedDeviceFunction* self_;
  HelperSet& helpers_;
  std::string& view_code_;
  std::set<std::string>& views_;
  Module& module_;
  // Device-function calls (and the conditional expressions around them)
  // already evaluated into temporaries by prepare(): their C parts.
  std::unordered_map<const Expr*, std::vector<std::string>> hoisted_;
  std::unordered_map<const Expr*, bool> has_call_;
  std::string prologue_;
  std::string body_;
  // Shared memory, warps, atomics: what the kernel uses (for its slots and
  // for the features a device must have).
  bool uses_dynamic_shared_ = false;
  bool shared_counter_declared_ = false;
  // racecheck: the kernel's parameters no thread writes (passes::unwritten_array_params),
  // and whether simt_race_all is declared.
  std::optional<std::vector<bool>> race_unwritten_;
  std::optional<std::vector<bool>> race_own_;  // passes::own_element_params
  bool race_all_declared_ = false;
  bool warp_storage_declared_ = false;
  RegionLowering regions_;
  // The CPU's thread guard (passes/thread_guard.h): rows of threads where it
  // holds run the body without testing it.
  std::optional<passes::ThreadGuard> thread_guard_;
  std::set<std::string> constant_views_;  // constant arrays viewed in this function
  int indent_ = 1;
  int temp_counter_ = 0;
  int64_t local_bytes_ = 0;  // this function's local arrays, per thread
  bool in_elif_ = false;
  // Locals known >= 0 in the code being emitted beyond sema's facts: the loop
  // variable of a range loop version whose test keeps it so (emit_range_versions.cpp).
  std::vector<int> nonnegative_locals_;
  struct Loop {
    bool unrolled;
    std::string break_label;
    bool uniform = false;  // runs at the uniform level (regions)
  };
  std::vector<Loop> loops_;
};

}  // namespace simt::codegen::detail
