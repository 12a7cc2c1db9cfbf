// Storage the kernel declares itself (constant, shared and local arrays)
// and atomic updates of array elements.
#include <algorithm>
#include <cmath>
#include <cstring>

#include "codegen/emitter_impl.h"

namespace simt::codegen::detail {

std::string Emitter::constant_array(const ExprInfo& i) {
  const std::string& bytes = *i.const_array;
  Scalar dtype = i.type.scalar;
  std::string data = "simt_const_" + mangle(i.const_array_name).substr(2);
  std::string view = data + "_view";
  std::string element = helpers_.element_type(i.type);
  if (module_.constants.insert(data).second)
    module_.constant_code += i.type.record ? constant_records(data, element, bytes, *i.type.record)
                                           : constant_numbers(data, dtype, bytes);
  if (constant_views_.insert(view).second) {
    std::string extents, strides;
    for (size_t k = 0; k < i.shape.size(); ++k) {
      int64_t stride = 1;
      for (size_t j = k + 1; j < i.shape.size(); ++j) stride *= i.shape[j];
      extents += (k ? ", " : "") + std::to_string(i.shape[k]);
      strides += (k ? ", " : "") + std::to_string(stride);
    }
    prologue_ += "  " + helpers_.array_struct(i.type) + " " + view + " = {(" +
                 std::string(d_.constant_space) + element + "*)" + data + ", {" + extents + "}, {" +
                 strides + "}};\n";
  }
  return view;
}

std::string Emitter::constant_numbers(const std::string& data, Scalar dtype,
                                      const std::string& bytes) {
  // Floats as bits where the dialect cannot spell infinity and NaN.
  bool as_bits = d_.constant_floats_as_bits && (sema::is_float(dtype) || sema::is_complex(dtype)) &&
                 dtype != Scalar::Float16;
  Scalar stored = dtype;
  if (as_bits)
    stored =
        dtype == Scalar::Float32 || dtype == Scalar::Complex64 ? Scalar::UInt32 : Scalar::UInt64;
  size_t item = static_cast<size_t>(sema::bit_width(stored) / 8);
  size_t count = item == 0 ? 0 : bytes.size() / item;
  std::string values;
  for (size_t k = 0; k < count; ++k)
    values += (k ? ", " : "") + constant_element(stored, bytes.data() + k * item);
  if (count == 0) values = "0";
  return std::string(d_.constant_decl) + std::string(d_.storage_type(stored)) + " " + data + "[" +
         std::to_string(std::max<size_t>(count, 1)) + "] = {" + values + "};\n\n";
}

std::string Emitter::constant_records(const std::string& data, const std::string& element,
                                      const std::string& bytes, const abi::Record& record) {
  // Each record its struct's bytes, so aligned as the struct says.
  const size_t item = record.itemsize;
  const size_t count = bytes.size() / item;
  std::string values;
  for (size_t k = 0; k < count; ++k) {
    values += k ? ", {{" : "{{";
    for (size_t b = 0; b < item; ++b)
      values += (b ? ", " : "") + std::to_string(static_cast<unsigned char>(bytes[k * item + b]));
    values += "}}";
  }
  if (count == 0) values = "{{0}}";
  return std::string(d_.constant_decl) + element + " " + data + "[" +
         std::to_string(std::max<size_t>(count, 1)) + "] = {" + values + "};\n\n";
}

std::string Emitter::constant_element(Scalar s, const char* bytes) {
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

void Emitter::add_dynamic_shared(std::vector<abi::Param>& slots, std::vector<std::string>& params,
                                 std::string& body) {
  abi::Param slot;
  slot.role = abi::Param::Role::SharedBytes;
  slot.argument = -1;
  slot.c_type = std::string(d_.value_type(Scalar::Int64));
  slots.push_back(slot);
  std::string decl = slot.c_type + " simt_dynamic_shared_bytes";
  if (!d_.dynamic_shared_param.empty()) params.emplace_back(d_.dynamic_shared_param);
  params.push_back(decl);
  body = std::string(d_.dynamic_shared_storage) + body;
}

std::string Emitter::array_alloc(const Expr& e) {
  const ExprInfo& i = info(e);
  const Type& t = i.type;
  bool shared = t.space == sema::Space::Shared;
  std::string view_type = helpers_.array_struct(t);
  std::string element = helpers_.element_type(t);
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
  count_array_bytes(e, shared, total);
  if (std::optional<size_t> slot = shared ? shared_slot_of(e) : std::nullopt) {
    // Declared in the kernel and passed in (emit_shared_slots.cpp).
    prologue_ += "  " + view_type + " " + view + " = {" + slot_name(*slot) + ", {" + extents +
                 "}, {" + strides + "}};\n";
    return view;
  }
  if (shared && total == 0) {
    // Dynamic: every such array views the launch's one buffer.
    uses_dynamic_shared_ = true;
    std::string pointer = "(" + std::string(d_.shared_space) + element + "*)simt_dynamic_shared";
    prologue_ += "  " + view_type + " " + view + " = {" + pointer +
                 ", {simt_dynamic_shared_bytes / (simt_i64)sizeof(" + element + ")}, {1}};\n";
    return view;
  }
  std::string init = "{" + extents + "}, {" + strides + "}}";
  if (!shared && regions_.active) {
    // One array per thread of the block, side by side.
    prologue_ += "  " + element + "* " + name + " = " +
                 scratch(element, std::to_string(total) + " * simt_nthreads") + ";\n";
    return view_type + "{" + name + " + simt_t * " + std::to_string(total) + ", " + init;
  }
  if (shared && d_.id == abi::Language::Cpp) {
    // The CPU runs a block on a worker's stack (or each thread on a fiber's
    // stack): the block's arrays live in the runtime's guarded per-block
    // memory instead (backends/cpu/shared_arena.h), where an overrun cannot
    // reach the runtime's frames.
    const int64_t at = (module_.cpu_shared_bytes + 63) & ~int64_t{63};
    module_.cpu_shared_bytes = at + total * t.element_bytes();
    prologue_ += "  " + element + "* " + name + " = (" + element +
                 "*)((unsigned char*)simt_ctx->static_shared + " + std::to_string(at) + ");\n";
  } else if (shared) {
    prologue_ += "  " + std::string(d_.shared_decl) + element + " " + name + "[" +
                 std::to_string(total) + "];\n";
  } else {
    prologue_ += "  " + element + " " + name + "[" + std::to_string(total) + "] = {0};\n";
  }
  prologue_ += "  " + view_type + " " + view + " = {" + name + ", " + init + ";\n";
  return view;
}

void Emitter::count_array_bytes(const Expr& e, bool shared, int64_t elements) {
  const int64_t bytes = elements * info(e).type.element_bytes();
  if (shared) {
    // Checked against the device's limit when the kernel compiles for it.
    module_.shared_bytes += bytes;
    if (!module_.shared_use && bytes > 0) module_.shared_use = where(e);
    return;
  }
  local_bytes_ += bytes;
  module_.local_bytes += bytes;
  if (local_bytes_ > kMaxLocalBytes)
    fail_at(e.span, "local arrays of " + std::to_string(local_bytes_) +
                        " bytes per thread are more than simt allows (" +
                        std::to_string(kMaxLocalBytes) +
                        ", CUDA's limit of local memory per thread); use a global array");
}

int Emitter::atomic_op_index(std::string_view op) {
  static constexpr std::string_view kOps[] = {"add", "sub", "min", "max",
                                              "and", "or",  "xor", "exch"};
  for (int k = 0; k < 8; ++k)
    if (kOps[k] == op) return k;
  return -1;  // inc, dec: compare-and-swap loops everywhere
}

std::string Emitter::atomic_code(const Expr& e) {
  const ExprInfo& i = info(e);
  const Expr& array = *e.items[1];
  const Type& at = info(array).type;
  Scalar s = at.scalar;
  std::string a = expr(array);
  // compare_and_swap(array, old, value) swaps element 0; its values come an item earlier.
  bool first_element = i.intrinsic->rule == sema::Rule::CompareAndSwap;
  size_t v = first_element ? 2 : 3;
  std::vector<std::string> idx = first_element
                                     ? std::vector<std::string>{index_into("0", true, a, 0, array)}
                                     : index_list(array, *e.items[2], a);
  std::string pointer = "&" + race_ref(a + ".data[" + offset(a, at, idx) + "]", a, array,
                                       abi::RaceSite::Kind::Atomic);
  std::string T(d_.value_type(s));
  Type st = Type::scalar_of(s);
  bool wide = sema::bit_width(s) == 64;
  if (wide && !sema::is_float(s) && !module_.int64_atomic_use) module_.int64_atomic_use = where(e);
  // Without a native float64 add, float64 atomics are compare-and-swap loops
  // on 64-bit words.
  if (wide && sema::is_float(s) && !module_.int64_atomic_use && d_.atomic_float_add[1].empty())
    module_.int64_atomic_use = where(e);
  std::string_view op = i.intrinsic->c_name;
  // Integers have no NaN: nanmin/nanmax are min/max (native where those are).
  if (!sema::is_float(s) && op.starts_with("nan")) op.remove_prefix(3);
  std::string space =
      at.space == sema::Space::Shared ? std::string(d_.shared_space) : std::string(d_.global_space);
  if (op == "cas") {
    // Floats compare and swap their bits, as CUDA programs do through
    // __float_as_int.
    std::string expected = emit_as(*e.items[v], st), desired = emit_as(*e.items[v + 1], st);
    std::string cas =
        fill_pattern(wide ? d_.atomic_cas64 : d_.atomic_cas32, {{"%S", space},
                                                                {"%p", pointer},
                                                                {"%e", to_bits(s, expected)},
                                                                {"%d", to_bits(s, desired)}});
    return from_bits(s, cas);
  }
  std::string value = emit_as(*e.items[v], st);
  if (d_.threads_are_loops() && at.space == sema::Space::Shared)
    return atomic_helper(op, s, space, true) + "(" + pointer + ", " + value + ")";
  int k = atomic_op_index(op);
  std::string_view native;
  if (k >= 0 && !sema::is_float(s)) native = (wide ? d_.atomic_int64 : d_.atomic_int32)[k];
  if (k == 0 && sema::is_float(s)) native = d_.atomic_float_add[wide ? 1 : 0];
  if (!native.empty()) {
    return "((" + T + ")" + fill_pattern(native, {{"%p", pointer}, {"%v", value}, {"%T", T}}) + ")";
  }
  return atomic_helper(op, s, space) + "(" + pointer + ", " + value + ")";
}

std::string Emitter::atomic_helper(std::string_view op, Scalar s, const std::string& space,
                                   bool plain) {
  bool wide = sema::bit_width(s) == 64;
  std::string T(d_.value_type(s));
  std::string B(d_.value_type(wide ? Scalar::UInt64 : Scalar::UInt32));
  std::string space_tag = space.empty() ? "" : space == std::string(d_.shared_space) ? "_l" : "_g";
  std::string name = "simt_atomic_" + std::string(op) + "_" + scalar_suffix(s) + space_tag +
                     (plain ? "_plain" : "");
  std::string next;
  if (op == "add" || op == "sub") {
    std::string o = op == "add" ? " + " : " - ";
    next = sema::is_float(s) ? "cur" + o + "v" : "(" + T + ")((" + B + ")cur" + o + "(" + B + ")v)";
  } else if (op == "min") {
    next = "(v < cur ? v : cur)";
  } else if (op == "max") {
    next = "(v > cur ? v : cur)";
  } else if (op == "nanmin") {
    next = "(cur != cur || v < cur ? v : cur)";
  } else if (op == "nanmax") {
    next = "(cur != cur || v > cur ? v : cur)";
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
  helpers_.define_once(name, std::string(d_.function_prefix) + T + " " + name + "(" + space + T +
                                 "* p, " + T + " v) {\n  " + B + " old = *(volatile " + space + B +
                                 "*)p;\n  for (;;) {\n    " + T + " cur = " + from_bits(s, "old") +
                                 ";\n    " + T + " next = " + next + ";\n    " + B +
                                 " seen = " + cas + ";\n    if (seen == old) return cur;\n" +
                                 "    old = seen;\n  }\n}\n");
  return name;
}

std::string Emitter::to_bits(Scalar s, const std::string& x) const {
  bool wide = sema::bit_width(s) == 64;
  std::string bits(d_.value_type(wide ? Scalar::UInt64 : Scalar::UInt32));
  if (!sema::is_float(s)) return "(" + bits + ")(" + x + ")";
  return "(" + bits + ")" + apply(wide ? d_.double_as_ulong : d_.float_as_uint, "", x);
}

std::string Emitter::from_bits(Scalar s, const std::string& x) const {
  bool wide = sema::bit_width(s) == 64;
  if (!sema::is_float(s)) return "((" + std::string(d_.value_type(s)) + ")(" + x + "))";
  return apply(wide ? d_.ulong_as_double : d_.uint_as_float, "", x);
}

}  // namespace simt::codegen::detail
