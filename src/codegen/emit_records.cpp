// Records of record dtypes. A record is its bytes (HelperSet::record_struct: a struct of
// `itemsize` chars, aligned as the record's type says), a record reference a pointer to
// them, and a field the bytes at its offset read as the field's type: with that type's
// own loads where the record's alignment and the offset make them aligned, else through
// the packed wrapper (HelperSet::packed_struct), which compilers read and write byte by
// byte. So every layout NumPy makes, packed ones included, is read exactly as NumPy lays
// it out, on every backend.
#include <stdexcept>

#include "codegen/emitter_impl.h"

namespace simt::codegen::detail {

namespace {

// The record reference a field access reads from: `r` of `r.x`, `r['x']`, `r[0]`.
const Expr& field_base(const Expr& e) {
  return e.kind == ExprKind::Attribute ? *e.items[0] : sema::subscript_base(e);
}

}  // namespace

std::string Emitter::record_pointer(const Type& t) {
  return std::string(d_.pointer_space(t.space)) + helpers_.record_struct(*t.record) + "*";
}

std::string Emitter::field_bytes(const Expr& e, const abi::RecordField& f) {
  std::string base = "(" + expr(field_base(e)) + ")->simt_bytes";
  return f.offset == 0 ? base : "(" + base + " + " + std::to_string(f.offset) + ")";
}

std::string Emitter::field_ref(const Expr& e) {
  const abi::RecordField* f = sema::record_field_of(fn_, e);
  if (!f) throw std::logic_error("not a record field");
  return field_ref_at(field_bytes(e, *f), info(field_base(e)).type, *f);
}

std::string Emitter::field_ref_at(const std::string& bytes, const Type& record,
                                  const abi::RecordField& f) {
  const std::string space(d_.pointer_space(record.space));
  if (abi::aligned_access(f.scalar, f.offset, record.record->align))
    return "(*(" + space + std::string(d_.storage_type(f.scalar)) + "*)" + bytes + ")";
  return "(((" + space + helpers_.packed_struct(f.scalar) + "*)" + bytes + ")->v)";
}

std::string Emitter::record_field(const Expr& e) {
  const abi::RecordField* f = sema::record_field_of(fn_, e);
  if (!f) throw std::logic_error("not a record field");
  const Type& t = info(e).type;
  if (t.is_scalar()) return load_storage(field_ref(e), f->scalar);
  if (t.is_record()) return "((" + record_pointer(t) + ")" + field_bytes(e, *f) + ")";
  // An array field: a view of its elements, its extents and strides constants.
  const std::string space(d_.pointer_space(t.space));
  const std::string element = helpers_.element_type(t);
  const std::string view = helpers_.array_struct(t);
  std::string name = "simt_field_" + view.substr(9);
  for (size_t d = 0; d < f->shape.size(); ++d)
    name += (d ? "x" : "_") + std::to_string(f->shape[d]);
  if (views_.insert(name).second) {
    std::string code = "  " + view + " v;\n  v.data = data;\n";
    int64_t stride = 1;
    for (size_t d = f->shape.size(); d-- > 0;) {
      const std::string k = std::to_string(d);
      code += "  v.shape[" + k + "] = " + std::to_string(f->shape[d]) + ";\n  v.strides[" + k +
              "] = " + std::to_string(stride) + ";\n";
      stride *= f->shape[d];
    }
    view_code_ += std::string(d_.function_prefix) + view + " " + name + "(" + space + element +
                  "* data) {\n" + code + "  return v;\n}\n\n";
  }
  return name + "((" + space + element + "*)" + field_bytes(e, *f) + ")";
}

void Emitter::store_tuple_in_record(const Expr& target, const std::vector<std::string>& parts,
                                    const Type& vt) {
  const Type& element = info(target).type;
  const std::string record = "simt_record" + std::to_string(temp_counter_++);
  line("{");
  ++indent_;
  line(record_pointer(element) + " " + record + " = " + expr(target) + ";");
  const auto& fields = element.record->fields;
  for (size_t k = 0; k < fields.size(); ++k) {
    const abi::RecordField& f = fields[k];
    std::string bytes = record + "->simt_bytes";
    if (f.offset) bytes = "(" + bytes + " + " + std::to_string(f.offset) + ")";
    line(field_ref_at(bytes, element, f) + " = " +
         store_conversion(convert(parts[k], vt.items[k], Type::scalar_of(f.scalar)), f.scalar) +
         ";");
  }
  --indent_;
  line("}");
}

void Emitter::store_array_field(const Expr& target, const std::string& value, const Type& vt,
                                const Expr* source) {
  const Type& field = info(target).type;
  const abi::RecordField* f = sema::record_field_of(fn_, target);
  const std::string n = std::to_string(temp_counter_++);
  const std::string dst = "simt_field" + n, src = "simt_source" + n;
  line("{");
  ++indent_;
  line(ctype(field) + " " + dst + " = " + record_field(target) + ";");
  if (vt.is_array()) line(ctype(vt) + " " + src + " = " + value + ";");
  std::string at_dst, at_src;
  for (size_t d = 0; d < f->shape.size(); ++d) {
    const std::string j = "simt_j" + n + "_" + std::to_string(d), k = std::to_string(d);
    line("for (simt_i64 " + j + " = 0; " + j + " < " + std::to_string(f->shape[d]) + "; ++" + j +
         ")");
    at_dst += (d ? " + " : "") + j + " * " + dst + ".strides[" + k + "]";
    // The source is indexed as any array is: checked in checked kernels.
    const std::string i = source ? index_into(j, true, src, d, *source) : j;
    at_src += (d ? " + " : "") + i + " * " + src + ".strides[" + k + "]";
  }
  std::string element =
      vt.is_array()
          ? load_storage(src + ".data[" + at_src + "]" + (vt.packed ? ".v" : ""), vt.scalar)
          : value;
  const Type from = vt.is_array() ? vt.element() : vt;
  line("  " + dst + ".data[" + at_dst + "]" + (field.packed ? ".v" : "") + " = " +
       store_conversion(convert(element, from, field.element()), field.scalar) + ";");
  --indent_;
  line("}");
}

std::string Emitter::record_copy(const std::string& dst, const Type& dst_type,
                                 const std::string& src, const Type& src_type) {
  // One struct type (one layout, one alignment): C copies it whole; else byte by byte
  // (the same layout at another alignment).
  if (dst_type.record == src_type.record) return "*(" + dst + ") = *(" + src + ");";
  const std::string n = std::to_string(dst_type.record->itemsize);
  return "for (int simt_k = 0; simt_k < " + n + "; ++simt_k) (" + dst +
         ")->simt_bytes[simt_k] = (" + src + ")->simt_bytes[simt_k];";
}

}  // namespace simt::codegen::detail
