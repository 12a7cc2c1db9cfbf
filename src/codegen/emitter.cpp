// Expressions are emitted as C expressions in the C type of their inferred
// type; every operand is converted to the operation's type first (the
// `operand` of its ExprInfo), so C's own promotions never decide a result.
// Tuples never exist in C: a tuple value is a list of item expressions and
// a tuple variable is one C variable per item.
#include "codegen/emitter.h"

#include <algorithm>
#include <charconv>
#include <cmath>
#include <cstring>
#include <functional>
#include <initializer_list>
#include <memory>
#include <set>
#include <stdexcept>
#include <unordered_map>

#include "codegen/helpers.h"
#include "codegen/uniformity.h"
#include "lang/diagnostics.h"

namespace simt::codegen {

namespace {

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

// User names get a prefix no generated name has, so a kernel variable named
// `sin`, `int`, `float4` or `kernel` never meets a C or CUDA name.
std::string mangle(const std::string& name) {
  std::string out = "v_";
  for (unsigned char c : name) {
    if ((c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') || c == '_') {
      out += static_cast<char>(c);
    } else {
      static const char* kHex = "0123456789abcdef";
      out += "_x";
      out += kHex[c >> 4];
      out += kHex[c & 15];
    }
  }
  return out;
}

std::string format_double(double v) {
  char buf[64];
  auto r = std::to_chars(buf, buf + sizeof buf, v);
  std::string s(buf, r.ptr);
  if (s.find_first_of(".e") == std::string::npos) s += ".0";
  return s;
}

std::string format_float(float v) {
  char buf[64];
  auto r = std::to_chars(buf, buf + sizeof buf, v);
  std::string s(buf, r.ptr);
  if (s.find_first_of(".e") == std::string::npos) s += ".0";
  return s + "f";
}

// A dialect pattern with each two-character placeholder ("%x") replaced by
// its text; replaced text is never scanned again.
std::string fill_pattern(std::string_view pattern,
                         std::initializer_list<std::pair<std::string_view, std::string>> values) {
  std::string s(pattern);
  for (const auto& [key, text] : values)
    for (size_t p = s.find(key); p != std::string::npos; p = s.find(key, p + text.size()))
      s.replace(p, 2, text);
  return s;
}

std::string apply(std::string_view pattern, const std::string& type, const std::string& x) {
  return fill_pattern(pattern, {{"%T", type}, {"%x", x}});
}

// A Python source line as a C comment: no line splicing backslash at its
// end, ASCII only (OpenCL compilers need not accept other bytes).
std::string comment_text(std::string_view line) {
  std::string s;
  for (unsigned char c : line)
    s += c < 128 && c != '\t' ? static_cast<char>(c) : c == '\t' ? ' ' : '?';
  size_t begin = s.find_first_not_of(' ');
  s = begin == std::string::npos ? "" : s.substr(begin);
  while (!s.empty() && (s.back() == '\\' || s.back() == ' ')) s.pop_back();
  // OpenCL C compilers still read trigraphs: `??/` would splice the next line.
  for (size_t p = s.find("??"); p != std::string::npos; p = s.find("??", p + 2))
    s.insert(p + 1, " ");
  return s;
}

bool is_float_like(Scalar s) { return sema::is_float(s); }

std::string join_list(const std::vector<std::string>& parts) {
  std::string out;
  for (size_t k = 0; k < parts.size(); ++k) out += (k ? ", " : "") + parts[k];
  return out;
}

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
  // Features a device must have, from the kernel or any device function.
  std::optional<PythonLine> warp_use;
  std::optional<PythonLine> int64_atomic_use;
};

class Emitter {
 public:
  // `self` is the device function being emitted, null for the kernel.
  Emitter(const sema::TypedFunction& fn, const Dialect& d, const EmitOptions& options, Module& m,
          const sema::TypedDeviceFunction* self = nullptr)
      : fn_(fn),
        d_(d),
        options_(options),
        self_(self),
        helpers_(m.helpers),
        view_code_(m.view_code),
        views_(m.views),
        module_(m) {}

  // A device function: `static inline R simt_func_<name>_<n>(params) { ... }`.
  // Parameters are the callee's own C variables where their types agree:
  // scalars by value, arrays as their struct, tuples one parameter per item.
  void emit_function() {
    const auto& def = fn_.parsed->def;
    std::vector<std::string> params;
    if (!d_.function_hidden_params.empty()) params.emplace_back(d_.function_hidden_params);
    for (size_t p = 0; p < fn_.param_count(); ++p) {
      std::vector<std::string> names, local_names;
      std::vector<Type> types, local_types;
      flatten(fn_.param_types[p], "simt_p_" + mangle(fn_.locals[p].name).substr(2), names, types);
      flatten(fn_.locals[p].type, local_name(static_cast<int>(p)), local_names, local_types);
      for (size_t k = 0; k < names.size(); ++k) {
        bool same =
            types[k] == local_types[k] || (types[k].is_array() && local_types[k].is_array());
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
    for (size_t i = 0; i < self_->signature.size(); ++i)
      signature += (i ? ", " : "") + self_->signature[i].str();
    module_.function_code +=
        "// Device function '" + self_->source->name + "' (" + fn_.source->filename() + ":" +
        std::to_string(def.span.line) + ") for (" + signature + ") -> " + fn_.return_type.str() +
        "\n" + std::string(d_.function_prefix) + result + " " +
        function_symbol(self_->source->name, self_->ordinal) + "(" +
        (params.empty() ? "void" : join_list(params)) + ") {\n" + body + "}\n\n";
  }

  EmittedKernel run() {
    EmittedKernel out;
    const auto& def = fn_.parsed->def;
    out.entry = kernel_symbol(def.name);
    if (d_.id == DialectId::Cpp && needs_regions()) {
      regions_ = true;
      uniformity_ = std::make_unique<Uniformity>(fn_);
      has_exits_ = contains_return(def.body);
    }
    bare_names_ = regions_;
    std::string params = parameters(out.params);
    bare_names_ = false;
    std::string body = function_body();
    if (uses_dynamic_shared_) add_dynamic_shared(out.params, params, body);
    out.requirements.warps = module_.warp_use;
    out.requirements.int64_atomics = module_.int64_atomic_use;

    std::string header = "// Generated by simt from '" + def.name + "' (" + fn_.source->filename() +
                         ":" + std::to_string(def.span.line) + "), dialect " +
                         std::string(d_.name) + ".\n// Signature: (";
    for (size_t i = 0; i < fn_.param_types.size(); ++i)
      header += (i ? ", " : "") + fn_.param_types[i].str();
    header += ")\n";

    std::string src = header + std::string(d_.prelude) + "\n" + helpers_.definitions() +
                      module_.constant_code + view_code_ + module_.tuple_code +
                      module_.function_code;
    if (regions_) {
      // One call per block; the body loops over the threads itself.
      src += std::string(d_.kernel_prefix) + "void " + out.entry +
             "(const simt_block_ctx* simt_ctx, void* const* simt_args) {\n";
      size_t k = 0;
      for (size_t start = 0; !params.empty() && start <= params.size(); ++k) {
        size_t comma = params.find(", ", start);
        if (comma == std::string::npos) comma = params.size();
        std::string decl = params.substr(start, comma - start);
        std::string type = decl.substr(0, decl.find_last_of(' '));
        src += "  " + decl + " = *(" + type + "*)simt_args[" + std::to_string(k) + "];\n";
        start = comma + 2;
      }
      if (params.empty()) src += "  (void)simt_args;\n";
      src +=
          "  const simt_i64 simt_nthreads = simt_ctx->block_dim[0] * simt_ctx->block_dim[1] * "
          "simt_ctx->block_dim[2];\n" +
          scratch_setup() + body + "  free(simt_scratch);\n}\n";
    } else if (d_.id == DialectId::Cpp) {
      // Threads of a block run as loops around the body; `return` in the
      // kernel returns from the body of one thread.
      std::string body_name = "simt_body_" + mangle(def.name).substr(2);
      src += "static inline void " + body_name +
             "(const simt_block_ctx* simt_ctx, simt_thread simt_tid" +
             (params.empty() ? "" : ", " + params) + ") {\n" + body + "}\n\n";
      src += std::string(d_.kernel_prefix) + "void " + out.entry +
             "(const simt_block_ctx* simt_ctx, void* const* simt_args) {\n";
      // Arguments and the launch geometry are read once into locals, so the
      // thread loops see loop-invariant pointers and bounds. The loop over
      // threadIdx.x is not vectorized: kernel bodies are guarded (`if i < n`),
      // and the AVX2 masked loads and stores that guard becomes ran about 8x
      // slower than scalar code on the machines measured (docs/performance.md).
      // Loops inside the kernel body still vectorize.
      std::string args;
      for (size_t k = 0; k < out.params.size(); ++k) {
        std::string arg = "simt_arg" + std::to_string(k);
        src += "  " + out.params[k].c_type + " " + arg + " = *(" + out.params[k].c_type +
               "*)simt_args[" + std::to_string(k) + "];\n";
        args += ", " + arg;
      }
      if (out.params.empty()) src += "  (void)simt_args;\n";
      src +=
          "  const simt_block_ctx simt_block = *simt_ctx;\n"
          "  simt_thread simt_tid;\n"
          "  for (simt_tid.z = 0; simt_tid.z < simt_block.block_dim[2]; ++simt_tid.z)\n"
          "    for (simt_tid.y = 0; simt_tid.y < simt_block.block_dim[1]; ++simt_tid.y)\n"
          "      _Pragma(\"clang loop vectorize(disable)\")\n"
          "      for (simt_tid.x = 0; simt_tid.x < simt_block.block_dim[0]; ++simt_tid.x)\n"
          "        " +
          body_name + "(&simt_block, simt_tid" + args + ");\n}\n";
    } else {
      src += std::string(d_.kernel_prefix) + "void " + out.entry + "(" + params + ") {\n" + body +
             "}\n";
    }
    out.source = std::move(src);
    return out;
  }

 private:
  // ---- names and types -----------------------------------------------------

  const ExprInfo& info(const Expr& e) const { return fn_.at(e); }

  std::string ctype(const Type& t) {
    if (t.is_array()) return helpers_.array_struct(t);
    if (t.is_scalar()) {
      Scalar s = sema::concrete(t);
      if (sema::is_complex(s)) helpers_.use(Helper::ComplexType, s);
      return std::string(d_.value_type(s));
    }
    throw std::logic_error("no C type for " + t.str());
  }

  // In regions (the CPU's barrier kernels) a local that varies between
  // threads lives in a per-thread array, indexed by the thread.
  std::string local_name(int index) const {
    if (per_thread(index) && !bare_names_)
      return "simt_pt_" + mangle(fn_.locals[index].name) + "[simt_t]";
    return mangle(fn_.locals[index].name);
  }

  bool per_thread(int index) const { return regions_ && !uniformity_->uniform_local(index); }

  // An assignment to local `index`: at the uniform level a per-thread local
  // (the counter of a loop with barriers, reused in varying code) takes the
  // value in every thread.
  std::string for_every_thread(int index, const std::string& assignment) const {
    if (!per_thread(index) || !uniform_level_) return assignment;
    return "for (simt_i64 simt_t = 0; simt_t < simt_nthreads; ++simt_t) " + assignment;
  }

  // The C type a device function returns: void, a scalar, or the struct of
  // a tuple's (flattened) items.
  std::string result_ctype(const Type& t) {
    if (t.kind == TypeKind::None) return "void";
    if (t.is_tuple()) return tuple_struct(t);
    return ctype(t);
  }

  // `simt_tuple_i64_f32`: fields v0, v1, ... one per flattened item. Tuples
  // with the same flattened items share one struct.
  std::string tuple_struct(const Type& t) {
    std::vector<std::string> names;
    std::vector<Type> types;
    flatten(t, "", names, types);
    std::string name = "simt_tuple";
    std::string fields;
    for (size_t k = 0; k < types.size(); ++k) {
      name += "_" + scalar_suffix(sema::concrete(types[k]));
      fields += "  " + ctype(types[k]) + " v" + std::to_string(k) + ";\n";
    }
    if (module_.tuple_structs.insert(name).second)
      module_.tuple_code += "typedef struct {\n" + fields + "} " + name + ";\n\n";
    return name;
  }

  // The C variables holding a value of type `t` named `base`: one for a
  // scalar or array, one per (nested) item for a tuple.
  void flatten(const Type& t, const std::string& base, std::vector<std::string>& names,
               std::vector<Type>& types, const std::string& path = "") {
    if (t.is_tuple()) {
      for (size_t k = 0; k < t.items.size(); ++k)
        flatten(t.items[k], base, names, types, path + std::to_string(k) + "_");
      return;
    }
    names.push_back(path.empty() ? base : "simt_t" + path + base);
    types.push_back(t);
  }

  // ---- the function --------------------------------------------------------

  std::string parameters(std::vector<ParamSlot>& slots) {
    std::string params;
    auto add = [&](const std::string& decl) { params += (params.empty() ? "" : ", ") + decl; };
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
        ParamSlot slot;
        slot.argument = static_cast<int>(p);
        if (t.is_tuple()) slot.path = tuple_path(t, k);
        if (item.is_array()) {
          std::string n = std::to_string(item.ndim);
          slot.role = ParamSlot::Role::ArrayData;
          slot.scalar = item.scalar;
          slot.c_type =
              std::string(d_.global_space) + std::string(d_.storage_type(item.scalar)) + "*";
          if (sema::is_complex(item.scalar)) helpers_.use(Helper::ComplexType, item.scalar);
          add(slot.c_type + " " + names[k] + "_data");
          std::string data = names[k] + "_data";
          if (!d_.array_offset_type.empty()) {
            add(std::string(d_.array_offset_type) + " " + names[k] + "_offset");
            data = "(" + slot.c_type + ")((" + std::string(d_.global_space) + "char*)" + data +
                   " + " + names[k] + "_offset)";
          }
          slots.push_back(slot);
          for (int part = 0; part < 2; ++part) {
            for (int dim = 0; dim < item.ndim; ++dim) {
              ParamSlot s = slot;
              s.role = part == 0 ? ParamSlot::Role::ArrayShape : ParamSlot::Role::ArrayStride;
              s.dim = dim;
              s.scalar = Scalar::Int64;
              s.c_type = std::string(d_.value_type(Scalar::Int64));
              add(s.c_type + " " + names[k] + (part == 0 ? "_shape" : "_stride") +
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
          slot.role = ParamSlot::Role::Scalar;
          slot.scalar = item.scalar;
          slot.c_type = std::string(d_.storage_type(item.scalar));
          if (sema::is_complex(item.scalar)) helpers_.use(Helper::ComplexType, item.scalar);
          add(slot.c_type + " " + names[k]);
          slots.push_back(slot);
          prologue_ += "  " + ctype(local_types[k]) + " " + local_names[k] + " = " +
                       convert(load_storage(names[k], item.scalar), item, local_types[k]) + ";\n";
        }
      }
    }
    return params;
  }

  static std::vector<int> tuple_path(const Type& t, size_t flat_index) {
    std::vector<int> path;
    size_t counter = 0;
    find_path(t, flat_index, counter, path);
    return path;
  }

  static bool find_path(const Type& t, size_t target, size_t& counter, std::vector<int>& path) {
    if (!t.is_tuple()) return counter++ == target;
    for (size_t k = 0; k < t.items.size(); ++k) {
      path.push_back(static_cast<int>(k));
      if (find_path(t.items[k], target, counter, path)) return true;
      path.pop_back();
    }
    return false;
  }

  static bool contains_return(const std::vector<lang::StmtPtr>& body) {
    for (const auto& s : body)
      if (s->kind == StmtKind::Return || contains_return(s->body) || contains_return(s->orelse))
        return true;
    return false;
  }

  // Per-thread state of a kernel run as regions: `count` zeroed values of
  // `type` in the block's scratch buffer, which the kernel allocates on the
  // heap once per block (a block of 1024 threads with a local array can need
  // megabytes, more than a worker thread's stack has).
  std::string scratch(const std::string& type, const std::string& count) {
    scratch_sizes_.push_back("(simt_i64)sizeof(" + type + ") * " + count);
    return "(" + type + "*)(simt_scratch + simt_scratch_at" +
           std::to_string(scratch_sizes_.size() - 1) + ")";
  }

  // The scratch buffer's layout and allocation, for the top of the kernel.
  std::string scratch_setup() const {
    std::string out = "  simt_i64 simt_scratch_bytes = 0;\n";
    for (size_t k = 0; k < scratch_sizes_.size(); ++k) {
      std::string at = "simt_scratch_at" + std::to_string(k);
      out += "  const simt_i64 " + at + " = simt_scratch_bytes;\n";
      out += "  simt_scratch_bytes += (" + scratch_sizes_[k] + " + 63) & ~(simt_i64)63;\n";
    }
    out +=
        "  unsigned char* simt_scratch = (unsigned char*)calloc(1, (unsigned long)"
        "simt_scratch_bytes + 1);\n"
        "  if (!simt_scratch) __builtin_trap();\n";
    return out;
  }

  // The body of a kernel run as regions: uniform locals are plain variables,
  // varying ones per-thread arrays (parameters copied into theirs).
  std::string region_function_body() {
    std::string decls, fills;
    auto alloc = [&](const std::string& type, const std::string& name) {
      decls += "  " + type + "* " + name + " = " + scratch(type, "simt_nthreads") + ";\n";
    };
    bare_names_ = true;
    for (size_t i = 0; i < fn_.locals.size(); ++i) {
      int index = static_cast<int>(i);
      std::vector<std::string> names, bare;
      std::vector<Type> types;
      std::string base = mangle(fn_.locals[i].name);
      if (per_thread(index)) {
        flatten(fn_.locals[i].type, "simt_pt_" + base, names, types);
        flatten(fn_.locals[i].type, base, bare, types);
        for (size_t k = 0; k < names.size(); ++k) {
          alloc(ctype(types[k]), names[k]);
          if (i < fn_.param_count())
            fills += "  for (simt_i64 simt_t = 0; simt_t < simt_nthreads; ++simt_t) " + names[k] +
                     "[simt_t] = " + bare[k] + ";\n";
        }
      } else if (i >= fn_.param_count()) {
        flatten(fn_.locals[i].type, base, names, types);
        for (size_t k = 0; k < names.size(); ++k) {
          bool aggregate = types[k].is_array() || sema::is_complex(types[k].scalar);
          decls += "  " + ctype(types[k]) + " " + names[k] + (aggregate ? " = {0};\n" : " = 0;\n");
        }
      }
    }
    bare_names_ = false;
    if (has_exits_) alloc("unsigned char", "simt_exited");
    indent_ = 1;
    body_.clear();
    uniform_level_ = true;
    block(fn_.parsed->def.body);
    uniform_level_ = false;
    return prologue_ + decls + fills + body_;
  }

  std::string function_body() {
    if (regions_) return region_function_body();
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
    indent_ = 1;
    body_.clear();
    block(fn_.parsed->def.body);
    return prologue_ + decls + body_;
  }

  // ---- statements ----------------------------------------------------------

  void line(const std::string& text) { body_ += std::string(2 * indent_, ' ') + text + "\n"; }

  void source_comment(const Stmt& s) {
    if (suppress_comment_) {
      suppress_comment_ = false;
      return;
    }
    std::string text = comment_text(fn_.source->line_text(s.span.line));
    line("// " + fn_.source->filename().substr(fn_.source->filename().find_last_of('/') + 1) + ":" +
         std::to_string(s.span.line) + ": " + text);
  }

  void block(const std::vector<lang::StmtPtr>& body) {
    if (regions_ && uniform_level_) {
      region_block(body);
      return;
    }
    for (const auto& s : body) stmt(*s);
  }

  // ---- regions: CPU kernels with barriers -----------------------------------
  //
  // The kernel runs once per block. Statements every thread runs alike
  // (barriers, assignments of uniform variables, control flow around them)
  // run once, at the "uniform level"; the statements between them run in a
  // loop over the block's threads (a region). A barrier is then simply the
  // end of one region: every thread has finished it before the next starts.
  // Varying locals live in per-thread arrays (simt_pt_*); warp operations
  // and syncthreads_count/and/or read the other threads' values from arrays
  // written in the region before.

  bool needs_regions() const {
    for (const auto& [e, i] : fn_.exprs) {
      if (!i.intrinsic) continue;
      if (sema::is_collective(i.intrinsic->rule)) return true;
      if (i.intrinsic->rule == sema::Rule::ArrayAlloc && i.type.space == sema::Space::Shared)
        return true;
    }
    return false;
  }

  [[noreturn]] void fail_at(lang::Span span, const std::string& message) const {
    lang::fail(lang::DiagnosticKind::Syntax, *fn_.source, span, message);
  }

  std::string collective_name(const Expr& call) const {
    return std::string(info(call).intrinsic->name.substr(5)) + "()";  // drop "simt."
  }

  const Expr* first_collective(const Stmt& s) const {
    std::vector<const Expr*> found = uniformity_->collectives(s);
    return found.empty() ? nullptr : found.front();
  }

  // Whether `s` runs at the uniform level (once per block) rather than in a
  // region.
  bool uniform_level(const Stmt& s) const {
    if (uniformity_->has_collective(s)) return true;
    switch (s.kind) {
      case StmtKind::Break:
      case StmtKind::Continue:
        return !loops_.empty() && loops_.back().uniform;
      case StmtKind::Return:
        return false;  // a thread leaving; at the top of uniform code it is still per thread
      case StmtKind::Assign:
      case StmtKind::AugAssign:
      case StmtKind::AnnAssign:
        return uniformity_->uniform_assignment(s);
      case StmtKind::If:
        return contains_uniform_level(s.body, false) || contains_uniform_level(s.orelse, false);
      case StmtKind::While:
      case StmtKind::For:
        return contains_uniform_level(s.body, true);
      default:
        return false;
    }
  }

  // Whether a statement of `body` must run at the uniform level; `in_loop`:
  // `body` is a loop's own body (its break/continue target that loop, which
  // is then at the uniform level only if something else puts it there).
  bool contains_uniform_level(const std::vector<lang::StmtPtr>& body, bool in_loop) const {
    for (const auto& s : body) {
      if (uniformity_->has_collective(*s)) return true;
      switch (s->kind) {
        case StmtKind::Break:
        case StmtKind::Continue:
          if (!in_loop && !loops_.empty() && loops_.back().uniform) return true;
          break;
        case StmtKind::Assign:
        case StmtKind::AugAssign:
        case StmtKind::AnnAssign:
          if (uniformity_->uniform_assignment(*s)) return true;
          break;
        case StmtKind::If:
          if (contains_uniform_level(s->body, in_loop) ||
              contains_uniform_level(s->orelse, in_loop))
            return true;
          break;
        case StmtKind::While:
        case StmtKind::For:
          if (contains_uniform_level(s->body, true)) return true;
          break;
        default:
          break;
      }
    }
    return false;
  }

  void region_block(const std::vector<lang::StmtPtr>& body) {
    std::vector<const Stmt*> pending;
    for (const auto& sp : body) {
      if (!uniform_level(*sp)) {
        pending.push_back(sp.get());
        continue;
      }
      flush_region(pending);
      uniform_stmt(*sp);
    }
    flush_region(pending);
  }

  void open_thread_loop() {
    line("for (simt_i64 simt_z = 0; simt_z < simt_ctx->block_dim[2]; ++simt_z)");
    line("  for (simt_i64 simt_y = 0; simt_y < simt_ctx->block_dim[1]; ++simt_y)");
    line("    _Pragma(\"clang loop vectorize(disable)\")");
    line("    for (simt_i64 simt_x = 0; simt_x < simt_ctx->block_dim[0]; ++simt_x) {");
    indent_ += 3;
    line(
        "const simt_i64 simt_t = (simt_z * simt_ctx->block_dim[1] + simt_y) * "
        "simt_ctx->block_dim[0] + simt_x;");
    line("const simt_thread simt_tid = {simt_x, simt_y, simt_z};");
    line("(void)simt_t;");
    line("(void)simt_tid;");
    if (has_exits_) line("if (simt_exited[simt_t]) continue;");
    if (!masks_.empty()) line("if (!" + masks_.back() + "[simt_t]) continue;");
    thread_exit_label_ = "simt_next" + std::to_string(temp_counter_++);
    line("{");
    ++indent_;
    uniform_level_ = false;
  }

  void close_thread_loop() {
    uniform_level_ = true;
    --indent_;
    line("}");
    line(thread_exit_label_ + ":;");
    thread_exit_label_.clear();
    indent_ -= 3;
    line("}");
  }

  void flush_region(std::vector<const Stmt*>& pending) {
    if (pending.empty()) return;
    open_thread_loop();
    for (const Stmt* s : pending) stmt(*s);
    close_thread_loop();
    pending.clear();
  }

  void uniform_stmt(const Stmt& s) {
    if (const Expr* call = uniformity_->statement_collective(s)) {
      collective_stmt(s, *call);
      return;
    }
    bool compound = s.kind == StmtKind::If || s.kind == StmtKind::While || s.kind == StmtKind::For;
    if (!masks_.empty() && (s.kind == StmtKind::Break || s.kind == StmtKind::Continue))
      fail_at(s.span,
              "on the CPU, break and continue are not supported under a condition that may "
              "differ between threads in code with warp operations");
    if (!compound) {
      if (const Expr* call = first_collective(s)) {
        fail_at(call->span, "on the CPU, " + collective_name(*call) +
                                " must be a statement of its own (`x = " + collective_name(*call) +
                                "`, `x += ...` or a call alone): the threads of a block wait "
                                "for each other there");
      }
      stmt(s);  // a uniform assignment, break or continue
      return;
    }
    const Expr& header = s.kind == StmtKind::For ? *s.value : *s.test;
    if (!uniformity_->uniform_expr(header) && s.kind != StmtKind::For && warp_collectives_only(s)) {
      // Warp operations under a condition that differs between threads run
      // as the hardware runs them: the threads that took the branch are
      // marked active, and regions skip the others.
      if (s.kind == StmtKind::If)
        masked_if(s);
      else
        masked_while(s);
      return;
    }
    if (!uniformity_->uniform_expr(header)) {
      const Expr* call = first_collective(s);
      // Otherwise a break/continue of a loop with a barrier, or an
      // assignment of a variable every thread must agree on.
      std::string what = call ? collective_name(*call)
                              : std::string(
                                    "leaving or continuing a loop that contains a barrier "
                                    "(syncthreads() or a warp operation)");
      fail_at(header.span,
              "on the CPU, " + what + " must be reached by all threads of a block together, but " +
                  "this condition may differ between threads (it reads threadIdx, grid(), an "
                  "array element or a variable computed from them); make it depend only on "
                  "parameters, constants, blockIdx, blockDim and gridDim");
    }
    stmt(s);
  }

  // Whether every collective in `s` is a warp operation (shuffle or vote):
  // those may run under varying conditions, block barriers may not.
  bool warp_collectives_only(const Stmt& s) const {
    std::vector<const Expr*> found = uniformity_->collectives(s);
    return !found.empty() && std::all_of(found.begin(), found.end(), [&](const Expr* call) {
      sema::Rule rule = info(*call).intrinsic->rule;
      return rule == sema::Rule::Shuffle || rule == sema::Rule::Vote;
    });
  }

  // A per-thread flag array for a mask: set in a loop over the block's
  // threads to `value` where the enclosing mask is active, 0 elsewhere.
  std::string new_mask(const std::function<std::string()>& value) {
    std::string mask = "simt_mask" + std::to_string(temp_counter_++);
    prologue_ +=
        "  unsigned char* " + mask + " = " + scratch("unsigned char", "simt_nthreads") + ";\n";
    line("for (simt_i64 simt_t = 0; simt_t < simt_nthreads; ++simt_t) " + mask + "[simt_t] = 0;");
    open_thread_loop();
    line(mask + "[simt_t] = " + value() + ";");
    close_thread_loop();
    return mask;
  }

  void masked_if(const Stmt& s) {
    source_comment(s);
    std::string taken = new_mask([&] {
      prepare(*s.test);
      return "(unsigned char)" + truth(*s.test);
    });
    masks_.push_back(taken);
    block(s.body);
    masks_.pop_back();
    if (s.orelse.empty()) return;
    std::string other = new_mask([&] { return "(unsigned char)!" + taken + "[simt_t]"; });
    masks_.push_back(other);
    block(s.orelse);
    masks_.pop_back();
  }

  // `while` under a varying condition: each pass re-evaluates the condition
  // for the threads still in the loop, and ends when none is.
  void masked_while(const Stmt& s) {
    source_comment(s);
    std::string in_loop = new_mask([] { return std::string("1"); });
    line("while (1) {");
    ++indent_;
    masks_.push_back(in_loop);
    open_thread_loop();
    prepare(*s.test);
    line("if (!" + truth(*s.test) + ") " + in_loop + "[simt_t] = 0;");
    close_thread_loop();
    std::string any = "simt_any" + std::to_string(temp_counter_++);
    line("int " + any + " = 0;");
    line("for (simt_i64 simt_t = 0; simt_t < simt_nthreads; ++simt_t) " + any + " |= " + in_loop +
         "[simt_t]" + (has_exits_ ? " && !simt_exited[simt_t]" : "") + ";");
    line("if (!" + any + ") break;");
    loops_.push_back({false, "", true});
    block(s.body);
    loops_.pop_back();
    masks_.pop_back();
    --indent_;
    line("}");
  }

  // A statement made of one collective call, split in two regions around the
  // barrier: the first stores each thread's operands, the second computes
  // each thread's result from all of them and runs the statement.
  void collective_stmt(const Stmt& s, const Expr& call) {
    source_comment(s);
    const ExprInfo& i = info(call);
    const sema::Intrinsic& fn = *i.intrinsic;
    std::string n = std::to_string(temp_counter_++);
    auto per_thread_array = [&](const std::string& type, const std::string& name) {
      prologue_ += "  " + type + "* " + name + " = " + scratch(type, "simt_nthreads") + ";\n";
    };
    if (fn.rule == sema::Rule::Barrier) {
      line("// barrier: the region above ends here for every thread");
      return;
    }
    std::string result = "simt_c" + n + "_result";
    if (fn.rule == sema::Rule::BarrierReduce) {
      std::string pred = "simt_c" + n + "_pred";
      per_thread_array("int", pred);
      open_thread_loop();
      prepare(*call.items[1]);
      line(pred + "[simt_t] = (int)" + truth(*call.items[1]) + ";");
      close_thread_loop();
      std::string op = fn.c_name == "count" ? "+=" : fn.c_name == "and" ? "&=" : "|=";
      line("int " + result + " = " + (fn.c_name == "and" ? "1" : "0") + ";");
      line("for (simt_i64 simt_t = 0; simt_t < simt_nthreads; ++simt_t)");
      line(std::string("  ") + (has_exits_ ? "if (!simt_exited[simt_t]) " : "") + result + " " +
           op + " (" + pred + "[simt_t] != 0);");
      hoisted_[&call] = {result};
      open_thread_loop();
      stmt_without_comment(s);
      close_thread_loop();
      return;
    }
    // Warp operations: warps are 32 consecutive threads (x fastest).
    note_warp_use(call);
    std::string value = "simt_c" + n + "_value", lane = "simt_c" + n + "_lane";
    bool shuffle = fn.rule == sema::Rule::Shuffle;
    std::string vt = shuffle ? ctype(i.type) : "int";
    per_thread_array(vt, value);
    if (shuffle) per_thread_array("simt_i64", lane);
    open_thread_loop();
    for (size_t k = 1; k < call.items.size(); ++k) prepare(*call.items[k]);
    if (shuffle) {
      line(value + "[simt_t] = " + emit_as(*call.items[2], i.type) + ";");
      line(lane + "[simt_t] = " + emit_as(*call.items[3], Type::scalar_of(Scalar::Int64)) + ";");
    } else {
      line(value + "[simt_t] = (int)" + truth(*call.items[2]) + ";");
    }
    close_thread_loop();
    open_thread_loop();
    line("const simt_i64 simt_lane = simt_t & 31, simt_warp = simt_t - simt_lane;");
    if (shuffle) {
      std::string l = lane + "[simt_t]";
      std::string src =
          fn.c_name == "idx" ? "simt_warp + (" + l + " & 31)"
          : fn.c_name == "up"
              ? "(simt_lane >= " + l + " && " + l + " >= 0 ? simt_t - " + l + " : simt_t)"
          : fn.c_name == "down"
              ? "(simt_lane + " + l + " < 32 && " + l + " >= 0 ? simt_t + " + l + " : simt_t)"
              : "((simt_lane ^ " + l + ") < 32 && " + l + " >= 0 ? simt_warp + " + "(simt_lane ^ " +
                    l + ") : simt_t)";
      line("simt_i64 simt_src = " + src + ";");
      line("if (simt_src >= simt_nthreads) simt_src = simt_t;");
      line(vt + " " + result + " = " + value + "[simt_src];");
    } else {
      std::string mask = emit_as(*call.items[1], Type::scalar_of(Scalar::UInt32));
      line("unsigned int " + result + "_bits = 0;");
      line(
          "for (simt_i64 simt_k = 0; simt_k < 32 && simt_warp + simt_k < simt_nthreads; "
          "++simt_k)");
      line(std::string("  if (") + (has_exits_ ? "!simt_exited[simt_warp + simt_k] && " : "") +
           (masks_.empty() ? "" : masks_.back() + "[simt_warp + simt_k] && ") + value +
           "[simt_warp + simt_k]) " + result + "_bits |= 1u << simt_k;");
      line("const unsigned int simt_members = " + mask + " & " + cpu_active_mask() + ";");
      std::string out = fn.c_name == "ballot" ? result + "_bits & simt_members"
                        : fn.c_name == "all"
                            ? "(" + result + "_bits & simt_members) == simt_members"
                            : "(" + result + "_bits & simt_members) != 0";
      line(ctype(i.type) + " " + result + " = " + out + ";");
    }
    hoisted_[&call] = {result};
    stmt_without_comment(s);
    close_thread_loop();
  }

  void stmt_without_comment(const Stmt& s) {
    suppress_comment_ = true;
    stmt(s);
  }

  void stmt(const Stmt& s) {
    if (s.kind != StmtKind::If || !in_elif_) source_comment(s);
    switch (s.kind) {
      case StmtKind::Assign:
        prepare(*s.value);
        for (const auto& target : s.targets) prepare_target(*target);
        assign(s);
        break;
      case StmtKind::AnnAssign:
        if (s.value) {
          prepare(*s.value);
          store(*s.targets[0], *s.value);
        }
        break;
      case StmtKind::AugAssign:
        prepare_target(*s.targets[0]);
        prepare(*s.value);
        aug_assign(s);
        break;
      case StmtKind::If:
        prepare(*s.test);
        if_stmt(s);
        break;
      case StmtKind::While:
        if (has_call(s.test.get())) {
          // The test calls a device function: evaluate it at the top of
          // every iteration (`continue` comes back here too).
          line("while (1) {");
          ++indent_;
          prepare(*s.test);
          line("if (!" + truth(*s.test) + ") break;");
          --indent_;
        } else {
          line("while (" + truth(*s.test) + ") {");
        }
        loop_body(s.body, false);
        line("}");
        break;
      case StmtKind::For:
        prepare(*s.value);
        for_stmt(s);
        break;
      case StmtKind::Break:
        if (loops_.back().unrolled)
          line("goto " + loops_.back().break_label + ";");
        else
          line("break;");
        break;
      case StmtKind::Continue:
        // An unrolled iteration is a do { } while (0): continue leaves it.
        line("continue;");
        break;
      case StmtKind::Return:
        return_stmt(s);
        break;
      case StmtKind::Pass:
        break;
      case StmtKind::ExprStmt:
        expr_stmt(*s.value);
        break;
      case StmtKind::Assert:
        if (options_.debug) line("// assert: checked once the runtime reports device errors");
        break;
    }
  }

  void loop_body(const std::vector<lang::StmtPtr>& body, bool unrolled, std::string label = "") {
    loops_.push_back({unrolled, std::move(label), regions_ && uniform_level_});
    ++indent_;
    block(body);
    --indent_;
    loops_.pop_back();
  }

  void assign(const Stmt& s) {
    if (s.targets.size() == 1) {
      store(*s.targets[0], *s.value);
      return;
    }
    // `a = b = value`: evaluate once.
    std::vector<std::string> parts = values(*s.value);
    std::vector<std::string> temps = temporaries(info(*s.value).type, parts);
    for (const auto& target : s.targets) store_parts(*target, temps, info(*s.value).type);
  }

  // Saves each part in a fresh temporary; returns the temporaries' names.
  std::vector<std::string> temporaries(const Type& t, const std::vector<std::string>& parts) {
    std::vector<std::string> names;
    std::vector<Type> types;
    flatten(t, "", names, types);
    std::vector<std::string> temps;
    for (size_t k = 0; k < parts.size(); ++k) {
      std::string name = "simt_tmp" + std::to_string(temp_counter_++);
      line(ctype(types[k]) + " " + name + " = " + parts[k] + ";");
      temps.push_back(name);
    }
    return temps;
  }

  void store(const Expr& target, const Expr& value) {
    const Type& vt = info(value).type;
    if (target.kind == ExprKind::Tuple || vt.is_tuple()) {
      std::vector<std::string> parts = values(value);
      // Unpacking reads every value before writing any (a, b = b, a); a
      // device function's result is already a copy.
      if (parts.size() > 1 && !hoisted_.count(&value)) parts = temporaries(vt, parts);
      store_parts(target, parts, vt);
      return;
    }
    store_parts(target, {emit_as_target(target, value)}, vt);
  }

  // The value converted to the target's type, emitted directly when it is
  // a constant.
  std::string emit_as_target(const Expr& target, const Expr& value) {
    return emit_as(value, target_type(target));
  }

  Type target_type(const Expr& target) {
    if (target.kind == ExprKind::Name) return fn_.locals[info(target).local].type;
    return info(target).type;  // an element
  }

  // Stores already-evaluated parts (one per flattened item of `vt`).
  void store_parts(const Expr& target, const std::vector<std::string>& parts, const Type& vt) {
    if (target.kind == ExprKind::Tuple) {
      size_t offset = 0;
      for (size_t k = 0; k < target.items.size(); ++k) {
        std::vector<std::string> n;
        std::vector<Type> t;
        flatten(vt.items[k], "", n, t);
        std::vector<std::string> sub(parts.begin() + offset, parts.begin() + offset + n.size());
        store_parts(*target.items[k], sub, vt.items[k]);
        offset += n.size();
      }
      return;
    }
    if (target.kind == ExprKind::Name) {
      int index = info(target).local;
      const Type& lt = fn_.locals[index].type;
      std::vector<std::string> names;
      std::vector<Type> types;
      flatten(lt, local_name(index), names, types);
      std::vector<std::string> vnames;
      std::vector<Type> vtypes;
      flatten(vt, "", vnames, vtypes);
      for (size_t k = 0; k < names.size(); ++k) {
        // A single part converted by emit_as already has the local's type.
        std::string value =
            parts.size() == 1 && !vt.is_tuple() ? parts[k] : convert(parts[k], vtypes[k], types[k]);
        line(for_every_thread(index, names[k] + " = " + value + ";"));
      }
      return;
    }
    // An array element.
    const Type& element = info(target).type;
    std::string value =
        parts.size() == 1 && !vt.is_tuple() ? parts[0] : convert(parts[0], vt, element);
    line(element_ref(target) + " = " + store_conversion(value, element.scalar) + ";");
  }

  void aug_assign(const Stmt& s) {
    const Expr& target = *s.targets[0];
    const ExprInfo& op = fn_.at(s);
    std::string current = expr(target);
    std::string result = binary_code(s.op, op.operand, current, info(target), *s.value);
    Type tt = target_type(target);
    std::string value = convert(result, op.type, tt);
    if (target.kind == ExprKind::Name)
      line(local_name(info(target).local) + " = " + value + ";");
    else
      line(element_ref(target) + " = " + store_conversion(value, tt.scalar) + ";");
  }

  void if_stmt(const Stmt& s) {
    line((in_elif_ ? "} else if (" : "if (") + truth(*s.test) + ") {");
    in_elif_ = false;
    ++indent_;
    block(s.body);
    --indent_;
    if (s.orelse.size() == 1 && s.orelse[0]->kind == StmtKind::If &&
        !has_call(s.orelse[0]->test.get()) && !(regions_ && uniform_level_)) {
      // The elif's own `} else if` line closes this block.
      in_elif_ = true;
      stmt(*s.orelse[0]);
      return;
    }
    if (!s.orelse.empty()) {
      line("} else {");
      ++indent_;
      block(s.orelse);
      --indent_;
    }
    line("}");
  }

  // A range loop's header, the loop variable's assignment from the counter,
  // and the body.
  void range_loop(const std::string& header, const std::string& assign_local, const Stmt& s) {
    line(header);
    ++indent_;
    line(assign_local);
    --indent_;
    loop_body(s.body, false);
    line("}");
  }

  void for_stmt(const Stmt& s) {
    const Expr& target = *s.targets[0];
    const Type& iter = info(*s.value).type;
    if (iter.is_tuple()) {
      // Unrolled: each item runs the body once; `continue` ends an
      // iteration's do-while, `break` jumps past all of them.
      std::vector<std::string> parts = values(*s.value);
      std::string label = "simt_break" + std::to_string(temp_counter_++);
      bool uses_break = contains_break(s.body);
      size_t offset = 0;
      for (size_t k = 0; k < iter.items.size(); ++k) {
        std::vector<std::string> n;
        std::vector<Type> t;
        flatten(iter.items[k], "", n, t);
        std::vector<std::string> item(parts.begin() + offset, parts.begin() + offset + n.size());
        offset += n.size();
        line("do {");
        ++indent_;
        store_parts(target, item, iter.items[k]);
        --indent_;
        loop_body(s.body, true, label);
        line("} while (0);");
      }
      if (uses_break) line(label + ":;");
      return;
    }
    const Expr& call = *s.value;
    const Type& index = info(call).operand;  // the range's integer type
    Type strong = Type::scalar_of(sema::concrete(index));
    std::string it = "simt_i" + std::to_string(temp_counter_++);
    std::string stop = "simt_stop" + std::to_string(temp_counter_);
    std::string step_name = "simt_step" + std::to_string(temp_counter_);
    std::string ct = ctype(strong);
    size_t n = call.items.size() - 1;
    std::string start_code = n == 1 ? "0" : emit_as(*call.items[1], strong);
    std::string stop_code = emit_as(*call.items[n == 1 ? 1 : 2], strong);
    std::optional<int64_t> step;
    if (n < 3)
      step = 1;
    else if (info(*call.items[3]).constant)
      step = info(*call.items[3]).constant->int_value;
    int local = info(target).local;
    std::string assign_local = for_every_thread(
        local, local_name(local) + " = " + convert(it, strong, fn_.locals[local].type) + ";");
    if (step && *step == 1) {
      // `it < stop` holds before every increment, so it can never overflow.
      range_loop("for (" + ct + " " + it + " = " + start_code + ", " + stop + " = " + stop_code +
                     "; " + it + " < " + stop + "; ++" + it + ") {",
                 assign_local, s);
      return;
    }
    if ((step && *step > 1) || (!step && info(*call.items[3]).nonnegative)) {
      // A positive step (grid-stride loops: `range(grid(1), n, gridsize(1))`):
      // the trip count, computed once, lets the C compiler unroll the loop and
      // keep several loads in flight (a select in the increment measured 0.6x
      // nvcc's grid-stride sum on the H200). The counter advances in the
      // unsigned type, so the value past the last is never an overflow; a zero
      // step runs no iteration (Python raises there).
      std::string u(
          d_.value_type(sema::bit_width(strong.scalar) <= 32 ? Scalar::UInt32 : Scalar::UInt64));
      std::string step_code =
          step ? literal_int(*step, strong.scalar) : emit_as(*call.items[3], strong);
      std::string count = "simt_count" + std::to_string(temp_counter_);
      line("{");
      ++indent_;
      line(ct + " " + it + " = " + start_code + ", " + stop + " = " + stop_code + ", " + step_name +
           " = " + step_code + ";");
      line(u + " " + count + " = " + it + " < " + stop + " && " + step_name + " > 0 ? ((" + u +
           ")" + stop + " - (" + u + ")" + it + " - 1u) / (" + u + ")" + step_name + " + 1u : 0u;");
      range_loop("for (; " + count + " != 0; --" + count + ", " + it + " = (" + ct + ")((" + u +
                     ")" + it + " + (" + u + ")" + step_name + ")) {",
                 assign_local, s);
      --indent_;
      line("}");
      return;
    }
    // Other steps count iterations in the unsigned type, as Python's range
    // computes its length: no value past `stop` is ever formed, so nothing
    // wraps near the ends of the type.
    std::string u(
        d_.value_type(sema::bit_width(strong.scalar) <= 32 ? Scalar::UInt32 : Scalar::UInt64));
    std::string start = "simt_start" + std::to_string(temp_counter_);
    std::string count = "simt_count" + std::to_string(temp_counter_);
    std::string k = "simt_k" + std::to_string(temp_counter_);
    std::string step_code =
        step ? literal_int(*step, strong.scalar) : emit_as(*call.items[3], strong);
    std::string up = "(" + start + " < " + stop + " ? ((" + u + ")" + stop + " - (" + u + ")" +
                     start + " - 1u) / (" + u + ")" + step_name + " + 1u : 0u)";
    std::string down = "(" + start + " > " + stop + " ? ((" + u + ")" + start + " - (" + u + ")" +
                       stop + " - 1u) / (0u - (" + u + ")" + step_name + ") + 1u : 0u)";
    std::string count_code =
        step ? (*step > 0 ? up : down) : "(" + step_name + " > 0 ? " + up + " : " + down + ")";
    line("{");
    ++indent_;
    line(ct + " " + start + " = " + start_code + ", " + stop + " = " + stop_code + ", " +
         step_name + " = " + step_code + ";");
    line(u + " " + count + " = " + count_code + ";");
    line("for (" + u + " " + k + " = 0; " + k + " < " + count + "; ++" + k + ") {");
    ++indent_;
    line(ct + " " + it + " = (" + ct + ")((" + u + ")" + start + " + " + k + " * (" + u + ")" +
         step_name + ");");
    line(assign_local);
    --indent_;
    loop_body(s.body, false);
    line("}");
    --indent_;
    line("}");
  }

  static bool contains_break(const std::vector<lang::StmtPtr>& body) {
    for (const auto& s : body) {
      if (s->kind == StmtKind::Break) return true;
      // A nested loop's break is its own.
      if (s->kind == StmtKind::For || s->kind == StmtKind::While) continue;
      if (contains_break(s->body) || contains_break(s->orelse)) return true;
    }
    return false;
  }

  void expr_stmt(const Expr& e) {
    if (e.kind == ExprKind::String || e.kind == ExprKind::None) return;
    const ExprInfo& i = info(e);
    if (e.kind == ExprKind::Call && i.function) {
      // A device function called for its effects: its result is dropped.
      prepare_arguments(e);
      line(call_code(e) + ";");
      return;
    }
    prepare(e);
    if (e.kind == ExprKind::Call && i.intrinsic && i.intrinsic->rule == sema::Rule::Print) {
      print(e);
      return;
    }
    if (i.type.is_tuple()) {
      for (const auto& part : values(e)) line("(void)(" + part + ");");
      return;
    }
    if (i.type.is_scalar() || i.type.is_array()) line("(void)(" + expr(e) + ");");
  }

  void print(const Expr& call) {
    std::string format;
    std::string args;
    for (size_t k = 1; k < call.items.size(); ++k) {
      const Expr& a = *call.items[k];
      const Type& t = info(a).type;
      if (k > 1) format += ' ';
      if (t.kind == TypeKind::String) {
        for (char c : a.str_value) {
          if (c == '%')
            format += "%%";
          else if (c == '"' || c == '\\')
            format += std::string("\\") + c;
          else if (c == '\n')
            format += "\\n";
          else
            format += c;
        }
        continue;
      }
      if (t.kind == TypeKind::None) {
        format += "None";
        continue;
      }
      Scalar s = sema::concrete(t);
      if (sema::is_bool(s)) {
        format += "%s";
        args += ", " + expr(a) + " ? \"True\" : \"False\"";
      } else if (sema::is_signed(s)) {
        format += std::string(d_.printf_int64);
        args += ", " + convert(expr(a), t, Type::scalar_of(Scalar::Int64));
      } else if (sema::is_unsigned(s)) {
        format += std::string(d_.printf_uint64);
        args += ", " + convert(expr(a), t, Type::scalar_of(Scalar::UInt64));
      } else if (sema::is_complex(s)) {
        std::string tmp = temporaries(t.strong(), {expr(a)})[0];
        format += "(%g%+gj)";
        args += ", (double)" + tmp + ".re, (double)" + tmp + ".im";
      } else {
        format += "%g";
        args += ", (double)" + expr(a);
      }
    }
    line("printf(\"" + format + "\\n\"" + args + ");");
  }

  // ---- device functions: returns and calls ---------------------------------

  void return_stmt(const Stmt& s) {
    const Type& rt = fn_.return_type;
    if (rt.kind == TypeKind::None) {
      // `return None`, or a kernel's `return f(x)` of a function returning None.
      if (s.value) prepare(*s.value);
      if (regions_ && !thread_exit_label_.empty()) {
        // This thread is done; the others go on to the next regions.
        line("simt_exited[simt_t] = 1;");
        line("goto " + thread_exit_label_ + ";");
        return;
      }
      line("return;");
      return;
    }
    prepare(*s.value);
    if (!rt.is_tuple()) {
      line("return " + emit_as(*s.value, rt) + ";");
      return;
    }
    std::vector<std::string> parts = values(*s.value);
    std::vector<std::string> names;
    std::vector<Type> from, to;
    flatten(info(*s.value).type, "", names, from);
    flatten(rt, "", names, to);
    for (size_t k = 0; k < parts.size(); ++k) parts[k] = convert(parts[k], from[k], to[k]);
    std::string tmp = "simt_ret" + std::to_string(temp_counter_++);
    line(tuple_struct(rt) + " " + tmp + " = {" + join_list(parts) + "};");
    line("return " + tmp + ";");
  }

  // Calls with effects the C expression must not duplicate or drop:
  // atomics, warp operations, barriers and fences.
  static bool effectful_intrinsic(const ExprInfo& i) {
    return i.intrinsic && !i.intrinsic->pure && i.intrinsic->rule != sema::Rule::Print;
  }

  // Whether `e` contains a call of a device function or an effectful
  // intrinsic (memoized).
  bool has_call(const Expr* e) {
    if (e == nullptr) return false;
    if (auto it = has_call_.find(e); it != has_call_.end()) return it->second;
    auto i = fn_.exprs.find(e);
    bool found =
        i != fn_.exprs.end() && (i->second.function != nullptr || effectful_intrinsic(i->second));
    for (const auto& item : e->items) found = has_call(item.get()) || found;
    for (const auto& kw : e->keywords) found = has_call(kw.value.get()) || found;
    has_call_[e] = found;
    return found;
  }

  // Evaluates the device-function calls inside `e` into temporaries, in
  // Python's order, before the statement that uses `e`: a call then runs
  // exactly once however often its value appears in the C expression.
  // Calls evaluated only under a condition (`and`/`or`, the branches of
  // `a if c else b`, the rest of a chained comparison) become if-statements.
  void prepare(const Expr& e) {
    if (!has_call(&e) || hoisted_.count(&e)) return;
    const ExprInfo& i = info(e);
    switch (e.kind) {
      case ExprKind::Call:
        if (effectful_intrinsic(i)) {
          prepare_arguments(e);
          hoist_intrinsic(e);
          return;
        }
        if (!i.function) break;
        prepare_arguments(e);
        hoist_call(e);
        return;
      case ExprKind::IfExp:
        if (has_call(e.items[0].get()) || has_call(e.items[2].get())) {
          lower_if_exp(e);
        } else {
          prepare(*e.items[1]);
        }
        return;
      case ExprKind::BoolOp:
        for (size_t k = 1; k < e.items.size(); ++k) {
          if (!has_call(e.items[k].get())) continue;
          lower_bool_op(e);
          return;
        }
        prepare(*e.items[0]);
        return;
      case ExprKind::Compare:
        for (size_t k = 2; k < e.items.size(); ++k) {
          if (!has_call(e.items[k].get())) continue;
          lower_compare(e);
          return;
        }
        break;
      default:
        break;
    }
    for (const auto& item : e.items)
      if (item) prepare(*item);
    for (const auto& kw : e.keywords) prepare(*kw.value);
  }

  void prepare_arguments(const Expr& call) {
    for (size_t k = 1; k < call.items.size(); ++k) prepare(*call.items[k]);
    for (const auto& kw : call.keywords) prepare(*kw.value);
  }

  // The parts of an assignment target that are evaluated: array and index.
  void prepare_target(const Expr& target) {
    if (target.kind == ExprKind::Subscript) {
      prepare(*target.items[0]);
      prepare(*target.items[1]);
    } else if (target.kind == ExprKind::Tuple) {
      for (const auto& item : target.items) prepare_target(*item);
    }
  }

  void hoist_intrinsic(const Expr& e) {
    const ExprInfo& i = info(e);
    switch (i.intrinsic->rule) {
      case sema::Rule::Barrier:
        line(std::string(d_.barrier));
        hoisted_[&e] = {};
        return;
      case sema::Rule::Fence: {
        int k = i.intrinsic->c_name == "device" ? 0 : i.intrinsic->c_name == "block" ? 1 : 2;
        line(std::string(d_.fences[k]) + ";");
        hoisted_[&e] = {};
        return;
      }
      case sema::Rule::FloatSplit: {
        // frexp(x, &e) / modf(x, &i) in the operand's float type (float16
        // computes in float: both parts of a float16 are exact float16s).
        Scalar s = sema::concrete(i.operand);
        Scalar real = s == Scalar::Float16 ? Scalar::Float32 : s;
        std::string rt(d_.value_type(real));
        std::string x = "simt_tmp" + std::to_string(temp_counter_++);
        std::string first = "simt_tmp" + std::to_string(temp_counter_++);
        std::string second = "simt_tmp" + std::to_string(temp_counter_++);
        line(rt + " " + x + " = " + emit_as(*e.items[1], Type::scalar_of(real)) + ";");
        bool frexp = i.intrinsic->c_name == "frexp";
        line((frexp ? std::string("int ") : rt + " ") + second + ";");
        line(rt + " " + first + " = " + d_.math_name(i.intrinsic->c_name, real) + "(" + x + ", &" +
             second + ");");
        if (frexp) {
          // C leaves the exponent of an infinity or NaN unspecified; Python says 0.
          hoisted_[&e] = {first, "(" + std::string(d_.isfinite_name) + "(" + x + ") ? (" +
                                     std::string(d_.value_type(Scalar::Int64)) + ")" + second +
                                     " : 0)"};
        } else {
          hoisted_[&e] = {first, second};
        }
        return;
      }
      default: {
        std::string code = call(e);
        std::string tmp = "simt_tmp" + std::to_string(temp_counter_++);
        line(ctype(i.type) + " " + tmp + " = " + code + ";");
        hoisted_[&e] = {tmp};
        return;
      }
    }
  }

  void hoist_call(const Expr& e) {
    const Type& rt = info(e).function->typed.return_type;
    std::string code = call_code(e);
    if (rt.kind == TypeKind::None) {
      line(code + ";");
      hoisted_[&e] = {};
      return;
    }
    std::string tmp = "simt_tmp" + std::to_string(temp_counter_++);
    line(result_ctype(rt) + " " + tmp + " = " + code + ";");
    if (!rt.is_tuple()) {
      hoisted_[&e] = {tmp};
      return;
    }
    std::vector<std::string> parts;
    for (size_t k = 0; k < count_parts(rt); ++k) parts.push_back(tmp + ".v" + std::to_string(k));
    hoisted_[&e] = parts;
  }

  // `simt_func_f_0(hidden..., args...)`: each argument converted to the
  // callee's parameter type; a missing one is the parameter's default.
  std::string call_code(const Expr& e) {
    const ExprInfo& i = info(e);
    const sema::TypedFunction& callee = i.function->typed;
    std::vector<std::string> args;
    if (!d_.function_hidden_args.empty()) args.emplace_back(d_.function_hidden_args);
    for (size_t p = 0; p < i.arguments.size(); ++p) {
      const sema::CallArgument& a = i.arguments[p];
      const Type& pt = callee.param_types[p];
      if (pt.is_tuple()) {
        std::vector<std::string> parts, names;
        std::vector<Type> from, to;
        flatten(pt, "", names, to);
        if (a.expr) {
          parts = values(*a.expr);
          flatten(info(*a.expr).type, "", names, from);
        } else {
          constant_parts(a.default_value, parts);
          from = to;
        }
        for (size_t k = 0; k < parts.size(); ++k) args.push_back(convert(parts[k], from[k], to[k]));
      } else if (!a.expr) {
        args.push_back(literal(a.default_value, pt));
      } else if (pt.is_array()) {
        args.push_back(expr(*a.expr));
      } else {
        args.push_back(emit_as(*a.expr, pt));
      }
    }
    return function_symbol(i.function->source->name, i.function->ordinal) + "(" + join_list(args) +
           ")";
  }

  // A temporary for each flattened item of `t`, declared (zeroed) here.
  std::vector<std::string> declare_temporaries(const Type& t) {
    std::vector<std::string> names;
    std::vector<Type> types;
    flatten(t, "", names, types);
    std::vector<std::string> temps;
    for (const Type& item : types) {
      std::string name = "simt_tmp" + std::to_string(temp_counter_++);
      bool aggregate = sema::is_complex(sema::concrete(item));
      line(ctype(item) + " " + name + (aggregate ? " = {0};" : " = 0;"));
      temps.push_back(name);
    }
    return temps;
  }

  // Assigns the value of `e` (converted to `t`) to the temporaries.
  void assign_temporaries(const std::vector<std::string>& temps, const Expr& e, const Type& t) {
    std::vector<std::string> parts = values(e);
    std::vector<std::string> names;
    std::vector<Type> from, to;
    flatten(info(e).type, "", names, from);
    flatten(t, "", names, to);
    for (size_t k = 0; k < parts.size(); ++k)
      line(temps[k] + " = " + convert(parts[k], from[k], to[k]) + ";");
  }

  // `a if c else b` with a call in a branch: an if-statement.
  void lower_if_exp(const Expr& e) {
    const Type& t = info(e).type;
    std::vector<std::string> temps = declare_temporaries(t);
    prepare(*e.items[1]);
    line("if (" + truth(*e.items[1]) + ") {");
    for (int branch : {0, 2}) {
      if (branch == 2) line("} else {");
      ++indent_;
      prepare(*e.items[branch]);
      assign_temporaries(temps, *e.items[branch], t);
      --indent_;
    }
    line("}");
    hoisted_[&e] = temps;
  }

  // `a and f(x)`: Python's value semantics, each operand evaluated only
  // when the ones before it did not decide the result.
  void lower_bool_op(const Expr& e) {
    const Type& t = info(e).type;
    bool is_bool = sema::is_bool(sema::concrete(t));
    std::string tmp = "simt_tmp" + std::to_string(temp_counter_++);
    Type bool_type = Type::scalar_of(Scalar::Bool);
    int opened = 0;
    for (size_t k = 0; k < e.items.size(); ++k) {
      if (k > 0) {
        std::string test = is_bool ? tmp : convert(tmp, t, bool_type);
        line("if (" + (e.op == Op::And ? test : "!" + test) + ") {");
        ++indent_;
        ++opened;
      }
      prepare(*e.items[k]);
      std::string value = is_bool ? truth(*e.items[k]) : emit_as(*e.items[k], t);
      line((k == 0 ? ctype(t) + " " : std::string()) + tmp + " = " + value + ";");
    }
    for (; opened > 0; --opened) {
      --indent_;
      line("}");
    }
    hoisted_[&e] = {tmp};
  }

  // `lo < f(x) < g(y)`: each further comparison only when the ones before
  // it held.
  void lower_compare(const Expr& e) {
    std::string tmp = "simt_tmp" + std::to_string(temp_counter_++);
    prepare(*e.items[0]);
    int opened = 0;
    for (size_t k = 0; k < e.ops.size(); ++k) {
      if (k > 0) {
        line("if (" + tmp + ") {");
        ++indent_;
        ++opened;
      }
      prepare(*e.items[k + 1]);
      line((k == 0 ? ctype(Type::scalar_of(Scalar::Bool)) + " " : std::string()) + tmp + " = " +
           compare_pair(e, k) + ";");
    }
    for (; opened > 0; --opened) {
      --indent_;
      line("}");
    }
    hoisted_[&e] = {tmp};
  }

  // ---- expressions ---------------------------------------------------------

  // The C expressions of a value: one for a scalar or array, one per item
  // (flattened) for a tuple.
  std::vector<std::string> values(const Expr& e) {
    const ExprInfo& i = info(e);
    if (!i.type.is_tuple()) return {expr(e)};
    if (auto h = hoisted_.find(&e); h != hoisted_.end()) return h->second;
    if (i.constant) {
      std::vector<std::string> out;
      constant_parts(*i.constant, out);
      return out;
    }
    switch (e.kind) {
      case ExprKind::Name: {
        std::vector<std::string> names;
        std::vector<Type> types;
        flatten(fn_.locals[i.local].type, local_name(i.local), names, types);
        // The local may be wider than this use's type only for scalars.
        return names;
      }
      case ExprKind::Tuple: {
        std::vector<std::string> out;
        for (const auto& item : e.items) {
          auto parts = values(*item);
          out.insert(out.end(), parts.begin(), parts.end());
        }
        return out;
      }
      case ExprKind::Call: {
        std::vector<std::string> out;
        int n = static_cast<int>(i.type.items.size());
        for (int c = 0; c < n; ++c) out.push_back(grid_component(i.intrinsic->rule, c));
        return out;
      }
      case ExprKind::Attribute: {
        std::string base = expr(*e.items[0]);
        const Type& bt = info(*e.items[0]).type;
        std::vector<std::string> out;
        for (int dim = 0; dim < bt.ndim; ++dim) {
          if (e.name == "shape")
            out.push_back(base + ".shape[" + std::to_string(dim) + "]");
          else
            out.push_back("(" + base + ".strides[" + std::to_string(dim) + "] * " +
                          std::to_string(sema::bit_width(bt.scalar) / 8) + ")");
        }
        return out;
      }
      case ExprKind::Subscript: {
        // A tuple item that is itself a tuple.
        auto parts = values(*e.items[0]);
        const Type& bt = info(*e.items[0]).type;
        int64_t k = info(*e.items[1]).constant->int_value;
        if (k < 0) k += static_cast<int64_t>(bt.items.size());
        size_t offset = 0;
        for (int64_t j = 0; j < k; ++j) offset += count_parts(bt.items[j]);
        return {parts.begin() + offset, parts.begin() + offset + count_parts(bt.items[k])};
      }
      case ExprKind::IfExp: {
        std::string test = truth(*e.items[1]);
        auto a = values(*e.items[0]);
        auto b = values(*e.items[2]);
        std::vector<std::string> out;
        std::vector<std::string> names;
        std::vector<Type> types, ta, tb;
        flatten(i.type, "", names, types);
        flatten(info(*e.items[0]).type, "", names, ta);
        flatten(info(*e.items[2]).type, "", names, tb);
        for (size_t k = 0; k < a.size(); ++k)
          out.push_back("(" + test + " ? " + convert(a[k], ta[k], types[k]) + " : " +
                        convert(b[k], tb[k], types[k]) + ")");
        return out;
      }
      default:
        throw std::logic_error("unexpected tuple expression");
    }
  }

  size_t count_parts(const Type& t) {
    std::vector<std::string> n;
    std::vector<Type> ty;
    flatten(t, "", n, ty);
    return n.size();
  }

  void constant_parts(const Constant& c, std::vector<std::string>& out) {
    if (c.type.is_tuple()) {
      for (const auto& item : c.items) constant_parts(item, out);
      return;
    }
    out.push_back(literal(c, c.type.strong()));
  }

  std::string emit_as(const Expr& e, const Type& to) {
    const ExprInfo& i = info(e);
    if (i.constant && to.is_scalar() && i.constant->type.is_scalar())
      return literal(*i.constant, to);
    return convert(expr(e), i.type, to);
  }

  // A scalar or array expression in the C type of its (concrete) type.
  std::string expr(const Expr& e) {
    const ExprInfo& i = info(e);
    if (i.constant && i.type.is_scalar()) return literal(*i.constant, i.type.strong());
    if (auto h = hoisted_.find(&e); h != hoisted_.end() && !h->second.empty()) return h->second[0];
    switch (e.kind) {
      case ExprKind::Name:
        return name(e);
      case ExprKind::Unary:
        return unary(e);
      case ExprKind::Binary:
        return binary_code(e.op, i.operand, expr_operand(*e.items[0], i.operand), info(*e.items[0]),
                           *e.items[1]);
      case ExprKind::Compare:
        return compare(e);
      case ExprKind::BoolOp:
        return bool_op(e);
      case ExprKind::IfExp:
        return "(" + truth(*e.items[1]) + " ? " + emit_as(*e.items[0], i.type) + " : " +
               emit_as(*e.items[2], i.type) + ")";
      case ExprKind::Call:
        return call(e);
      case ExprKind::Attribute:
        return attribute(e);
      case ExprKind::Subscript:
        return subscript(e);
      default:
        throw std::logic_error("cannot emit this expression");
    }
  }

  std::string expr_operand(const Expr& e, const Type& operand) { return emit_as(e, operand); }

  std::string name(const Expr& e) {
    const ExprInfo& i = info(e);
    if (i.const_array) return constant_array(i);
    if (i.local >= 0) {
      // A weak-typed use of a local reads the variable in its own C type.
      return local_name(i.local);
    }
    throw std::logic_error("global '" + e.name + "' has no value to emit");
  }

  std::string literal_int(int64_t v, Scalar s) {
    return literal(sema::Constant{Type::scalar_of(Scalar::Int64), v, static_cast<double>(v), 0, {}},
                   Type::scalar_of(s));
  }

  std::string literal(const Constant& c, const Type& to) {
    Scalar s = sema::concrete(to);
    bool from_float =
        c.type.is_scalar() && (sema::is_float(c.type.scalar) || sema::is_complex(c.type.scalar));
    if (sema::is_bool(s))
      return (from_float ? (c.real != 0 || c.imag != 0) : c.int_value != 0) ? "true" : "false";
    if (sema::is_integer(s)) {
      int64_t v = from_float ? static_cast<int64_t>(std::trunc(c.real)) : c.int_value;
      int bits = sema::bit_width(s);
      uint64_t mask = bits == 64 ? ~0ull : ((1ull << bits) - 1);
      uint64_t u = static_cast<uint64_t>(v) & mask;
      if (sema::is_unsigned(s)) {
        std::string text = std::to_string(u);
        if (bits == 64) return text + std::string(d_.uint64_suffix);
        if (bits == 32) return text + "u";
        return "((" + std::string(d_.value_type(s)) + ")" + text + ")";
      }
      int64_t sv = bits == 64 ? static_cast<int64_t>(u)
                              : static_cast<int64_t>(u << (64 - bits)) >> (64 - bits);
      if (bits == 64 && sv == INT64_MIN)
        return "(-9223372036854775807" + std::string(d_.int64_suffix) + " - 1)";
      if (bits == 32 && sv == INT32_MIN) return "(-2147483647 - 1)";
      std::string text = std::to_string(sv);
      if (sv < 0) text = "(" + text;
      if (bits == 64)
        text += std::string(d_.int64_suffix);
      else if (bits < 32)
        text = "((" + std::string(d_.value_type(s)) + ")" + text + ")";
      if (sv < 0) text += ")";
      return text;
    }
    double re = from_float ? c.real : static_cast<double>(c.int_value);
    double im = c.imag;
    if (sema::is_complex(s)) {
      Scalar r = sema::real_of(s);
      return helpers_.use(Helper::ComplexMake, s) + "(" + float_literal(re, r) + ", " +
             float_literal(im, r) + ")";
    }
    std::string text = float_literal(re, s);
    if (s == Scalar::Float16) return helpers_.use(Helper::RoundHalf, s) + "(" + text + ")";
    return text;
  }

  std::string float_literal(double v, Scalar s) {
    bool single = s != Scalar::Float64;
    if (std::isnan(v) || std::isinf(v)) {
      if (single) {
        float f = static_cast<float>(v);
        uint32_t bits;
        std::memcpy(&bits, &f, 4);
        return apply(d_.uint_as_float, "", std::to_string(bits) + "u");
      }
      uint64_t bits;
      std::memcpy(&bits, &v, 8);
      return apply(d_.ulong_as_double, "", std::to_string(bits) + std::string(d_.uint64_suffix));
    }
    std::string text = single ? format_float(static_cast<float>(v)) : format_double(v);
    return std::signbit(v) ? "(" + text + ")" : text;
  }

  // Converts code of type `from` to type `to` (scalars), with Python's and
  // NumPy's semantics rather than C's where they differ.
  std::string convert(const std::string& code, const Type& from_type, const Type& to_type) {
    if (!from_type.is_scalar() || !to_type.is_scalar()) return code;
    Scalar from = sema::concrete(from_type), to = sema::concrete(to_type);
    if (from == to) return code;
    std::string to_name(d_.value_type(to));
    if (sema::is_bool(to)) {
      if (sema::is_complex(from))
        return helpers_.use(Helper::ComplexTruth, from) + "(" + code + ")";
      return "(" + code + " != 0)";
    }
    if (sema::is_complex(to)) {
      Scalar r = sema::real_of(to);
      std::string rn(d_.value_type(r));
      if (sema::is_complex(from)) {
        std::string tmp = "(" + code + ")";
        return helpers_.use(Helper::ComplexMake, to) + "((" + rn + ")" + tmp + ".re, (" + rn + ")" +
               tmp + ".im)";
      }
      return helpers_.use(Helper::ComplexMake, to) + "((" + rn + ")(" + code + "), (" + rn + ")0)";
    }
    if (to == Scalar::Float16 && from == Scalar::Float64)
      return helpers_.use(Helper::RoundHalfFromDouble, Scalar::Float64) + "(" + code + ")";
    if (to == Scalar::Float16)
      return helpers_.use(Helper::RoundHalf, to) + "((float)(" + code + "))";
    if (sema::is_integer(to) && is_float_like(from) && d_.float_to_int == "helper") {
      if (from == Scalar::Float64) return helpers_.use(Helper::FloatToInt, to) + "(" + code + ")";
      return helpers_.use(Helper::Float32ToInt, to) + "((float)(" + code + "))";
    }
    if (sema::is_integer(to) && is_float_like(from) && !d_.float_to_int.empty())
      return apply(d_.float_to_int, to_name, code);
    // float16 is a float in registers: widening it is exact and free.
    if (from == Scalar::Float16 && to == Scalar::Float32) return code;
    return "((" + to_name + ")(" + code + "))";
  }

  std::string truth(const Expr& e) {
    const Type& t = info(e).type;
    if (t.is_scalar() && sema::is_bool(sema::concrete(t))) return expr(e);
    return convert(expr(e), t, Type::scalar_of(Scalar::Bool));
  }

  // Signed and narrow integers add, subtract and multiply in an unsigned
  // type of at least 32 bits: wrapping is then defined, as NumPy's is.
  std::string wrap_arith(const std::string& op, Scalar s, const std::string& a,
                         const std::string& b) {
    if (sema::is_unsigned(s) && sema::bit_width(s) >= 32) return "(" + a + " " + op + " " + b + ")";
    std::string u(d_.value_type(sema::bit_width(s) <= 32 ? Scalar::UInt32 : Scalar::UInt64));
    return "((" + std::string(d_.value_type(s)) + ")((" + u + ")" + a + " " + op + " (" + u + ")" +
           b + "))";
  }

  std::string round_half_if(Scalar s, const std::string& code) {
    if (s == Scalar::Float16) return helpers_.use(Helper::RoundHalf, s) + "(" + code + ")";
    return code;
  }

  // x ** c for the constants NumPy computes without pow (its fast paths for
  // array ** scalar): exact, where a device's pow may be off by an ulp.
  std::string float_power(Scalar s, const std::string& a, const std::string& b,
                          const ExprInfo& exponent) {
    if (exponent.constant && exponent.constant->type.is_scalar() &&
        !sema::is_complex(exponent.constant->type.scalar)) {
      const Constant& c = *exponent.constant;
      double e = sema::is_float(c.type.scalar) ? c.real : static_cast<double>(c.int_value);
      std::string one = float_literal(1.0, s == Scalar::Float16 ? Scalar::Float32 : s);
      if (e == 2.0) return "(" + a + " * " + a + ")";
      if (e == 1.0) return a;
      if (e == 0.0) return one;
      if (e == -1.0) return "(" + one + " / " + a + ")";
      if (e == 0.5)
        return d_.math_name("sqrt", s == Scalar::Float16 ? Scalar::Float32 : s) + "(" + a + ")";
    }
    return d_.math_name("pow", s == Scalar::Float16 ? Scalar::Float32 : s) + "(" + a + ", " + b +
           ")";
  }

  std::string binary_code(Op op, const Type& operand, const std::string& a, const ExprInfo& ai,
                          const Expr& rhs) {
    Scalar s = sema::concrete(operand);
    Type ot = Type::scalar_of(s);
    std::string b = emit_as(rhs, ot);
    const ExprInfo& bi = info(rhs);
    std::string t(d_.value_type(s));
    auto op_text = [&](const char* text) { return "(" + a + " " + text + " " + b + ")"; };
    if (sema::is_complex(s)) {
      switch (op) {
        case Op::Add:
          return helpers_.use(Helper::ComplexAdd, s) + "(" + a + ", " + b + ")";
        case Op::Sub:
          return helpers_.use(Helper::ComplexSub, s) + "(" + a + ", " + b + ")";
        case Op::Mul:
          return helpers_.use(Helper::ComplexMul, s) + "(" + a + ", " + b + ")";
        case Op::Div:
          return helpers_.use(Helper::ComplexDiv, s) + "(" + a + ", " + b + ")";
        default:
          throw std::logic_error("complex operator");
      }
    }
    if (sema::is_float(s)) {
      switch (op) {
        case Op::Add:
          return round_half_if(s, op_text("+"));
        case Op::Sub:
          return round_half_if(s, op_text("-"));
        case Op::Mul:
          return round_half_if(s, op_text("*"));
        case Op::Div:
          return round_half_if(s, op_text("/"));
        case Op::FloorDiv:
          return round_half_if(s, helpers_.use(Helper::FloorDiv, s) + "(" + a + ", " + b + ")");
        case Op::Mod:
          return round_half_if(s, helpers_.use(Helper::Mod, s) + "(" + a + ", " + b + ")");
        case Op::Pow:
          return round_half_if(s, float_power(s, a, b, bi));
        default:
          throw std::logic_error("float operator");
      }
    }
    bool positive_divisor = bi.constant && bi.constant->int_value > 0;
    bool narrow = sema::bit_width(s) < 32;
    auto cast_narrow = [&](const std::string& code) {
      return narrow ? "((" + t + ")" + code + ")" : code;
    };
    switch (op) {
      case Op::Add:
        return wrap_arith("+", s, a, b);
      case Op::Sub:
        return wrap_arith("-", s, a, b);
      case Op::Mul:
        return wrap_arith("*", s, a, b);
      case Op::FloorDiv:
        if (ai.nonnegative && positive_divisor) return cast_narrow(op_text("/"));
        return helpers_.use(Helper::FloorDiv, s) + "(" + a + ", " + b + ")";
      case Op::Mod:
        if (ai.nonnegative && positive_divisor) return cast_narrow(op_text("%"));
        return helpers_.use(Helper::Mod, s) + "(" + a + ", " + b + ")";
      case Op::Pow:
        return helpers_.use(Helper::IntPow, s) + "(" + a + ", " + b + ")";
      case Op::BitAnd:
      case Op::BitOr:
      case Op::BitXor: {
        const char* text = op == Op::BitAnd ? "&" : op == Op::BitOr ? "|" : "^";
        if (sema::is_bool(s)) return "((bool)" + op_text(text) + ")";
        return cast_narrow(op_text(text));
      }
      case Op::LShift:
      case Op::RShift: {
        bool in_range = bi.constant && bi.constant->int_value >= 0 &&
                        bi.constant->int_value < sema::bit_width(s);
        if (!in_range)
          return helpers_.use(op == Op::LShift ? Helper::ShiftLeft : Helper::ShiftRight, s) + "(" +
                 a + ", " + b + ")";
        if (op == Op::RShift) return cast_narrow(op_text(">>"));
        return wrap_arith("<<", s, a, b);
      }
      default:
        throw std::logic_error("integer operator");
    }
  }

  std::string unary(const Expr& e) {
    const ExprInfo& i = info(e);
    const Expr& operand = *e.items[0];
    if (e.op == Op::Not) return "(!" + truth(operand) + ")";
    Scalar s = sema::concrete(i.operand);
    std::string a = emit_as(operand, Type::scalar_of(s));
    switch (e.op) {
      case Op::Add:
        return a;
      case Op::Sub:
        if (sema::is_complex(s)) return helpers_.use(Helper::ComplexNeg, s) + "(" + a + ")";
        if (sema::is_float(s)) return "(-" + a + ")";
        return wrap_arith("-", s, "0", a);
      case Op::Invert:
        if (sema::is_bool(s)) return "(!" + a + ")";
        if (sema::bit_width(s) < 32) return "((" + std::string(d_.value_type(s)) + ")(~" + a + "))";
        return "(~" + a + ")";
      default:
        throw std::logic_error("unary operator");
    }
  }

  std::string compare(const Expr& e) {
    std::string out;
    for (size_t k = 0; k < e.ops.size(); ++k) out += (k ? " && " : "") + compare_pair(e, k);
    return e.ops.size() > 1 ? "(" + out + ")" : out;
  }

  // The k-th comparison of a chain: items[k] ops[k] items[k + 1].
  std::string compare_pair(const Expr& e, size_t k) {
    const Type& t = info(e).pair_operands[k];
    Op op = e.ops[k];
    if (op == Op::Is || op == Op::IsNot) {
      bool a_none = info(*e.items[k]).type.kind == TypeKind::None;
      bool b_none = info(*e.items[k + 1]).type.kind == TypeKind::None;
      return ((op == Op::Is) == (a_none && b_none)) ? "true" : "false";
    }
    Scalar s = sema::concrete(t);
    std::string a = emit_as(*e.items[k], Type::scalar_of(s));
    std::string b = emit_as(*e.items[k + 1], Type::scalar_of(s));
    if (sema::is_complex(s)) {
      std::string part = helpers_.use(Helper::ComplexEq, s) + "(" + a + ", " + b + ")";
      return op == Op::NotEq ? "(!" + part + ")" : part;
    }
    return "(" + a + " " + lang::op_text(op) + " " + b + ")";
  }

  std::string bool_op(const Expr& e) {
    const ExprInfo& i = info(e);
    Scalar s = sema::concrete(i.type);
    if (sema::is_bool(s)) {
      std::string out;
      for (size_t k = 0; k < e.items.size(); ++k)
        out += (k ? (e.op == Op::And ? " && " : " || ") : "") + truth(*e.items[k]);
      return "(" + out + ")";
    }
    // Python's value semantics: `a and b` is a if a is false, else b.
    std::string result = emit_as(*e.items.back(), i.type);
    for (size_t k = e.items.size() - 1; k-- > 0;) {
      std::string value = emit_as(*e.items[k], i.type);
      std::string test = truth(*e.items[k]);
      result = e.op == Op::And ? "(" + test + " ? " + result + " : " + value + ")"
                               : "(" + test + " ? " + value + " : " + result + ")";
    }
    return result;
  }

  std::string math_call(std::string_view c_name, Scalar s, const std::string& args) {
    Scalar real = s == Scalar::Float16 ? Scalar::Float32 : s;
    if (c_name == "simt_degrees")
      return round_half_if(s, "(" + args + " * " + float_literal(180.0 / M_PI, real) + ")");
    if (c_name == "simt_radians")
      return round_half_if(s, "(" + args + " * " + float_literal(M_PI / 180.0, real) + ")");
    return round_half_if(s, d_.math_name(c_name, real) + "(" + args + ")");
  }

  std::string call(const Expr& e) {
    const ExprInfo& i = info(e);
    const Type& callee = info(*e.items[0]).type;
    if (callee.kind == TypeKind::DType)
      return convert(expr(*e.items[1]), info(*e.items[1]).type, i.type);
    if (i.function) return call_code(e);
    const sema::Intrinsic& fn = *i.intrinsic;
    auto arg = [&](size_t k, const Type& as) { return emit_as(*e.items[k + 1], as); };
    Scalar s = sema::concrete(i.operand);
    Type ot = Type::scalar_of(s);
    switch (fn.rule) {
      case sema::Rule::FloatUnary:
      case sema::Rule::FloatRound:
        return math_call(fn.c_name, s, arg(0, ot));
      case sema::Rule::FloatBinary:
        return math_call(fn.c_name, s, arg(0, ot) + ", " + arg(1, ot));
      case sema::Rule::FloatSplit:
        throw std::logic_error("frexp() and modf() are evaluated into temporaries");
      case sema::Rule::Ldexp:
        return math_call(fn.c_name, s, arg(0, ot) + ", " + arg(1, Type::scalar_of(Scalar::Int32)));
      case sema::Rule::FloatPredicate: {
        std::string_view name = fn.c_name == "isnan"   ? d_.isnan_name
                                : fn.c_name == "isinf" ? d_.isinf_name
                                                       : d_.isfinite_name;
        Scalar real = s == Scalar::Float16 ? Scalar::Float32 : s;
        return "(" + std::string(name) + "(" + arg(0, Type::scalar_of(real)) + ") != 0)";
      }
      case sema::Rule::FloatToInt: {
        const Type& at = info(*e.items[1]).type;
        if (at.is_int_like()) return arg(0, i.type);
        return convert(math_call(fn.c_name, s, arg(0, ot)), ot, i.type);
      }
      case sema::Rule::Abs: {
        if (sema::is_complex(s))
          return helpers_.use(Helper::ComplexAbs, s) + "(" + arg(0, ot) + ")";
        if (sema::is_float(s)) return math_call("fabs", s, arg(0, ot));
        std::string a = arg(0, ot);
        if (sema::is_unsigned(s)) return a;
        return "(" + a + " < 0 ? " + wrap_arith("-", s, "0", a) + " : " + a + ")";
      }
      case sema::Rule::MinMax: {
        bool is_min = fn.c_name == "fmin";
        bool nan_propagating = fn.name.substr(0, 6) == "numpy." && sema::is_float(s);
        std::string result = arg(0, ot);
        for (size_t k = 1; k + 1 < e.items.size(); ++k) {
          std::string b = arg(k, ot);
          if (nan_propagating)
            result = "((" + result + (is_min ? " < " : " > ") + b + " || " + result +
                     " != " + result + ") ? " + result + " : " + b + ")";
          else
            result = "(" + b + (is_min ? " < " : " > ") + result + " ? " + b + " : " + result + ")";
        }
        return result;
      }
      case sema::Rule::CastInt:
      case sema::Rule::CastFloat:
      case sema::Rule::CastBool:
        return convert(expr(*e.items[1]), info(*e.items[1]).type, i.type);
      case sema::Rule::CastComplex: {
        Type f64 = Type::scalar_of(Scalar::Float64);
        const Type& at = info(*e.items[1]).type;
        if (e.items.size() == 2 && sema::is_complex(sema::concrete(at)))
          return convert(expr(*e.items[1]), at, i.type);
        std::string im = e.items.size() > 2 ? arg(1, f64) : "0.0";
        return helpers_.use(Helper::ComplexMake, Scalar::Complex128) + "(" + arg(0, f64) + ", " +
               im + ")";
      }
      case sema::Rule::Round: {
        const Type& at = info(*e.items[1]).type;
        if (e.items.size() == 3) {
          if (at.is_int_like()) return arg(0, i.type);
          return round_half_if(sema::concrete(i.type),
                               helpers_.use(Helper::RoundDigits, s) + "(" + arg(0, ot) + ", " +
                                   arg(1, Type::scalar_of(Scalar::Int64)) + ")");
        }
        if (at.is_int_like()) return arg(0, i.type);
        return convert(math_call("rint", s, arg(0, ot)), ot, i.type);
      }
      case sema::Rule::Pow:
        return binary_code(Op::Pow, i.operand, arg(0, ot), info(*e.items[1]), *e.items[2]);
      case sema::Rule::Len:
        return expr(*e.items[1]) + ".shape[0]";
      case sema::Rule::Grid:
      case sema::Rule::GridSize:
        return grid_component(fn.rule, 0);
      case sema::Rule::Range:
      case sema::Rule::Print:
        throw std::logic_error("range() and print() are statements here");
      case sema::Rule::ArrayAlloc:
        return array_alloc(e);
      case sema::Rule::ConstArrayLike:
        return constant_array(i);
      case sema::Rule::Atomic:
      case sema::Rule::AtomicCas:
        return atomic_code(e);
      case sema::Rule::LaneId:
      case sema::Rule::WarpSize:
        throw std::logic_error("laneid and warpsize are attributes");
      case sema::Rule::ActiveMask:
        note_warp_use(e);
        if (d_.id == DialectId::Cpp) return cpu_active_mask();
        return d_.activemask.empty() ? "0u" : std::string(d_.activemask);
      case sema::Rule::Shuffle: {
        note_warp_use(e);
        int k = fn.c_name == "idx" ? 0 : fn.c_name == "up" ? 1 : fn.c_name == "down" ? 2 : 3;
        std::string pattern(d_.shuffles[k]);
        if (pattern.empty()) return "0";
        return warp_call(pattern, arg(0, Type::scalar_of(Scalar::UInt32)), arg(1, i.type),
                         arg(2, Type::scalar_of(Scalar::Int32)));
      }
      case sema::Rule::Vote: {
        note_warp_use(e);
        int k = fn.c_name == "ballot" ? 0 : fn.c_name == "all" ? 1 : 2;
        std::string pattern(d_.votes[k]);
        if (pattern.empty()) return "0";
        std::string code = warp_call(pattern, arg(0, Type::scalar_of(Scalar::UInt32)),
                                     "(int)" + truth(*e.items[2]), "");
        return k == 0 ? "((unsigned int)" + code + ")" : "(" + code + " != 0)";
      }
      case sema::Rule::BarrierReduce: {
        int k = fn.c_name == "count" ? 0 : fn.c_name == "and" ? 1 : 2;
        std::string pred = "(int)" + truth(*e.items[1]);
        if (!d_.barrier_reduce[k].empty()) return apply(d_.barrier_reduce[k], "", pred);
        return shared_counter_reduce(k, pred);
      }
      case sema::Rule::Barrier:
      case sema::Rule::Fence:
        throw std::logic_error("syncthreads() and threadfence() are statements");
    }
    throw std::logic_error("unknown intrinsic");
  }

  // ---- constant arrays --------------------------------------------------------

  // A global NumPy array: its values as a program-scope constant array
  // (CUDA __constant__, OpenCL __constant, static const on the CPU), and a
  // view of it in this function.
  std::string constant_array(const ExprInfo& i) {
    const std::string& bytes = *i.const_array;
    Scalar dtype = i.type.scalar;
    std::string data = "simt_const_" + mangle(i.const_array_name).substr(2);
    std::string view = data + "_view";
    std::string element(d_.storage_type(dtype));
    if (module_.constants.insert(data).second) {
      // Floats as bits where the dialect cannot spell infinity and NaN.
      bool as_bits = d_.infinity[0].empty() && (sema::is_float(dtype) || sema::is_complex(dtype)) &&
                     dtype != Scalar::Float16;
      Scalar stored = dtype;
      if (as_bits)
        stored = dtype == Scalar::Float32 || dtype == Scalar::Complex64 ? Scalar::UInt32
                                                                        : Scalar::UInt64;
      size_t item = static_cast<size_t>(sema::bit_width(stored) / 8);
      size_t count = item == 0 ? 0 : bytes.size() / item;
      std::string values;
      for (size_t k = 0; k < count; ++k)
        values += (k ? ", " : "") + constant_element(stored, bytes.data() + k * item);
      if (count == 0) values = "0";
      module_.constant_code +=
          std::string(d_.constant_decl) + std::string(d_.storage_type(stored)) + " " + data + "[" +
          std::to_string(std::max<size_t>(count, 1)) + "] = {" + values + "};\n\n";
    }
    if (constant_views_.insert(view).second) {
      std::string extents, strides;
      for (size_t k = 0; k < i.shape.size(); ++k) {
        int64_t stride = 1;
        for (size_t j = k + 1; j < i.shape.size(); ++j) stride *= i.shape[j];
        extents += (k ? ", " : "") + std::to_string(i.shape[k]);
        strides += (k ? ", " : "") + std::to_string(stride);
      }
      prologue_ += "  " + helpers_.array_struct(i.type) + " " + view + " = {(" +
                   std::string(d_.constant_space) + element + "*)" + data + ", {" + extents +
                   "}, {" + strides + "}};\n";
    }
    return view;
  }

  // One element of a constant array from its bytes, as a constant expression.
  std::string constant_element(Scalar s, const char* bytes) {
    auto real = [&](double v, Scalar r) -> std::string {
      int k = r == Scalar::Float64 ? 1 : 0;
      if (std::isnan(v)) return std::string(d_.nan[k]);
      if (std::isinf(v)) return (v < 0 ? "-" : "") + std::string(d_.infinity[k]);
      return float_literal(v, r);
    };
    switch (s) {
      case Scalar::Bool:
        return bytes[0] ? "1" : "0";
      case Scalar::Float16: {
        uint16_t bits;
        std::memcpy(&bits, bytes, 2);
        return std::to_string(bits);
      }
      case Scalar::Float32: {
        float f;
        std::memcpy(&f, bytes, 4);
        return real(f, Scalar::Float32);
      }
      case Scalar::Float64: {
        double d;
        std::memcpy(&d, bytes, 8);
        return real(d, Scalar::Float64);
      }
      case Scalar::Complex64: {
        float parts[2];
        std::memcpy(parts, bytes, 8);
        return "{" + real(parts[0], Scalar::Float32) + ", " + real(parts[1], Scalar::Float32) + "}";
      }
      case Scalar::Complex128: {
        double parts[2];
        std::memcpy(parts, bytes, 16);
        return "{" + real(parts[0], Scalar::Float64) + ", " + real(parts[1], Scalar::Float64) + "}";
      }
      default: {
        int64_t v = 0;
        int width = sema::bit_width(s) / 8;
        if (sema::is_signed(s)) {
          if (width == 1) v = static_cast<int8_t>(bytes[0]);
          if (width == 2) {
            int16_t x;
            std::memcpy(&x, bytes, 2);
            v = x;
          }
          if (width == 4) {
            int32_t x;
            std::memcpy(&x, bytes, 4);
            v = x;
          }
          if (width == 8) std::memcpy(&v, bytes, 8);
        } else {
          uint64_t u = 0;
          std::memcpy(&u, bytes, static_cast<size_t>(width));
          v = static_cast<int64_t>(u);
        }
        return literal_int(v, s);
      }
    }
  }

  // ---- shared and local arrays ---------------------------------------------

  // The dynamic shared memory of a launch: its size is the last parameter
  // (a SharedBytes slot); its storage is CUDA's extern __shared__ array, an
  // OpenCL __local parameter, or the CPU block context's buffer.
  void add_dynamic_shared(std::vector<ParamSlot>& slots, std::string& params, std::string& body) {
    ParamSlot slot;
    slot.role = ParamSlot::Role::SharedBytes;
    slot.argument = -1;
    slot.c_type = std::string(d_.value_type(Scalar::Int64));
    slots.push_back(slot);
    std::string decl = slot.c_type + " simt_dynamic_shared_bytes";
    std::string storage;
    switch (d_.id) {
      case DialectId::OpenCL:
        decl = "__local uint4* simt_dynamic_shared, " + decl;  // uint4: 16-byte alignment
        break;
      case DialectId::Cuda:
        storage = "  extern __shared__ __align__(16) unsigned char simt_dynamic_shared[];\n";
        break;
      case DialectId::Cpp:
        storage =
            "  unsigned char* simt_dynamic_shared = (unsigned char*)simt_ctx->dynamic_shared;\n";
        break;
    }
    params += (params.empty() ? "" : ", ") + decl;
    body = storage + body;
  }

  // `shared.array(shape, dtype)` / `local.array(...)`: storage declared at the
  // top of the function, and a view of it (the expression's value).
  std::string array_alloc(const Expr& e) {
    const ExprInfo& i = info(e);
    const Type& t = i.type;
    bool shared = t.space == sema::Space::Shared;
    std::string view_type = helpers_.array_struct(t);
    std::string element(d_.storage_type(t.scalar));
    std::string name = (shared ? "simt_shared" : "simt_local") + std::to_string(temp_counter_++);
    std::string extents, strides;
    int64_t total = 1;
    for (size_t k = 0; k < i.shape.size(); ++k) {
      int64_t stride = 1;
      for (size_t j = k + 1; j < i.shape.size(); ++j) stride *= i.shape[j];
      extents += (k ? ", " : "") + std::to_string(i.shape[k]);
      strides += (k ? ", " : "") + std::to_string(stride);
      total *= i.shape[k];
    }
    std::string view = name + "_view";
    if (shared && total == 0) {
      // Dynamic: every such array views the launch's one buffer.
      uses_dynamic_shared_ = true;
      std::string pointer = "(" + std::string(d_.shared_space) + element + "*)simt_dynamic_shared";
      prologue_ += "  " + view_type + " " + view + " = {" + pointer +
                   ", {simt_dynamic_shared_bytes / (simt_i64)sizeof(" + element + ")}, {1}};\n";
      return view;
    }
    std::string init = "{" + extents + "}, {" + strides + "}}";
    if (!shared && regions_) {
      // One array per thread of the block, side by side.
      prologue_ += "  " + element + "* " + name + " = " +
                   scratch(element, std::to_string(total) + " * simt_nthreads") + ";\n";
      return view_type + "{" + name + " + simt_t * " + std::to_string(total) + ", " + init;
    }
    if (shared) {
      prologue_ += "  " + std::string(d_.shared_decl) + element + " " + name + "[" +
                   std::to_string(total) + "];\n";
    } else {
      prologue_ += "  " + element + " " + name + "[" + std::to_string(total) + "] = {0};\n";
    }
    prologue_ += "  " + view_type + " " + view + " = {" + name + ", " + init + ";\n";
    return view;
  }

  // ---- atomics --------------------------------------------------------------

  static int atomic_op_index(std::string_view op) {
    static constexpr std::string_view kOps[] = {"add", "sub", "min", "max",
                                                "and", "or",  "xor", "exch"};
    for (int k = 0; k < 8; ++k)
      if (kOps[k] == op) return k;
    return -1;  // inc, dec: compare-and-swap loops everywhere
  }

  // `atomic.op(a, index, value)`: the element's old value.
  std::string atomic_code(const Expr& e) {
    const ExprInfo& i = info(e);
    const Expr& array = *e.items[1];
    const Type& at = info(array).type;
    Scalar s = at.scalar;
    std::string a = expr(array);
    std::vector<std::string> idx = index_list(*e.items[2], a);
    std::string pointer = "&" + a + ".data[" + offset(a, at, idx) + "]";
    std::string T(d_.value_type(s));
    Type st = Type::scalar_of(s);
    bool wide = sema::bit_width(s) == 64;
    if (wide && !sema::is_float(s) && !module_.int64_atomic_use)
      module_.int64_atomic_use = where(e);
    if (wide && sema::is_float(s) && !module_.int64_atomic_use && d_.id == DialectId::OpenCL)
      module_.int64_atomic_use = where(e);  // float64 atomics are 64-bit compare-and-swap loops
    std::string_view op = i.intrinsic->c_name;
    std::string space = at.space == sema::Space::Shared ? std::string(d_.shared_space)
                                                        : std::string(d_.global_space);
    if (op == "cas") {
      // Floats compare and swap their bits, as CUDA programs do through
      // __float_as_int.
      std::string expected = emit_as(*e.items[3], st), desired = emit_as(*e.items[4], st);
      std::string cas =
          fill_pattern(wide ? d_.atomic_cas64 : d_.atomic_cas32, {{"%S", space},
                                                                  {"%p", pointer},
                                                                  {"%e", to_bits(s, expected)},
                                                                  {"%d", to_bits(s, desired)}});
      return from_bits(s, cas);
    }
    std::string value = emit_as(*e.items[3], st);
    if (d_.id == DialectId::Cpp && at.space == sema::Space::Shared)
      return atomic_helper(op, s, space, true) + "(" + pointer + ", " + value + ")";
    int k = atomic_op_index(op);
    std::string_view native;
    if (k >= 0 && !sema::is_float(s)) native = (wide ? d_.atomic_int64 : d_.atomic_int32)[k];
    if (k == 0 && sema::is_float(s)) native = d_.atomic_float_add[wide ? 1 : 0];
    if (!native.empty()) {
      return "((" + T + ")" + fill_pattern(native, {{"%p", pointer}, {"%v", value}, {"%T", T}}) +
             ")";
    }
    return atomic_helper(op, s, space) + "(" + pointer + ", " + value + ")";
  }

  // A compare-and-swap loop performing `op` on one element; `plain`: a read,
  // modify and write, for shared arrays on the CPU, where a block's threads
  // run on one OS thread one after another (a locked instruction per update
  // made shared-memory histograms 8x slower there).
  std::string atomic_helper(std::string_view op, Scalar s, const std::string& space,
                            bool plain = false) {
    bool wide = sema::bit_width(s) == 64;
    std::string T(d_.value_type(s));
    std::string B(d_.value_type(wide ? Scalar::UInt64 : Scalar::UInt32));
    std::string space_tag = space.empty()                           ? ""
                            : space == std::string(d_.shared_space) ? "_l"
                                                                    : "_g";
    std::string name = "simt_atomic_" + std::string(op) + "_" + scalar_suffix(s) + space_tag +
                       (plain ? "_plain" : "");
    std::string next;
    if (op == "add" || op == "sub") {
      std::string o = op == "add" ? " + " : " - ";
      next =
          sema::is_float(s) ? "cur" + o + "v" : "(" + T + ")((" + B + ")cur" + o + "(" + B + ")v)";
    } else if (op == "min") {
      next = "(v < cur ? v : cur)";
    } else if (op == "max") {
      next = "(v > cur ? v : cur)";
    } else if (op == "and" || op == "or" || op == "xor") {
      next = "(" + T + ")(cur " + (op == "and" ? "&" : op == "or" ? "|" : "^") + " v)";
    } else if (op == "exch") {
      next = "v";
    } else if (op == "inc") {
      next = "(cur >= v ? (" + T + ")0 : (" + T + ")(cur + 1))";
    } else {  // dec
      next = "((cur == 0 || cur > v) ? v : (" + T + ")(cur - 1))";
    }
    if (plain) {
      helpers_.define_once(name, std::string(d_.function_prefix) + T + " " + name + "(" + T +
                                     "* p, " + T + " v) {\n  " + T + " cur = *p;\n  *p = " + next +
                                     ";\n  return cur;\n}\n");
      return name;
    }
    std::string cas =
        fill_pattern(wide ? d_.atomic_cas64 : d_.atomic_cas32,
                     {{"%S", space}, {"%p", "p"}, {"%e", "old"}, {"%d", to_bits(s, "next")}});
    helpers_.define_once(
        name, std::string(d_.function_prefix) + T + " " + name + "(" + space + T + "* p, " + T +
                  " v) {\n  " + B + " old = *(volatile " + space + B + "*)p;\n  for (;;) {\n    " +
                  T + " cur = " + from_bits(s, "old") + ";\n    " + T + " next = " + next +
                  ";\n    " + B + " seen = " + cas + ";\n    if (seen == old) return cur;\n" +
                  "    old = seen;\n  }\n}\n");
    return name;
  }

  // An atomic's element as the unsigned word compare-and-swap works on, and
  // back: floats by their bits, integers by conversion.
  std::string to_bits(Scalar s, const std::string& x) const {
    bool wide = sema::bit_width(s) == 64;
    std::string bits(d_.value_type(wide ? Scalar::UInt64 : Scalar::UInt32));
    if (!sema::is_float(s)) return "(" + bits + ")(" + x + ")";
    return "(" + bits + ")" + apply(wide ? d_.double_as_ulong : d_.float_as_uint, "", x);
  }

  std::string from_bits(Scalar s, const std::string& x) const {
    bool wide = sema::bit_width(s) == 64;
    if (!sema::is_float(s)) return "((" + std::string(d_.value_type(s)) + ")(" + x + "))";
    return apply(wide ? d_.ulong_as_double : d_.uint_as_float, "", x);
  }

  // The indices of an atomic's `index` argument (an int or a tuple).
  std::vector<std::string> index_list(const Expr& index, const std::string& a) {
    Type i64 = Type::scalar_of(Scalar::Int64);
    std::vector<std::string> out;
    auto wrap = [&](std::string v, bool nonnegative, size_t k) {
      if (nonnegative) return v;
      return helpers_.use(Helper::WrapIndex, Scalar::Int64) + "(" + v + ", " + a + ".shape[" +
             std::to_string(k) + "])";
    };
    const Type& t = info(index).type;
    if (!t.is_tuple()) {
      out.push_back(wrap(emit_as(index, i64), info(index).nonnegative, 0));
      return out;
    }
    if (index.kind == ExprKind::Tuple) {
      for (size_t k = 0; k < index.items.size(); ++k)
        out.push_back(wrap(emit_as(*index.items[k], i64), info(*index.items[k]).nonnegative, k));
      return out;
    }
    std::vector<std::string> parts = values(index);
    for (size_t k = 0; k < parts.size(); ++k)
      out.push_back(wrap(convert(parts[k], t.items[k], i64), false, k));
    return out;
  }

  // ---- warps -----------------------------------------------------------------

  std::optional<PythonLine> where(const Expr& e) const {
    return PythonLine{fn_.source->filename(), static_cast<int>(e.span.line),
                      std::string(fn_.source->line_text(e.span.line)),
                      static_cast<int>(e.span.col)};
  }

  void note_warp_use(const Expr& e) {
    if (!module_.warp_use) module_.warp_use = where(e);
  }

  static std::string warp_call(std::string_view pattern, const std::string& mask,
                               const std::string& value, const std::string& lane) {
    return fill_pattern(pattern, {{"%m", mask}, {"%x", value}, {"%l", lane}});
  }

  // The thread's index within its block, x fastest (how warps are formed).
  std::string linear_thread() {
    auto at = [&](IndexObject o, int c) { return index_value(o, c); };
    return "(" + at(IndexObject::ThreadIdx, 0) + " + " + at(IndexObject::BlockDim, 0) + " * (" +
           at(IndexObject::ThreadIdx, 1) + " + " + at(IndexObject::BlockDim, 1) + " * " +
           at(IndexObject::ThreadIdx, 2) + "))";
  }

  std::string lane_id() { return "((int)(" + linear_thread() + " & 31))"; }

  // On the CPU every thread of a warp that exists runs: the mask of those.
  std::string cpu_active_mask() {
    std::string threads = "(" + index_value(IndexObject::BlockDim, 0) + " * " +
                          index_value(IndexObject::BlockDim, 1) + " * " +
                          index_value(IndexObject::BlockDim, 2) + ")";
    std::string left = "(" + threads + " - (" + linear_thread() + " & ~(simt_i64)31))";
    return "(" + left + " >= 32 ? 0xffffffffu : (unsigned int)((1ull << " + left + ") - 1u))";
  }

  // syncthreads_count/and/or where the dialect has no such call (OpenCL 1.2):
  // a shared counter between barriers.
  std::string shared_counter_reduce(int k, const std::string& pred) {
    if (!shared_counter_declared_) {
      prologue_ += "  " + std::string(d_.shared_decl) + "int simt_sync_counter;\n";
      shared_counter_declared_ = true;
    }
    std::string tmp = "simt_tmp" + std::to_string(temp_counter_++);
    std::string first = "(" + linear_thread() + " == 0)";
    line(std::string(d_.barrier));
    line("if " + first + " simt_sync_counter = 0;");
    line(std::string(d_.barrier));
    line("if (" + pred + ") atomic_inc(&simt_sync_counter);");
    line(std::string(d_.barrier));
    std::string threads = "(int)(" + index_value(IndexObject::BlockDim, 0) + " * " +
                          index_value(IndexObject::BlockDim, 1) + " * " +
                          index_value(IndexObject::BlockDim, 2) + ")";
    std::string value = k == 0   ? "simt_sync_counter"
                        : k == 1 ? "(simt_sync_counter == " + threads + ")"
                                 : "(simt_sync_counter != 0)";
    line("int " + tmp + " = " + value + ";");
    line(std::string(d_.barrier));
    return tmp;
  }

  std::string index_value(IndexObject object, int c) {
    return "((" + std::string(d_.value_type(Scalar::Int64)) + ")" +
           std::string(d_.index_expr(object, c)) + ")";
  }

  std::string grid_component(sema::Rule rule, int c) {
    if (rule == sema::Rule::Grid)
      return "(" + index_value(IndexObject::BlockIdx, c) + " * " +
             std::string(d_.index_expr(IndexObject::BlockDim, c)) + " + " +
             std::string(d_.index_expr(IndexObject::ThreadIdx, c)) + ")";
    return "(" + index_value(IndexObject::BlockDim, c) + " * " +
           std::string(d_.index_expr(IndexObject::GridDim, c)) + ")";
  }

  std::string attribute(const Expr& e) {
    if (const sema::Intrinsic* fn = info(e).intrinsic) {  // simt.laneid, simt.warpsize
      // Lanes are 32 consecutive threads on every backend: these two need no
      // warp operation (OpenCL devices have them too).
      if (fn->rule == sema::Rule::LaneId) return lane_id();
      return d_.warpsize.empty() ? "32" : "((int)" + std::string(d_.warpsize) + ")";
    }
    const Type& bt = info(*e.items[0]).type;
    if (bt.kind == TypeKind::Dim3) {
      IndexObject object = bt.name == "thread_idx"  ? IndexObject::ThreadIdx
                           : bt.name == "block_idx" ? IndexObject::BlockIdx
                           : bt.name == "block_dim" ? IndexObject::BlockDim
                                                    : IndexObject::GridDim;
      return index_value(object, e.name[0] - 'x');
    }
    std::string base = expr(*e.items[0]);
    if (bt.is_array() && e.name == "size") {
      std::string out;
      for (int d = 0; d < bt.ndim; ++d)
        out += (d ? " * " : "") + base + ".shape[" + std::to_string(d) + "]";
      return "(" + out + ")";
    }
    if (bt.is_scalar()) return "(" + base + ")." + (e.name == "real" ? "re" : "im");
    throw std::logic_error("attribute");
  }

  // `a[i, j]`: the element's lvalue in the array's storage type.
  std::string element_ref(const Expr& e) {
    const Expr& base = *e.items[0];
    const Type& bt = info(base).type;
    std::string a = expr(base);
    std::vector<std::string> idx = indices(e, a, bt);
    return a + ".data[" + offset(a, bt, idx) + "]";
  }

  std::vector<std::string> indices(const Expr& e, const std::string& a, const Type&) {
    const Expr& index = *e.items[1];
    std::vector<const Expr*> items;
    if (index.kind == ExprKind::Tuple) {
      for (const auto& it : index.items) items.push_back(it.get());
    } else {
      items.push_back(&index);
    }
    std::vector<std::string> out;
    Type i64 = Type::scalar_of(Scalar::Int64);
    for (size_t k = 0; k < items.size(); ++k) {
      std::string v = emit_as(*items[k], i64);
      if (!info(*items[k]).nonnegative)
        v = helpers_.use(Helper::WrapIndex, Scalar::Int64) + "(" + v + ", " + a + ".shape[" +
            std::to_string(k) + "])";
      out.push_back(v);
    }
    return out;
  }

  // Offsets from indices: C and F layouts known at compile time use the
  // extents (no stride loads); others use the strides.
  std::string offset(const std::string& a, const Type& t, const std::vector<std::string>& idx) {
    size_t n = idx.size();
    bool full = n == t.ndim;
    if (full && t.layout == sema::Layout::C) {
      std::string off = idx[0];
      for (size_t k = 1; k < n; ++k)
        off = "(" + off + ") * " + a + ".shape[" + std::to_string(k) + "] + " + idx[k];
      return off;
    }
    if (full && t.layout == sema::Layout::F) {
      std::string off = idx[n - 1];
      for (size_t k = n - 1; k-- > 0;)
        off = idx[k] + " + " + a + ".shape[" + std::to_string(k) + "] * (" + off + ")";
      return off;
    }
    std::string off;
    for (size_t k = 0; k < n; ++k)
      off += (k ? " + " : "") + idx[k] + " * " + a + ".strides[" + std::to_string(k) + "]";
    return off;
  }

  std::string subscript(const Expr& e) {
    const Expr& base = *e.items[0];
    const Type& bt = info(base).type;
    const Type& rt = info(e).type;
    if (bt.is_tuple()) {
      auto parts = values(base);
      const ExprInfo& ii = info(*e.items[1]);
      if (ii.constant) {
        int64_t k = ii.constant->int_value;
        if (k < 0) k += static_cast<int64_t>(parts.size());
        return parts[k];
      }
      std::string k = "simt_k" + std::to_string(temp_counter_++);
      std::string idx = emit_as(*e.items[1], Type::scalar_of(Scalar::Int64));
      std::string n = std::to_string(parts.size());
      std::string wrapped =
          helpers_.use(Helper::WrapIndex, Scalar::Int64) + "(" + idx + ", " + n + ")";
      std::string out = parts.back();
      for (size_t j = parts.size() - 1; j-- > 0;)
        out = "(" + wrapped + " == " + std::to_string(j) + " ? " + parts[j] + " : " + out + ")";
      return out;
    }
    if (rt.is_array()) return view(e, bt, rt);
    return load_storage(element_ref(e), bt.scalar);
  }

  // `a[i]` of a 2-D array: a 1-D array sharing a's data.
  std::string view(const Expr& e, const Type& bt, const Type& rt) {
    std::string a = expr(*e.items[0]);
    std::vector<std::string> idx = indices(e, a, bt);
    std::string off;
    for (size_t k = 0; k < idx.size(); ++k)
      off += (k ? " + " : "") + idx[k] + " * " + a + ".strides[" + std::to_string(k) + "]";
    std::string from = helpers_.array_struct(bt);
    std::string to = helpers_.array_struct(rt);
    std::string name = "simt_view_" + from.substr(9) + "_" + std::to_string(idx.size());
    if (views_.insert(name).second) {
      std::string code = std::string(d_.function_prefix) + to + " " + name + "(" + from +
                         " a, simt_i64 offset) {\n  " + to + " v;\n  v.data = a.data + offset;\n";
      for (int d = 0; d < rt.ndim; ++d) {
        std::string src = std::to_string(d + static_cast<int>(idx.size()));
        code += "  v.shape[" + std::to_string(d) + "] = a.shape[" + src + "];\n  v.strides[" +
                std::to_string(d) + "] = a.strides[" + src + "];\n";
      }
      code += "  return v;\n}\n";
      view_code_ += code + "\n";
    }
    return name + "(" + a + ", " + off + ")";
  }

  // An element as stored to the value it is in registers.
  std::string load_storage(const std::string& ref, Scalar s) {
    if (sema::is_bool(s)) return "(" + ref + " != 0)";
    if (s == Scalar::Float16) return helpers_.use(Helper::HalfToFloat, s) + "(" + ref + ")";
    return ref;
  }

  std::string store_conversion(const std::string& value, Scalar s) {
    if (sema::is_bool(s)) return "(" + std::string(d_.storage_type(s)) + ")(" + value + ")";
    if (s == Scalar::Float16) return helpers_.use(Helper::FloatToHalf, s) + "(" + value + ")";
    return value;
  }

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
  // The CPU kernel runs as regions (loops over the block's threads between
  // barriers); see emit_regions().
  bool regions_ = false;
  std::unique_ptr<Uniformity> uniformity_;
  bool uniform_level_ = false;  // emitting outside the loops over threads
  bool bare_names_ = false;     // local_name() without the per-thread index
  bool has_exits_ = false;      // a thread may return before others: simt_exited[]
  bool suppress_comment_ = false;
  std::string thread_exit_label_;           // inside a region: where a returning thread goes
  std::vector<std::string> scratch_sizes_;  // regions: per-thread arrays, in bytes
  std::set<std::string> constant_views_;    // constant arrays viewed in this function
  std::vector<std::string> masks_;          // regions under varying conditions: the active threads
  int indent_ = 1;
  int temp_counter_ = 0;
  bool in_elif_ = false;
  struct Loop {
    bool unrolled;
    std::string break_label;
    bool uniform = false;  // runs at the uniform level (regions)
  };
  std::vector<Loop> loops_;
};

}  // namespace

std::string kernel_symbol(const std::string& python_name) {
  return "simt_kernel_" + mangle(python_name).substr(2);
}

std::string function_symbol(const std::string& python_name, int ordinal) {
  return "simt_func_" + mangle(python_name).substr(2) + "_" + std::to_string(ordinal);
}

namespace {

// The earliest line of `fn` with a (non-literal) float64 or complex128
// expression.
std::optional<PythonLine> first_float64_use(const sema::TypedFunction& fn) {
  uint32_t first = 0;
  for (const auto& [expr, info] : fn.exprs) {
    const Type& t = info.type;
    if (!t.is_scalar() || t.weak) continue;
    Scalar s = sema::concrete(t);
    if (s != Scalar::Float64 && s != Scalar::Complex128) continue;
    if (first == 0 || expr->span.line < first) first = expr->span.line;
  }
  if (first == 0) return std::nullopt;
  return PythonLine{fn.source->filename(), static_cast<int>(first),
                    std::string(fn.source->line_text(first))};
}

// Each Scalar and ArrayData record starts the next leaf of the flattened
// arguments (the order a launch classifies them in); an array's extents and
// strides belong to its leaf.
void number_params(std::vector<ParamSlot>& params, const Dialect& dialect) {
  int leaf = -1;
  for (ParamSlot& p : params) {
    if (p.role == ParamSlot::Role::Scalar || p.role == ParamSlot::Role::ArrayData) ++leaf;
    p.leaf = p.role == ParamSlot::Role::SharedBytes ? -1 : leaf;
    const bool split = !dialect.array_offset_type.empty();
    p.c_params =
        split && (p.role == ParamSlot::Role::ArrayData || p.role == ParamSlot::Role::SharedBytes)
            ? 2
            : 1;
  }
}

}  // namespace

// On the CPU a device function runs for one thread at a time, so it cannot
// wait for the others: barriers and warp operations belong in the kernel.
void reject_collectives_in_functions(const sema::TypedFunction& kernel) {
  for (const auto& f : kernel.functions) {
    for (const auto& [e, i] : f->typed.exprs) {
      if (!i.intrinsic || !sema::is_collective(i.intrinsic->rule)) continue;
      lang::fail(lang::DiagnosticKind::Syntax, *f->typed.source, e->span,
                 "on the CPU, " + std::string(i.intrinsic->name.substr(5)) +
                     "() can only be called in the kernel itself, not in a device function "
                     "('" +
                     f->source->name + "')");
    }
  }
}

EmittedKernel emit_kernel(const sema::TypedFunction& fn, const Dialect& dialect,
                          const EmitOptions& options) {
  if (dialect.id == DialectId::Cpp) reject_collectives_in_functions(fn);
  Module module(dialect);
  // Callees come first in `functions`, so each is defined before its use.
  for (const auto& f : fn.functions)
    Emitter(f->typed, dialect, options, module, f.get()).emit_function();
  Emitter emitter(fn, dialect, options, module);
  EmittedKernel kernel = emitter.run();
  kernel.language = dialect.id;
  number_params(kernel.params, dialect);
  kernel.requirements.float64 = first_float64_use(fn);
  for (const auto& f : fn.functions) {
    if (kernel.requirements.float64) break;
    kernel.requirements.float64 = first_float64_use(f->typed);
  }
  return kernel;
}

}  // namespace simt::codegen
