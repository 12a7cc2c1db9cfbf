// Attributes, array elements and views: indices wrap like Python's unless
// known nonnegative, and elements convert between storage and registers.
#include <stdexcept>

#include "codegen/emitter_impl.h"

namespace simt::codegen::detail {

std::string Emitter::attribute(const Expr& e) {
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

std::string Emitter::element_ref(const Expr& e) {
  const Expr& base = *e.items[0];
  const Type& bt = info(base).type;
  std::string a = expr(base);
  std::vector<std::string> idx = indices(e, a, bt);
  return a + ".data[" + offset(a, bt, idx) + "]";
}

std::vector<std::string> Emitter::indices(const Expr& e, const std::string& a, const Type&) {
  const Expr& index = *e.items[1];
  std::vector<const Expr*> items;
  if (index.kind == ExprKind::Tuple) {
    for (const auto& it : index.items) items.push_back(it.get());
  } else {
    items.push_back(&index);
  }
  std::vector<std::string> out;
  Type i64 = Type::scalar_of(Scalar::Int64);
  for (size_t k = 0; k < items.size(); ++k)
    out.push_back(
        index_into(emit_as(*items[k], i64), info(*items[k]).nonnegative, a, k, *e.items[0]));
  return out;
}

std::vector<std::string> Emitter::index_list(const Expr& array, const Expr& index,
                                             const std::string& a) {
  Type i64 = Type::scalar_of(Scalar::Int64);
  std::vector<std::string> out;
  const Type& t = info(index).type;
  if (!t.is_tuple()) {
    out.push_back(index_into(emit_as(index, i64), info(index).nonnegative, a, 0, array));
    return out;
  }
  if (index.kind == ExprKind::Tuple) {
    for (size_t k = 0; k < index.items.size(); ++k)
      out.push_back(index_into(emit_as(*index.items[k], i64), info(*index.items[k]).nonnegative, a,
                               k, array));
    return out;
  }
  std::vector<std::string> parts = values(index);
  for (size_t k = 0; k < parts.size(); ++k)
    out.push_back(index_into(convert(parts[k], t.items[k], i64), false, a, k, array));
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
  const Expr& base = *e.items[0];
  const Type& bt = info(base).type;
  const Type& rt = info(e).type;
  if (bt.is_tuple()) {
    auto parts = values(base);
    const ExprInfo& ii = info(*e.items[1]);
    if (ii.constant) {
      int64_t k = ii.constant->int_value;
      if (k < 0) k += static_cast<int64_t>(bt.items.size());
      return parts[item_offset(bt, k)];
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

std::string Emitter::view(const Expr& e, const Type& bt, const Type& rt) {
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
