// The outer shape of what is emitted: a device function's or the kernel's
// signature, its parameters unpacked into locals, and its body.
#include <algorithm>
#include <memory>

#include "codegen/emitter_impl.h"

namespace simt::codegen::detail {

namespace {

// A compile-time argument value (an integer, bool or tuple of those), as the
// comment above a specialization shows it.
std::string constant_text(const sema::Constant& c) {
  if (!c.type.is_tuple()) return std::to_string(c.int_value);
  std::string items;
  for (size_t k = 0; k < c.items.size(); ++k) items += (k ? ", " : "") + constant_text(c.items[k]);
  return "(" + items + (c.items.size() == 1 ? ",)" : ")");
}

}  // namespace

Emitter::Emitter(const sema::TypedFunction& fn, const Dialect& d, const EmitOptions& options,
                 Module& m, const sema::TypedDeviceFunction* self)
    : fn_(fn),
      d_(d),
      options_(options),
      self_(self),
      helpers_(m.helpers),
      view_code_(m.view_code),
      views_(m.views),
      module_(m) {}

void Emitter::emit_function() {
  const auto& def = fn_.parsed->def;
  std::vector<std::string> params;
  if (!d_.function_hidden_params.empty()) params.emplace_back(d_.function_hidden_params);
  if (checked()) params.push_back(check_record_param());
  if (racecheck()) params.emplace_back("void* simt_race");
  if (std::string barrier = grid_barrier_param(); !barrier.empty())
    params.push_back(std::move(barrier));
  if (std::string status = raise_status_param(); !status.empty())
    params.push_back(std::move(status));
  for (std::string& slot : shared_slot_params()) params.push_back(std::move(slot));
  for (size_t p = 0; p < fn_.param_count(); ++p) {
    std::vector<std::string> names, local_names;
    std::vector<Type> types, local_types;
    flatten(fn_.param_types[p], "simt_p_" + mangle(fn_.locals[p].name).substr(2), names, types);
    flatten(fn_.locals[p].type, local_name(static_cast<int>(p)), local_names, local_types);
    for (size_t k = 0; k < names.size(); ++k) {
      bool same = types[k] == local_types[k] || (types[k].is_array() && local_types[k].is_array());
      if (same) {
        params.push_back(ctype(types[k]) + " " + local_names[k]);
        continue;
      }
      // The variable is wider than the argument (it is assigned other values).
      params.push_back(ctype(types[k]) + " " + names[k]);
      prologue_ += "  " + ctype(local_types[k]) + " " + local_names[k] + " = " +
                   convert(names[k], types[k], local_types[k]) + ";\n";
    }
  }
  std::string result = result_ctype(fn_.return_type);
  std::string body = function_body();
  std::string signature;
  for (size_t i = 0; i < self_->signature.size(); ++i) {
    signature += (i ? ", " : "") + self_->signature[i].str();
    if (i < self_->constants.size() && self_->constants[i])
      signature += " = " + constant_text(*self_->constants[i]);
  }
  module_.function_code += "// Device function '" + self_->source->name + "' (" +
                           fn_.source->filename() + ":" + std::to_string(def.span.line) +
                           ") for (" + signature + ") -> " + fn_.return_type.str() + "\n" +
                           std::string(d_.function_prefix) + result + " " +
                           function_symbol(self_->source->name, self_->ordinal) + "(" +
                           (params.empty() ? "void" : join_list(params)) + ") {\n" + body + "}\n\n";
}

abi::GeneratedKernel Emitter::run() {
  abi::GeneratedKernel out;
  const auto& def = fn_.parsed->def;
  out.entry = kernel_symbol(def.name) + (module_.lockstep_form ? "_lockstep" : "");
  if (d_.threads_are_loops() && !module_.fibers && (needs_regions() || module_.lockstep_form)) {
    regions_.active = true;
    regions_.uniformity = std::make_unique<passes::Uniformity>(fn_);
    regions_.has_exits = passes::contains_exit(fn_, def.body);
  }
  if (d_.threads_are_loops() && !module_.fibers && !regions_.active && !checked())
    thread_guard_ = passes::find_thread_guard(fn_);
  regions_.bare_names = regions_.active;
  std::vector<std::string> params = parameters(out.params);
  if (checked()) add_check_record(out.params, params);
  add_race_recorder(out.params, params);
  regions_.bare_names = false;
  declare_shared_slots();
  std::string body = function_body();
  std::string guard_test = thread_guard_ ? thread_guard_test() : "";
  if (uses_dynamic_shared_) add_dynamic_shared(out.params, params, body);
  add_grid_barrier(out.params, params);
  out.requirements.warps = module_.warp_use;
  out.requirements.grid_sync = module_.grid_sync_use;
  out.requirements.int64_atomics = module_.int64_atomic_use;
  out.check_sites = module_.check_sites;
  out.race_sites = module_.race_sites;
  out.race_unwritten = module_.race_unwritten;
  out.race_own = module_.race_own;
  out.requirements.serial_blocks = racecheck();
  out.requirements.shared_bytes = module_.shared_bytes;
  out.requirements.cpu_shared_bytes = module_.cpu_shared_bytes;
  out.requirements.shared = module_.shared_use;
  if (fn_.dynamic_shared_need > 0) {
    out.requirements.dynamic_shared_need = fn_.dynamic_shared_need;
    out.requirements.dynamic_shared_use = fn_.python_line(fn_.dynamic_shared_use);
  }

  std::string header = "// Generated by simt from '" + def.name + "' (" + fn_.source->filename() +
                       ":" + std::to_string(def.span.line) + "), dialect " + std::string(d_.name) +
                       ".\n// Signature: (";
  for (size_t i = 0; i < fn_.param_types.size(); ++i)
    header += (i ? ", " : "") + fn_.param_types[i].str();
  header += ")\n";

  std::string src;
  if (regions_.active) {
    // One call per block; the body loops over the threads itself.
    src += std::string(d_.kernel_prefix) + "void " + out.entry +
           "(const simt_block_ctx* simt_ctx, void* const* simt_args) {\n";
    // Each slot is one C parameter on the CPU: the k-th declaration reads
    // the k-th argument.
    for (size_t k = 0; k < params.size(); ++k)
      src += "  " + params[k] + " = *(" + out.params[k].c_type + "*)simt_args[" +
             std::to_string(k) + "];\n";
    if (params.empty()) src += "  (void)simt_args;\n";
    src +=
        "  const simt_i64 simt_nthreads = simt_ctx->block_dim[0] * simt_ctx->block_dim[1] * "
        "simt_ctx->block_dim[2];\n" +
        scratch_setup() + body + "  free(simt_scratch);\n}\n";
  } else if (d_.threads_are_loops()) {
    // Threads of a block run as loops around the body (or as fibers); `return`
    // in the kernel returns from the body of one thread.
    std::string body_name = "simt_body_" + mangle(def.name).substr(2);
    std::string thread_params = "const simt_block_ctx* simt_ctx, simt_thread simt_tid";
    std::string user_params = params.empty() ? "" : ", " + join_list(params);
    if (thread_guard_)
      src += "static inline bool simt_guard_" + mangle(def.name).substr(2) + "(" + thread_params +
             user_params + ") {\n" + guard_test + "}\n\n";
    src += "static inline void " + body_name + "(" + thread_params +
           (thread_guard_ ? ", const bool simt_guard_holds" : "") + user_params + ") {\n" + body +
           "}\n\n";
    // Arguments and the launch geometry are read once into locals, so the
    // thread loops see loop-invariant pointers and bounds.
    std::string reads, args;
    for (size_t k = 0; k < out.params.size(); ++k) {
      std::string arg = "simt_arg" + std::to_string(k);
      reads += "  " + out.params[k].c_type + " " + arg + " = *(" + out.params[k].c_type +
               "*)simt_args[" + std::to_string(k) + "];\n";
      args += ", " + arg;
    }
    if (out.params.empty()) reads += "  (void)simt_args;\n";
    if (module_.fibers) {
      src += fiber_entry(out.entry, body_name, reads, args);
    } else {
      // One call may run a row of consecutive blocks: fewer calls, and longer loops
      // over x to vectorize. Not where the lockstep form (one block per call) may
      // run instead, nor where a block owns shared memory or a check reports it.
      out.requirements.x_spans = module_.lockstep_code.empty() && !checked() &&
                                 !module_.shared_use && !uses_dynamic_shared_ &&
                                 x_position_only_from_grid(fn_);
      src += std::string(d_.kernel_prefix) + "void " + out.entry +
             "(const simt_block_ctx* simt_ctx, void* const* simt_args) {\n" + reads +
             lockstep_dispatch(out.params, out.entry) +
             "  const simt_block_ctx simt_block = *simt_ctx;\n"
             "  simt_thread simt_tid;\n" +
             thread_loops(body_name, args, out.requirements.x_spans) + "}\n";
    }
  } else {
    const bool capped = options_.max_registers > 0 && !d_.max_registers[1].empty();
    if (capped) {
      std::string lines(d_.max_registers[0]);
      src += lines.replace(lines.find("%n"), 2, std::to_string(options_.max_registers));
    }
    src += std::string(d_.kernel_prefix) + std::string(capped ? d_.max_registers[1] : "") +
           std::string(module_.warp_use ? d_.warp_kernel_attribute : "") + "void " + out.entry +
           "(" + join_list(params) + ") {\n" + body + "}\n";
  }
  if (module_.lockstep_form) {
    // Only the kernel's own code: the plain form's module holds the rest.
    module_.lockstep_code = std::move(src);
    return out;
  }
  std::string module_code = header + std::string(d_.prelude) + "\n" + helpers_.definitions();
  module_code +=
      linked_text(static_cast<size_t>(std::count(module_code.begin(), module_code.end(), '\n')),
                  out.entry + std::string(d_.source_suffix));
  module_code += module_.constant_code + view_code_ + module_.tuple_code + module_.function_code;
  out.source = module_code + module_.lockstep_code + src;
  return out;
}

std::string Emitter::fiber_entry(const std::string& entry, const std::string& body_name,
                                 const std::string& reads, const std::string& args) const {
  // Each fiber's stack holds its local arrays (of the kernel and of every
  // device function, as if all were live at once) and the frames of the
  // generated code and what it calls (printf, libm), for which 64 KiB is
  // ample.
  const int64_t stack_bytes = module_.local_bytes + 64 * 1024;
  std::string thread_name = "simt_thread_" + body_name.substr(std::string("simt_body_").size());
  return "static void " + thread_name +
         "(const simt_block_ctx* simt_ctx, void* simt_user, simt_i64 simt_t) {\n"
         "  void* const* simt_args = (void* const*)simt_user;\n" +
         reads +
         "  const simt_i64 simt_bx = simt_ctx->block_dim[0], simt_by = simt_ctx->block_dim[1];\n"
         "  const simt_thread simt_tid = {simt_t % simt_bx, simt_t / simt_bx % simt_by,\n"
         "                                simt_t / (simt_bx * simt_by)};\n"
         "  " +
         body_name + "(simt_ctx, simt_tid" + args + ");\n}\n\n" + std::string(d_.kernel_prefix) +
         "void " + entry + "(const simt_block_ctx* simt_ctx, void* const* simt_args) {\n" +
         "  simt_ctx->fibers->run_block(simt_ctx, " + thread_name + ", (void*)simt_args, " +
         std::to_string(stack_bytes) + ");\n}\n";
}

std::vector<std::string> Emitter::parameters(std::vector<abi::Param>& slots) {
  std::vector<std::string> params;
  for (size_t p = 0; p < fn_.param_count(); ++p) {
    const Type& t = fn_.param_types[p];
    const sema::LocalVar& local = fn_.locals[p];
    std::vector<std::string> names;
    std::vector<Type> types;
    flatten(t, "simt_p_" + mangle(local.name).substr(2), names, types);
    std::vector<std::string> local_names;
    std::vector<Type> local_types;
    flatten(local.type, local_name(static_cast<int>(p)), local_names, local_types);
    for (size_t k = 0; k < names.size(); ++k) {
      const Type& item = types[k];
      abi::Param slot;
      slot.argument = static_cast<int>(p);
      if (t.is_tuple()) slot.path = tuple_path(t, k);
      if (item.is_array() || item.is_record()) {
        // An array's data, or the bytes of a record passed by reference.
        slot.role = abi::Param::Role::ArrayData;
        slot.scalar = item.scalar;
        slot.c_type = item.is_record()
                          ? record_pointer(item)
                          : std::string(d_.global_space) + helpers_.element_type(item) + "*";
        params.push_back(slot.c_type + " " + names[k] + "_data");
        std::string data = names[k] + "_data";
        if (!d_.array_offset_type.empty()) {
          params.push_back(std::string(d_.array_offset_type) + " " + names[k] + "_offset");
          data = "(" + slot.c_type + ")((" + std::string(d_.global_space) + "char*)" + data +
                 " + " + names[k] + "_offset)";
        }
        slots.push_back(slot);
        if (item.is_record()) {
          prologue_ += "  " + ctype(local_types[k]) + " " + local_names[k] + " = " + data + ";\n";
          continue;
        }
        for (int part = 0; part < 2; ++part) {
          for (int dim = 0; dim < item.ndim; ++dim) {
            abi::Param s = slot;
            s.role = part == 0 ? abi::Param::Role::ArrayShape : abi::Param::Role::ArrayStride;
            s.dim = dim;
            s.scalar = Scalar::Int64;
            s.c_type = std::string(d_.value_type(Scalar::Int64));
            params.push_back(s.c_type + " " + names[k] + (part == 0 ? "_shape" : "_stride") +
                             std::to_string(dim));
            slots.push_back(s);
          }
        }
        std::string init =
            helpers_.array_struct(local_types[k]) + " " + local_names[k] + " = {" + data + ", {";
        for (int dim = 0; dim < item.ndim; ++dim)
          init += (dim ? ", " : "") + names[k] + "_shape" + std::to_string(dim);
        init += "}, {";
        for (int dim = 0; dim < item.ndim; ++dim)
          init += (dim ? ", " : "") + names[k] + "_stride" + std::to_string(dim);
        prologue_ += "  " + init + "}};\n";
      } else {
        // bool and float16 travel in their storage form (OpenCL kernels
        // cannot take bool parameters).
        slot.role = abi::Param::Role::Scalar;
        slot.scalar = item.scalar;
        slot.c_type = std::string(d_.storage_type(item.scalar));
        if (sema::is_complex(item.scalar)) helpers_.use(Helper::ComplexType, item.scalar);
        params.push_back(slot.c_type + " " + names[k]);
        slots.push_back(slot);
        prologue_ += "  " + ctype(local_types[k]) + " " + local_names[k] + " = " +
                     convert(load_storage(names[k], item.scalar), item, local_types[k]) + ";\n";
      }
    }
  }
  return params;
}

std::vector<int> Emitter::tuple_path(const Type& t, size_t flat_index) {
  std::vector<int> path;
  size_t counter = 0;
  find_path(t, flat_index, counter, path);
  return path;
}

bool Emitter::find_path(const Type& t, size_t target, size_t& counter, std::vector<int>& path) {
  if (!t.is_tuple()) return counter++ == target;
  for (size_t k = 0; k < t.items.size(); ++k) {
    path.push_back(static_cast<int>(k));
    if (find_path(t.items[k], target, counter, path)) return true;
    path.pop_back();
  }
  return false;
}

std::string Emitter::lockstep_dispatch(const std::vector<abi::Param>& params,
                                       const std::string& entry) const {
  if (module_.lockstep_code.empty()) return "";
  // A grid with fewer threads than the largest array has elements makes a grid-stride
  // loop iterate: its lockstep form reads the array once, where thread by thread each
  // access is a new cache line. A full grid runs this plain form (vectorized, no
  // per-thread arrays), and so does a block of one thread (the array library's CPU
  // launches): it has no neighbours to keep in step, and the lockstep form's per-thread
  // arrays would keep its variables in memory (a reduction's accumulators did not
  // vectorize: 0.4x NumPy's sum).
  std::string code =
      "  if (simt_ctx->block_dim[0] * simt_ctx->block_dim[1] * simt_ctx->block_dim[2] > 1) {\n"
      "  simt_i64 simt_elements = 0;\n";
  for (size_t k = 0; k < params.size(); ++k) {
    if (params[k].role != abi::Param::Role::ArrayData) continue;
    std::string count = "1";
    for (size_t j = k + 1; j < params.size() && (params[j].role == abi::Param::Role::ArrayShape ||
                                                 params[j].role == abi::Param::Role::ArrayStride);
         ++j)
      if (params[j].role == abi::Param::Role::ArrayShape)
        count += " * (simt_i64)simt_arg" + std::to_string(j);
    code += "  if (" + count + " > simt_elements) simt_elements = " + count + ";\n";
  }
  code +=
      "  if (simt_ctx->block_dim[0] * simt_ctx->block_dim[1] * simt_ctx->block_dim[2] * "
      "simt_ctx->grid_dim[0] * simt_ctx->grid_dim[1] * simt_ctx->grid_dim[2] < simt_elements) "
      "{\n    " +
      entry + "_lockstep(simt_ctx, simt_args);\n    return;\n  }\n  }\n";
  return code;
}

std::string Emitter::thread_loops(const std::string& body_name, const std::string& args,
                                  bool x_spans) const {
  // A loop over threadIdx.x is not vectorized where its threads may take
  // different branches: the AVX2 masked loads and stores a guard (`if i < n`)
  // becomes ran about 8x slower than scalar code on the machines measured
  // (docs/performance.md). Loops inside the kernel body still vectorize.
  const std::string scalar = "_Pragma(\"clang loop vectorize(disable)\")";
  const std::string row = x_spans ? "simt_row" : "simt_block.block_dim[0]";
  const std::string x_loop = "for (simt_tid.x = 0; simt_tid.x < " + row + "; ++simt_tid.x)";
  std::string loops =
      x_spans && !thread_guard_
          ? "  const simt_i64 simt_row = simt_block.block_dim[0] * simt_block.x_blocks;\n"
          : "";
  loops +=
      "  for (simt_tid.z = 0; simt_tid.z < simt_block.block_dim[2]; ++simt_tid.z)\n"
      "    for (simt_tid.y = 0; simt_tid.y < simt_block.block_dim[1]; ++simt_tid.y) {\n";
  if (!thread_guard_) {
    loops += "      " + scalar + "\n      " + x_loop + "\n        " + body_name +
             "(&simt_block, simt_tid" + args + ");\n    }\n";
    return loops;
  }
  // The guard's truth is monotone along a block's row: holding at its first and
  // last thread, it holds for all of them, and that row runs unguarded.
  std::string guard = "simt_guard_" + body_name.substr(std::string("simt_body_").size());
  const std::string unguarded = thread_guard_->straight_line ? "" : scalar + "\n";
  auto call = [&](const char* holds) {
    return body_name + "(&simt_block, simt_tid, " + holds + args + ");\n";
  };
  if (!x_spans) {
    return loops +
           "      simt_tid.x = 0;\n"
           "      const bool simt_first = " +
           guard + "(&simt_block, simt_tid" + args +
           ");\n"
           "      simt_tid.x = simt_block.block_dim[0] - 1;\n"
           "      if (simt_first && " +
           guard + "(&simt_block, simt_tid" + args + ")) {\n        " + unguarded + x_loop +
           "\n          " + call("true") + "      } else {\n        " + scalar + "\n        " +
           x_loop + "\n          " + call("false") + "      }\n    }\n";
  }
  // Across a span, the blocks whose rows the guard holds in make runs, each one
  // unguarded loop; a block where it fails in part runs guarded, thread by thread.
  return loops +
         "      const simt_i64 simt_bx = simt_block.block_dim[0];\n"
         "      simt_i64 simt_run = 0;\n"
         "      for (simt_i64 simt_b = 0; simt_b <= simt_block.x_blocks; ++simt_b) {\n"
         "        const simt_i64 simt_lo = simt_b * simt_bx;\n"
         "        if (simt_b < simt_block.x_blocks) {\n"
         "          simt_tid.x = simt_lo;\n"
         "          const bool simt_first = " +
         guard + "(&simt_block, simt_tid" + args +
         ");\n"
         "          simt_tid.x = simt_lo + simt_bx - 1;\n"
         "          if (simt_first && " +
         guard + "(&simt_block, simt_tid" + args +
         ")) continue;\n"
         "        }\n" +
         (unguarded.empty() ? "" : "        " + unguarded) +
         "        for (simt_tid.x = simt_run; simt_tid.x < simt_lo; ++simt_tid.x)\n          " +
         call("true") +
         "        if (simt_b == simt_block.x_blocks) break;\n"
         "        " +
         scalar +
         "\n        for (simt_tid.x = simt_lo; simt_tid.x < simt_lo + simt_bx; ++simt_tid.x)\n"
         "          " +
         call("false") +
         "        simt_run = simt_lo + simt_bx;\n"
         "      }\n    }\n";
}

std::string Emitter::thread_guard_test() {
  // Emitted after the body, whose prologue (views, local arrays) it reuses:
  // what emitting the prefix again would add to it is dropped.
  std::string saved_body = std::move(body_), saved_prologue = prologue_;
  body_.clear();
  indent_ = 1;
  const auto& stmts = fn_.parsed->def.body;
  for (size_t k = 0; k < thread_guard_->prefix; ++k) stmt(*stmts[k]);
  const Expr& test = *thread_guard_->test_stmt->test;
  prepare(test);
  line(std::string("return ") + (thread_guard_->holds_when ? "" : "!") + "(" + condition(test) +
       ");");
  std::string text = saved_prologue + local_declarations() + body_;
  body_ = std::move(saved_body);
  prologue_ = std::move(saved_prologue);
  return text;
}

std::string Emitter::local_declarations() {
  std::string decls;
  for (size_t i = fn_.param_count(); i < fn_.locals.size(); ++i) {
    std::vector<std::string> names;
    std::vector<Type> types;
    flatten(fn_.locals[i].type, local_name(static_cast<int>(i)), names, types);
    for (size_t k = 0; k < names.size(); ++k) {
      // Every local starts at zero: C must never read an unset variable.
      bool aggregate = types[k].is_array() || sema::is_complex(types[k].scalar);
      decls += "  " + ctype(types[k]) + " " + names[k] + (aggregate ? " = {0};\n" : " = 0;\n");
    }
  }
  return decls;
}

std::string Emitter::function_body() {
  if (regions_.active) return region_function_body();
  std::string decls = local_declarations();
  indent_ = 1;
  body_.clear();
  block(fn_.parsed->def.body);
  return prologue_ + decls + body_;
}

}  // namespace simt::codegen::detail
