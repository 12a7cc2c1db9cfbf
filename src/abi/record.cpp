#include "abi/record.h"

#include <algorithm>
#include <cctype>
#include <set>

#include "abi/text_cursor.h"

namespace simt::abi {

namespace {

enum class FieldKind : uint8_t { Scalar, Record, Opaque };

FieldKind kind_of(const RecordField& f) {
  return !f.opaque.empty() ? FieldKind::Opaque : f.record ? FieldKind::Record : FieldKind::Scalar;
}

bool is_identifier(std::string_view name) {
  if (name.empty() || std::isdigit(static_cast<unsigned char>(name[0]))) return false;
  return std::all_of(name.begin(), name.end(), [](char c) {
    return std::isalnum(static_cast<unsigned char>(c)) || c == '_';
  });
}

// A name the text form can hold: quoted unless an identifier, so no quote, backslash or
// control character inside.
bool quotable(std::string_view name) {
  return std::all_of(name.begin(), name.end(), [](char c) {
    auto u = static_cast<unsigned char>(c);
    return u >= 0x20 && u != 0x7f && c != '\'' && c != '\\';
  });
}

std::string name_text(const std::string& name) {
  return is_identifier(name) ? name : "'" + name + "'";
}

void put_u32(std::string& key, uint32_t v) {
  for (int k = 0; k < 4; ++k) key += static_cast<char>((v >> (8 * k)) & 0xff);
}

// A cursor over key bytes.
struct KeyReader {
  std::string_view key;
  size_t& pos;

  bool byte(uint8_t& out) {
    if (pos >= key.size()) return false;
    out = static_cast<uint8_t>(key[pos++]);
    return true;
  }
  bool u32(uint32_t& out) {
    if (pos + 4 > key.size()) return false;
    out = 0;
    for (int k = 0; k < 4; ++k)
      out |= static_cast<uint32_t>(static_cast<uint8_t>(key[pos++])) << (8 * k);
    return true;
  }
  bool text(std::string& out) {
    uint8_t length;
    if (!byte(length) || pos + length > key.size()) return false;
    out.assign(key.substr(pos, length));
    pos += length;
    return true;
  }
};

// The record text's cursor: numbers (extents, byte counts) and quoted field names too.
struct TextReader : TextCursor {
  std::optional<uint32_t> number() {
    std::string_view digits = word();
    if (digits.empty() || digits.size() > 10 ||
        !std::all_of(digits.begin(), digits.end(),
                     [](char c) { return std::isdigit(static_cast<unsigned char>(c)); }))
      return std::nullopt;
    uint64_t v = std::stoull(std::string(digits));
    if (v > UINT32_MAX) return std::nullopt;
    return static_cast<uint32_t>(v);
  }
  std::optional<std::string> quoted() {
    skip_space();
    if (pos >= text.size() || text[pos] != '\'') return std::nullopt;
    size_t end = text.find('\'', pos + 1);
    if (end == std::string_view::npos) return std::nullopt;
    std::string out(text.substr(pos + 1, end - pos - 1));
    pos = end + 1;
    return out;
  }
  std::optional<std::string> name() {
    skip_space();
    if (pos < text.size() && text[pos] == '\'') return quoted();
    std::string_view w = word();
    if (w.empty()) return std::nullopt;
    return std::string(w);
  }
};

std::optional<Record> finish(Record r, uint32_t align, int depth) {
  if (layout_error(r, depth)) return std::nullopt;
  if (align == 0 || (align & (align - 1)) != 0) return std::nullopt;
  // What the layout allows of the alignment written (a key holds the settled one).
  settle_alignment(r, align);
  return r;
}

}  // namespace

RecordRef::RecordRef(Record record) : record_(std::make_shared<const Record>(std::move(record))) {}

bool RecordRef::operator==(const RecordRef& o) const {
  return record_ == o.record_ || (record_ && o.record_ && *record_ == *o.record_);
}

uint32_t RecordField::element_bytes() const {
  switch (kind_of(*this)) {
    case FieldKind::Opaque:
      return opaque_bytes;
    case FieldKind::Record:
      return record->itemsize;
    case FieldKind::Scalar:
      break;
  }
  return static_cast<uint32_t>(bit_width(scalar) / 8);
}

uint32_t RecordField::bytes() const {
  // Saturated: past any itemsize, which layout_error then reports.
  uint64_t n = element_bytes();
  for (uint32_t extent : shape) {
    if (extent != 0 && n > UINT32_MAX / extent) return UINT32_MAX;
    n *= extent;
  }
  return n > UINT32_MAX ? UINT32_MAX : static_cast<uint32_t>(n);
}

const RecordField* Record::find(std::string_view name) const {
  for (const auto& f : fields)
    if (f.name == name) return &f;
  return nullptr;
}

bool Record::same_layout(const Record& o) const {
  if (itemsize != o.itemsize || fields.size() != o.fields.size()) return false;
  for (size_t k = 0; k < fields.size(); ++k) {
    const RecordField &a = fields[k], &b = o.fields[k];
    if (a.name != b.name || a.offset != b.offset || a.scalar != b.scalar || a.shape != b.shape ||
        a.opaque != b.opaque || a.opaque_bytes != b.opaque_bytes ||
        static_cast<bool>(a.record) != static_cast<bool>(b.record) ||
        (a.record && !a.record->same_layout(*b.record)))
      return false;
  }
  return true;
}

std::string Record::str() const {
  std::string s = "record(";
  for (size_t k = 0; k < fields.size(); ++k) {
    const RecordField& f = fields[k];
    s += (k ? ", " : "") + name_text(f.name) + ": ";
    switch (kind_of(f)) {
      case FieldKind::Opaque:
        s += "opaque(" + std::to_string(f.opaque_bytes) + ", '" + f.opaque + "')";
        break;
      case FieldKind::Record:
        s += f.record->str();
        break;
      case FieldKind::Scalar:
        s += scalar_name(f.scalar);
        if (!f.shape.empty()) {
          s += "[";
          for (size_t d = 0; d < f.shape.size(); ++d)
            s += (d ? ", " : "") + std::to_string(f.shape[d]);
          s += "]";
        }
        break;
    }
    s += " @ " + std::to_string(f.offset);
  }
  return s + "; size " + std::to_string(itemsize) + ", align " + std::to_string(align) + ")";
}

uint32_t scalar_alignment(Scalar s) {
  return static_cast<uint32_t>(bit_width(s) / (is_complex(s) ? 16 : 8));
}

uint32_t natural_alignment(const Record& record) {
  uint32_t most = 1;
  for (const auto& f : record.fields) {
    if (f.is_scalar()) most = std::max(most, scalar_alignment(f.scalar));
    if (f.is_record()) most = std::max(most, natural_alignment(*f.record));
  }
  return most;
}

uint32_t low_bit(uint64_t n, uint32_t cap) {
  if (n == 0) return cap;
  uint64_t bit = n & (~n + 1);
  return bit < cap ? static_cast<uint32_t>(bit) : cap;
}

void settle_alignment(Record& record, uint32_t known) {
  record.align = low_bit(record.itemsize, std::min(known, natural_alignment(record)));
  for (auto& f : record.fields) {
    if (!f.is_record()) continue;
    Record nested = *f.record;
    settle_alignment(nested, low_bit(f.offset, record.align));
    f.record = RecordRef(std::move(nested));
  }
}

bool aligned_access(Scalar scalar, uint32_t offset, uint32_t align) {
  const uint32_t a = scalar_alignment(scalar);
  return a <= align && offset % a == 0;
}

std::optional<std::string> layout_error(const Record& record, int depth) {
  if (depth > kMaxRecordDepth)
    return "records nested more than " + std::to_string(kMaxRecordDepth) + " levels deep";
  if (record.fields.empty()) return std::string("a record without fields");
  if (record.fields.size() > kMaxRecordFields)
    return "a record of more than " + std::to_string(kMaxRecordFields) + " fields";
  if (record.itemsize == 0 || record.itemsize > kMaxRecordBytes)
    return "a record of " + std::to_string(record.itemsize) + " bytes";
  std::set<std::string_view> names;
  std::vector<const RecordField*> by_offset;
  for (const auto& f : record.fields) {
    if (f.name.empty() || f.name.size() > kMaxRecordName || !quotable(f.name))
      return "the field name '" + f.name + "' (names are 1 to " + std::to_string(kMaxRecordName) +
             " printable characters without quotes or backslashes)";
    if (!names.insert(f.name).second) return "two fields named '" + f.name + "'";
    if (f.shape.size() > static_cast<size_t>(kMaxFieldDims) || (!f.shape.empty() && !f.is_scalar()))
      return "the field '" + f.name + "' (an array of more than " + std::to_string(kMaxFieldDims) +
             " dimensions, or of records)";
    for (uint32_t extent : f.shape)
      if (extent == 0) return "the field '" + f.name + "' (an array without elements)";
    if (f.is_record()) {
      if (auto inner = layout_error(*f.record, depth + 1))
        return "the field '" + f.name + "': " + *inner;
    }
    if (!f.opaque.empty() && (f.opaque.size() > kMaxRecordName || !quotable(f.opaque)))
      return "the field '" + f.name + "' (its description)";
    if (static_cast<uint64_t>(f.offset) + f.bytes() > record.itemsize || f.bytes() == 0)
      return "the field '" + f.name + "' (bytes " + std::to_string(f.offset) + " to " +
             std::to_string(static_cast<uint64_t>(f.offset) + f.bytes()) + " of a record of " +
             std::to_string(record.itemsize) + ")";
    by_offset.push_back(&f);
  }
  std::sort(by_offset.begin(), by_offset.end(),
            [](const RecordField* a, const RecordField* b) { return a->offset < b->offset; });
  for (size_t k = 1; k < by_offset.size(); ++k) {
    const RecordField &a = *by_offset[k - 1], &b = *by_offset[k];
    if (a.offset + a.bytes() > b.offset)
      return "the fields '" + a.name + "' and '" + b.name +
             "' overlap (a union: kernels read each byte as one field's)";
  }
  return std::nullopt;
}

void encode_record(const Record& record, std::string& key) {
  put_u32(key, record.itemsize);
  put_u32(key, record.align);
  put_u32(key, static_cast<uint32_t>(record.fields.size()));
  for (const auto& f : record.fields) {
    key += static_cast<char>(f.name.size());
    key += f.name;
    put_u32(key, f.offset);
    const FieldKind kind = kind_of(f);
    key += static_cast<char>(kind);
    switch (kind) {
      case FieldKind::Opaque:
        put_u32(key, f.opaque_bytes);
        key += static_cast<char>(f.opaque.size());
        key += f.opaque;
        break;
      case FieldKind::Record:
        encode_record(*f.record, key);
        break;
      case FieldKind::Scalar:
        key += static_cast<char>(f.scalar);
        key += static_cast<char>(f.shape.size());
        for (uint32_t extent : f.shape) put_u32(key, extent);
        break;
    }
  }
}

std::optional<Record> decode_record(std::string_view key, size_t& pos, int depth) {
  if (depth > kMaxRecordDepth) return std::nullopt;
  KeyReader in{key, pos};
  Record r;
  uint32_t align, count;
  if (!in.u32(r.itemsize) || !in.u32(align) || !in.u32(count) || count > kMaxRecordFields)
    return std::nullopt;
  for (uint32_t k = 0; k < count; ++k) {
    RecordField f;
    uint8_t kind;
    if (!in.text(f.name) || !in.u32(f.offset) || !in.byte(kind)) return std::nullopt;
    switch (static_cast<FieldKind>(kind)) {
      case FieldKind::Opaque:
        if (!in.u32(f.opaque_bytes) || !in.text(f.opaque) || f.opaque.empty()) return std::nullopt;
        break;
      case FieldKind::Record: {
        auto nested = decode_record(key, pos, depth + 1);
        if (!nested) return std::nullopt;
        f.record = RecordRef(std::move(*nested));
        break;
      }
      case FieldKind::Scalar: {
        uint8_t s, ndim;
        if (!in.byte(s) || s >= kScalarCount || !in.byte(ndim) || ndim > kMaxFieldDims)
          return std::nullopt;
        f.scalar = static_cast<Scalar>(s);
        f.shape.resize(ndim);
        for (auto& extent : f.shape)
          if (!in.u32(extent)) return std::nullopt;
        break;
      }
      default:
        return std::nullopt;
    }
    r.fields.push_back(std::move(f));
  }
  return finish(std::move(r), align, depth);
}

std::optional<Record> parse_record(std::string_view text, size_t& pos, int depth) {
  if (depth > kMaxRecordDepth) return std::nullopt;
  TextReader in{{text, pos}};
  if (in.word() != "record" || !in.eat("(")) return std::nullopt;
  Record r;
  while (true) {
    RecordField f;
    auto name = in.name();
    if (!name || !in.eat(":")) return std::nullopt;
    f.name = std::move(*name);
    size_t before = pos;
    std::string_view type = in.word();
    if (type == "record") {
      pos = before;
      auto nested = parse_record(text, pos, depth + 1);
      if (!nested) return std::nullopt;
      f.record = RecordRef(std::move(*nested));
    } else if (type == "opaque") {
      auto bytes = in.eat("(") ? in.number() : std::nullopt;
      auto description = bytes && in.eat(",") ? in.quoted() : std::nullopt;
      if (!description || description->empty() || !in.eat(")")) return std::nullopt;
      f.opaque_bytes = *bytes;
      f.opaque = std::move(*description);
    } else {
      auto scalar = scalar_from_name(type);
      if (!scalar) return std::nullopt;
      f.scalar = *scalar;
      if (in.eat("[")) {
        do {
          auto extent = in.number();
          if (!extent || f.shape.size() >= static_cast<size_t>(kMaxFieldDims)) return std::nullopt;
          f.shape.push_back(*extent);
        } while (in.eat(","));
        if (!in.eat("]")) return std::nullopt;
      }
    }
    auto offset = in.eat("@") ? in.number() : std::nullopt;
    if (!offset || r.fields.size() >= kMaxRecordFields) return std::nullopt;
    f.offset = *offset;
    r.fields.push_back(std::move(f));
    if (in.eat(";")) break;
    if (!in.eat(",")) return std::nullopt;
  }
  if (in.word() != "size") return std::nullopt;
  auto size = in.number();
  if (!size || !in.eat(",") || in.word() != "align") return std::nullopt;
  auto align = in.number();
  if (!align || !in.eat(")")) return std::nullopt;
  r.itemsize = *size;
  return finish(std::move(r), *align, depth);
}

}  // namespace simt::abi
