// Attributes, array elements and views: indices wrap like Python's unless
// known nonnegative, and elements convert between storage and registers.
#include <stdexcept>

#include "codegen/emitter_impl.h"

namespace simt::codegen::detail {

size_t Emitter::field_index(const Type& tuple, const std::string& field) {
  for (size_t k = 0; k < tuple.fields.size(); ++k)
    if (tuple.fields[k] == field) return k;
  throw std::logic_error("no field " + field);
}

IndexObject Emitter::index_object(const Type& dim3) {
  return dim3.name == "thread_idx"  ? IndexObject::ThreadIdx
         : dim3.name == "block_idx" ? IndexObject::BlockIdx
         : dim3.name == "block_dim" ? IndexObject::BlockDim
                                    : IndexObject::GridDim;
}

std::string Emitter::attribute(const Expr& e) {
  if (const sema::Intrinsic* fn = info(e).intrinsic) {  // simt.laneid, simt.warpsize
    // Lanes are 32 consecutive threads on every backend: these two need no
    // warp operation (OpenCL devices have them too).
    if (fn->rule == sema::Rule::LaneId) return lane_id();
    return d_.warpsize.empty() ? "32" : "((int)" + std::string(d_.warpsize) + ")";
  }
  const Type& bt = info(*e.items[0]).type;
  if (bt.kind == TypeKind::Dim3) return index_value(index_object(bt), e.name[0] - 'x');
  if (bt.is_tuple()) return values(*e.items[0])[item_offset(bt, field_index(bt, e.name))];
  if (bt.is_record()) return record_field(e);
  std::string base = expr(*e.items[0]);
  if (bt.is_array() && e.name == "size") {
    std::string out;
    for (int d = 0; d < bt.ndim; ++d)
      out += (d ? " * " : "") + base + ".shape[" + std::to_string(d) + "]";
    return "(" + out + ")";
  }
  if (bt.is_array() && (e.name == "real" || e.name == "imag")) {
    if (!sema::is_complex(bt.scalar)) return base;  // a real array's .real: itself
    return complex_part_view(bt, info(e).type, base, e.name == "imag");
  }
  if (bt.is_scalar()) return "(" + base + ")." + (e.name == "real" ? "re" : "im");
  throw std::logic_error("attribute");
}

std::string Emitter::ufunc_into(std::string_view c_name, Scalar s, const Expr& x, const Expr& out) {
  // A function per (operation, x's type, out's type) loops over out's indices in C order,
  // reads x there (or takes the number), computes in `s` as the scalar call does,
  // converts to out's dtype and stores; it returns out, the call's value.
  const Type& xt = info(x).type;
  const Type& ot = info(out).type;
  const bool number = xt.is_scalar();
  std::string to = helpers_.array_struct(ot);
  std::string from =
      number ? std::string(d_.value_type(sema::concrete(xt))) : helpers_.array_struct(xt);
  auto layout = [](const Type& t) {
    return t.layout == sema::Layout::C ? "c" : t.layout == sema::Layout::F ? "f" : "a";
  };
  std::string name = "simt_ufunc_" + std::string(c_name) + "_" +
                     (number ? "n" + from : from.substr(9) + layout(xt)) + "_" + to.substr(9) +
                     layout(ot) + "_" + std::string(d_.value_type(s));
  for (char& c : name)
    if (c == ' ') c = '_';
  if (views_.insert(name).second) {
    std::vector<std::string> idx, xidx;
    std::string code, indent = "  ";
    // NumPy's broadcasting of x's extents of 1; extents that do not broadcast
    // write nothing, as Numba's kernel stops at its ValueError without debug.
    for (int d = 0; !number && d < ot.ndim; ++d) {
      std::string k = std::to_string(d);
      code += "  if (x.shape[" + k + "] != 1 && x.shape[" + k + "] != out.shape[" + k +
              "]) return out;\n";
      xidx.push_back("(x.shape[" + k + "] == 1 ? 0 : i" + k + ")");
    }
    for (int d = 0; d < ot.ndim; ++d) {
      std::string k = std::to_string(d);
      idx.push_back("i" + k);
      code += indent + "for (simt_i64 i" + k + " = 0; i" + k + " < out.shape[" + k + "]; ++i" + k +
              ")\n";
      indent += "  ";
    }
    Type st = Type::scalar_of(s);
    std::string value =
        number ? "x" : load_storage("x.data[" + offset("x", xt, xidx) + "]", xt.scalar);
    Type element = number ? xt : Type::scalar_of(xt.scalar);
    std::string result = math_call(c_name, s, convert(value, element, st));
    std::string stored =
        store_conversion(convert(result, st, Type::scalar_of(ot.scalar)), ot.scalar);
    code += indent + "out.data[" + offset("out", ot, idx) + "] = " + stored + ";\n";
    view_code_ += std::string(d_.function_prefix) + to + " " + name + "(" + from + " x, " + to +
                  " out) {\n" + code + "  return out;\n}\n\n";
  }
  return name + "(" + (number ? emit_as(x, xt) : expr(x)) + ", " + expr(out) + ")";
}

std::string Emitter::complex_part_view(const Type& bt, const Type& rt, const std::string& a,
                                       bool imag) {
  // The parts' array: the complex array's memory read as pairs of floats,
  // twice its strides (strides count elements), offset by one for imag.
  std::string from = helpers_.array_struct(bt);
  std::string to = helpers_.array_struct(rt);
  std::string name = "simt_" + std::string(imag ? "imag" : "real") + "_" + from.substr(9);
  if (views_.insert(name).second) {
    std::string pointer = std::string(d_.pointer_space(rt.space)) + helpers_.element_type(rt) + "*";
    std::string code = std::string(d_.function_prefix) + to + " " + name + "(" + from +
                       " a) {\n  " + to + " v;\n  v.data = (" + pointer + ")a.data + " +
                       (imag ? "1" : "0") + ";\n";
    for (int d = 0; d < bt.ndim; ++d) {
      std::string k = std::to_string(d);
      code += "  v.shape[" + k + "] = a.shape[" + k + "];\n  v.strides[" + k +
              "] = 2 * a.strides[" + k + "];\n";
    }
    view_code_ += code + "  return v;\n}\n\n";
  }
  return name + "(" + a + ")";
}

void Emitter::hoist_reshape(const Expr& e) {
  const Expr& array = *e.items[0]->items[0];  // the receiver of a.reshape(...)
  const Type& bt = info(array).type;
  const Type& rt = info(e).type;
  std::string from = helpers_.array_struct(bt);
  std::string to = helpers_.array_struct(rt);
  std::string name = "simt_reshape_" + from.substr(9) + "_" + std::to_string(rt.ndim);
  if (views_.insert(name).second) {
    // NumPy's rule: at most one -1, inferred from the others; the sizes
    // equal. A failure says so by a negative first extent.
    std::string n = std::to_string(rt.ndim), code;
    std::string params = from + " a";
    for (int d = 0; d < rt.ndim; ++d) params += ", simt_i64 d" + std::to_string(d);
    code += "  " + to + " v;\n  v.data = a.data;\n  simt_i64 size = 1, known = 1;\n";
    for (int d = 0; d < bt.ndim; ++d) code += "  size *= a.shape[" + std::to_string(d) + "];\n";
    for (int d = 0; d < rt.ndim; ++d)
      code += "  v.shape[" + std::to_string(d) + "] = d" + std::to_string(d) + ";\n";
    code += "  int unknown = -1, bad = 0;\n  for (int k = 0; k < " + n +
            "; ++k) {\n    if (v.shape[k] == -1) { bad |= unknown >= 0; unknown = k; }\n"
            "    else if (v.shape[k] < 0) bad = 1;\n    else known *= v.shape[k];\n  }\n"
            "  if (unknown >= 0) {\n    if (known == 0 || size % known != 0) bad = 1;\n"
            "    else v.shape[unknown] = size / known;\n  } else if (known != size) {\n"
            "    bad = 1;\n  }\n  simt_i64 stride = 1;\n  for (int k = " +
            n +
            " - 1; k >= 0; --k) {\n    v.strides[k] = stride;\n    stride *= v.shape[k];\n  }\n"
            "  if (bad) v.shape[0] = -1 - size;\n";
    view_code_ += std::string(d_.function_prefix) + to + " " + name + "(" + params + ") {\n" +
                  code + "  return v;\n}\n\n";
  }
  std::vector<std::string> dims;
  const Type i64 = Type::scalar_of(Scalar::Int64);
  if (e.items.size() == 2 && info(*e.items[1]).type.is_tuple()) {
    const Type& tt = info(*e.items[1]).type;
    std::vector<std::string> parts = values(*e.items[1]);
    for (size_t k = 0; k < parts.size(); ++k) dims.push_back(convert(parts[k], tt.items[k], i64));
  } else {
    for (size_t k = 1; k < e.items.size(); ++k) dims.push_back(emit_as(*e.items[k], i64));
  }
  std::string tmp = "simt_tmp" + std::to_string(temp_counter_++);
  line(to + " " + tmp + " = " + name + "(" + expr(array) + (dims.empty() ? "" : ", ") +
       join_list(dims) + ");");
  line("if (" + tmp + ".shape[0] < 0) {");
  ++indent_;
  if (options_.debug) {
    int site = check_site(abi::CheckSite::Kind::Reshape, e.span, source_text(array.span));
    line(check_failure(abi::CheckSite::Kind::Reshape, site, "-1 - " + tmp + ".shape[0]"));
  }
  stop_thread();
  --indent_;
  line("}");
  hoisted_[&e] = {tmp};
}

std::string Emitter::element_ref(const Expr& e, std::optional<abi::RaceSite::Kind> race) {
  const Expr& base = sema::subscript_base(e);
  const Type& bt = info(base).type;
  std::string a = expr(base);
  std::vector<std::string> idx = indices(e, a, bt);
  std::string ref = a + ".data[" + offset(a, bt, idx) + "]";
  if (race) ref = race_ref(ref, a, base, *race);
  // A packed array's element is its wrapper's member (emit_records.cpp).
  return ref + (bt.packed ? ".v" : "");
}

std::string Emitter::target_ref(const Expr& target) {
  if (sema::record_field_of(fn_, target)) return field_ref(target);
  return element_ref(target, abi::RaceSite::Kind::Write);
}

std::vector<std::string> Emitter::indices(const Expr& e, const std::string& a, const Type&) {
  return index_list(sema::subscript_base(e), sema::subscript_index(e), a);
}

std::vector<std::string> Emitter::index_list(const Expr& array, const Expr& index,
                                             const std::string& a) {
  Type i64 = Type::scalar_of(Scalar::Int64);
  std::vector<std::string> out;
  // A tuple display (whose own type subscripts leave unknown), a tuple
  // value, or one integer.
  if (index.kind == ExprKind::Tuple) {
    for (size_t k = 0; k < index.items.size(); ++k)
      out.push_back(index_into(emit_as(*index.items[k], i64), known_nonnegative(*index.items[k]), a,
                               k, array));
    return out;
  }
  const Type& t = info(index).type;
  if (!t.is_tuple()) {
    out.push_back(index_into(emit_as(index, i64), known_nonnegative(index), a, 0, array));
    return out;
  }
  std::vector<std::string> parts = values(index);
  for (size_t k = 0; k < parts.size(); ++k)
    out.push_back(
        index_into(convert(parts[k], t.items[k], i64), info(index).nonnegative, a, k, array));
  return out;
}

std::string Emitter::offset(const std::string& a, const Type& t,
                            const std::vector<std::string>& idx) {
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

std::string Emitter::subscript(const Expr& e) {
  const Expr& base = sema::subscript_base(e);
  const Type& bt = info(base).type;
  const Type& rt = info(e).type;
  if (bt.is_tuple()) {
    auto parts = values(base);
    const ExprInfo& ii = info(sema::subscript_index(e));
    if (ii.constant) {
      int64_t k = ii.constant->int_value;
      if (k < 0) k += static_cast<int64_t>(bt.items.size());
      return parts[item_offset(bt, k)];
    }
    std::string k = "simt_k" + std::to_string(temp_counter_++);
    std::string idx = emit_as(sema::subscript_index(e), Type::scalar_of(Scalar::Int64));
    std::string wrapped = tuple_index(idx, parts.size(), base);
    // One value: no choice to make, but a checked kernel still checks the index.
    if (parts.size() == 1)
      return checked() ? "((void)" + wrapped + ", " + parts[0] + ")" : parts[0];
    // One flat chain, `?:` being right-associative: parentheses around each choice nested
    // as deep as the tuple is long, past the 256 levels compilers take (Clang's
    // -fbracket-depth).
    std::string out = "(";
    for (size_t j = 0; j + 1 < parts.size(); ++j)
      out += wrapped + " == " + std::to_string(j) + " ? " + parts[j] + " : ";
    return out + "(" + parts.back() + "))";
  }
  if (bt.is_record()) return record_field(e);
  if (rt.is_array()) return view(e, bt, rt);
  if (rt.is_record()) return "(&" + element_ref(e) + ")";  // a reference to the record
  return load_storage(element_ref(e, abi::RaceSite::Kind::Read), bt.scalar);
}

std::string Emitter::view(const Expr& e, const Type& bt, const Type& rt) {
  std::string a = expr(sema::subscript_base(e));
  const Expr& index = sema::subscript_index(e);
  std::vector<const Expr*> displayed;
  if (index.kind == ExprKind::Tuple) {
    for (const auto& item : index.items) displayed.push_back(item.get());
  } else {
    displayed.push_back(&index);
  }
  // Integer indices are wrapped (or checked) here, against their axes, and
  // become the offset; a slice's bounds go to the view function, which
  // clamps them as NumPy does. The function is named by the pattern of
  // indices: `i` an integer, `s` and three digits a slice with its start,
  // stop and step written (1) or omitted (0).
  Type i64 = Type::scalar_of(Scalar::Int64);
  std::string off, pattern, args;
  std::vector<std::string> slice_axes;  // per slice: "axis,start?,stop?,step?"
  size_t axis = 0;
  auto add_index = [&](const std::string& idx) {
    off += (off.empty() ? "" : " + ") + idx + " * " + a + ".strides[" + std::to_string(axis) + "]";
    pattern += "i";
    ++axis;
  };
  for (const Expr* i : displayed) {
    if (i->kind == ExprKind::Slice) {
      std::string code = "s";
      for (size_t k = 0; k < 3; ++k) {
        const Expr* part = i->items[k].get();
        bool given = part && info(*part).type.kind != TypeKind::None;
        code += given ? "1" : "0";
        if (given)
          args += ", " + emit_as(*part, i64);
        else if (k == 2)
          args += ", (simt_i64)1";
      }
      pattern += code;
      slice_axes.push_back(std::to_string(axis) + code);
      ++axis;
      continue;
    }
    const Type& it = info(*i).type;
    if (it.is_tuple()) {
      std::vector<std::string> parts = values(*i);
      for (size_t k = 0; k < parts.size(); ++k)
        add_index(index_into(convert(parts[k], it.items[k], i64), info(*i).nonnegative, a, axis,
                             sema::subscript_base(e)));
      continue;
    }
    add_index(
        index_into(emit_as(*i, i64), known_nonnegative(*i), a, axis, sema::subscript_base(e)));
  }
  if (off.empty()) off = "0";
  return view_call(bt, rt, a, off, pattern, args);
}

std::string Emitter::view_call(const Type& bt, const Type& rt, const std::string& a,
                               const std::string& off, const std::string& pattern,
                               const std::string& args) {
  // Integer indices only: the function is named by their count.
  const bool only_integers = pattern.find('s') == std::string::npos;
  std::string from = helpers_.array_struct(bt);
  std::string to = helpers_.array_struct(rt);
  std::string name = "simt_view_" + from.substr(9) + "_" +
                     (only_integers ? std::to_string(pattern.size()) : pattern);
  if (views_.insert(name).second) {
    std::string params = from + " a, simt_i64 offset";
    std::string code = "  " + to + " v;\n  v.data = a.data + offset;\n";
    int d = 0;
    size_t from_axis = 0;
    for (size_t k = 0; k < pattern.size(); ++from_axis) {
      if (pattern[k] == 'i') {
        ++k;
        continue;
      }
      bool start = pattern[k + 1] == '1', stop = pattern[k + 2] == '1';
      k += 4;
      std::string s = std::to_string(from_axis), dd = std::to_string(d++);
      std::string n = "a.shape[" + s + "]", st = "step" + s;
      if (start) params += ", simt_i64 start" + s;
      if (stop) params += ", simt_i64 stop" + s;
      params += ", simt_i64 " + st;  // the caller passes 1 for an omitted step
      std::string clamp = helpers_.use(Helper::SliceClamp, Scalar::Int64);
      std::string lo = start ? clamp + "(start" + s + ", " + n + ", " + st + ")"
                             : "(" + st + " < 0 ? " + n + " - 1 : 0)";
      std::string hi = stop ? clamp + "(stop" + s + ", " + n + ", " + st + ")"
                            : "(" + st + " < 0 ? (simt_i64)-1 : " + n + ")";
      code += "  {\n    simt_i64 lo = " + lo + ", hi = " + hi + ";\n    v.shape[" + dd +
              "] = " + helpers_.use(Helper::SliceLength, Scalar::Int64) + "(lo, hi, " + st +
              ");\n    v.strides[" + dd + "] = a.strides[" + s + "] * " + st +
              ";\n    v.data += lo * a.strides[" + s + "];\n  }\n";
    }
    for (; static_cast<int>(from_axis) < bt.ndim; ++from_axis, ++d) {
      std::string src = std::to_string(from_axis), dd = std::to_string(d);
      code += "  v.shape[" + dd + "] = a.shape[" + src + "];\n  v.strides[" + dd +
              "] = a.strides[" + src + "];\n";
    }
    view_code_ += std::string(d_.function_prefix) + to + " " + name + "(" + params + ") {\n" +
                  code + "  return v;\n}\n\n";
  }
  return name + "(" + a + ", " + off + args + ")";
}

std::string Emitter::load_storage(const std::string& ref, Scalar s) {
  if (sema::is_bool(s)) return "(" + ref + " != 0)";
  if (s == Scalar::Float16) return helpers_.use(Helper::HalfToFloat, s) + "(" + ref + ")";
  return ref;
}

std::string Emitter::store_conversion(const std::string& value, Scalar s) {
  if (sema::is_bool(s)) return "(" + std::string(d_.storage_type(s)) + ")(" + value + ")";
  if (s == Scalar::Float16) return helpers_.use(Helper::FloatToHalf, s) + "(" + value + ")";
  return value;
}

}  // namespace simt::codegen::detail
