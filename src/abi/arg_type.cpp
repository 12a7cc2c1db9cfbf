#include "abi/arg_type.h"

#include <cctype>

#include "abi/text_cursor.h"

namespace simt::abi {

namespace {

constexpr char kScalarTag = 'S';
constexpr char kArrayTag = 'A';
constexpr int kReadonlyBit = 8;  // added to the layout byte

// A cursor over a type's text form; whitespace is insignificant.
struct TextParser {
  std::string_view text;
  Spelling spelling = Spelling::NumPy;
  size_t pos = 0;

  TextCursor cursor() { return {text, pos}; }
  void skip_space() { cursor().skip_space(); }
  bool eat(std::string_view token) { return cursor().eat(token); }
  std::string_view word() { return cursor().word(); }

  int depth = 0;
  Scalar scalar_type = Scalar::Int64;

  std::optional<ArgType> parse() {
    if (eat("(")) {
      if (++depth > kMaxTupleDepth) return std::nullopt;
      std::vector<ArgType> items;
      std::vector<std::string> fields;
      if (eat(")")) {
        --depth;
        return ArgType::tuple({});
      }
      while (true) {
        // `name=type` in a named tuple (all items named, or none).
        size_t before = pos;
        std::string_view field = word();
        if (!field.empty() && eat("=")) {
          if (fields.size() != items.size()) return std::nullopt;
          fields.emplace_back(field);
        } else {
          pos = before;
          if (!fields.empty()) return std::nullopt;
        }
        auto item = parse();
        if (!item) return std::nullopt;
        items.push_back(*item);
        if (eat(")")) break;
        if (!eat(",")) return std::nullopt;
        if (eat(")")) break;  // trailing comma: "(int32,)"
      }
      --depth;
      if (!fields.empty()) return ArgType::named_tuple(std::move(items), std::move(fields));
      return ArgType::tuple(std::move(items));
    }
    size_t before = pos;
    std::string_view name = word();
    bool readonly = false;
    if (name == "readonly") {
      readonly = true;
      before = pos;
      name = word();
    }
    RecordRef record;
    if (name == "record") {
      pos = before;
      auto r = parse_record(text, pos);
      if (!r) return std::nullopt;
      record = RecordRef(std::move(*r));
      if (!eat("[")) return ArgType::record_of(record, readonly);
    } else {
      auto scalar = scalar_from_name(name, spelling);
      if (!scalar) return std::nullopt;
      if (!eat("[")) {
        if (readonly) return std::nullopt;  // only arrays and records are read-only
        return ArgType::scalar_of(*scalar);
      }
      scalar_type = *scalar;
    }
    int ndim = 0;
    int unit_dim = -1;
    while (true) {
      if (eat("::1")) {
        if (unit_dim >= 0) return std::nullopt;
        unit_dim = ndim;
      } else if (!eat(":")) {
        return std::nullopt;
      }
      ++ndim;
      if (eat("]")) break;
      if (!eat(",")) return std::nullopt;
    }
    if (ndim > kMaxDims) return std::nullopt;
    Layout layout = Layout::Any;
    if (unit_dim == ndim - 1)
      layout = Layout::C;
    else if (unit_dim == 0)
      layout = Layout::F;
    else if (unit_dim >= 0)
      return std::nullopt;
    if (record) return ArgType::record_array(record, ndim, layout, readonly);
    return ArgType::array(scalar_type, ndim, layout, readonly);
  }
};

bool valid_scalar(uint8_t byte) { return byte < kScalarCount; }

}  // namespace

ArgType ArgType::scalar_of(abi::Scalar s) {
  ArgType t;
  t.scalar = s;
  return t;
}

ArgType ArgType::array(abi::Scalar dtype, int ndim, Layout layout, bool readonly) {
  ArgType t;
  t.kind = Kind::Array;
  t.scalar = dtype;
  t.ndim = static_cast<uint8_t>(ndim);
  t.layout = ndim <= 1 && layout == Layout::F ? Layout::C : layout;
  t.readonly = readonly;
  return t;
}

ArgType ArgType::named_tuple(std::vector<ArgType> items, std::vector<std::string> fields) {
  ArgType t = tuple(std::move(items));
  t.fields = std::move(fields);
  return t;
}

ArgType ArgType::record_array(RecordRef record, int ndim, Layout layout, bool readonly) {
  ArgType t = array(Scalar::UInt8, ndim, layout, readonly);
  t.record = std::move(record);
  return t;
}

ArgType ArgType::record_of(RecordRef record, bool readonly) {
  ArgType t;
  t.kind = Kind::Record;
  t.record = std::move(record);
  t.readonly = readonly;
  return t;
}

ArgType ArgType::tuple(std::vector<ArgType> items) {
  ArgType t;
  t.kind = Kind::Tuple;
  t.items = std::move(items);
  return t;
}

// One append per argument: every launch builds its key so, and a string's append
// checks its capacity once where `+=` of each byte checks it for each.
void append_scalar_key(std::string& key, Scalar scalar) {
  const char bytes[] = {kScalarTag, static_cast<char>(scalar)};
  key.append(bytes, sizeof bytes);
}

void append_array_key(std::string& key, Scalar dtype, int ndim, Layout layout, bool readonly) {
  const char bytes[] = {
      kArrayTag, static_cast<char>(dtype), static_cast<char>(ndim),
      static_cast<char>(static_cast<int>(layout) + (readonly ? kReadonlyBit : 0))};
  key.append(bytes, sizeof bytes);
}

void append_record_array_key(std::string& key, std::string_view record_bytes, int ndim,
                             Layout layout, bool readonly) {
  key += kArrayTag;
  key += static_cast<char>(kRecordDtype);
  key += static_cast<char>(ndim);
  key += static_cast<char>(static_cast<int>(layout) + (readonly ? kReadonlyBit : 0));
  key += record_bytes;
}

void append_record_key(std::string& key, std::string_view record_bytes, bool readonly) {
  key += kRecordTag;
  key += static_cast<char>(readonly ? 1 : 0);
  key += record_bytes;
}

void ArgType::encode(std::string& key) const {
  switch (kind) {
    case Kind::Scalar:
      append_scalar_key(key, scalar);
      return;
    case Kind::Array:
      if (record) {
        std::string bytes;
        encode_record(*record, bytes);
        append_record_array_key(key, bytes, ndim, layout, readonly);
        return;
      }
      append_array_key(key, scalar, ndim, layout, readonly);
      return;
    case Kind::Record: {
      std::string bytes;
      encode_record(*record, bytes);
      append_record_key(key, bytes, readonly);
      return;
    }
    case Kind::Tuple:
      key += fields.empty() ? kTupleBegin : kNamedTupleBegin;
      for (size_t k = 0; k < items.size(); ++k) {
        if (!fields.empty()) {
          key += static_cast<char>(fields[k].size());
          key += fields[k];
        }
        items[k].encode(key);
      }
      key += kTupleEnd;
      return;
  }
}

std::optional<ArgType> ArgType::decode(std::string_view key, size_t& pos, int depth) {
  if (pos >= key.size() || depth > kMaxTupleDepth) return std::nullopt;
  const char tag = key[pos++];
  auto byte = [&](uint8_t& out) {
    if (pos >= key.size()) return false;
    out = static_cast<uint8_t>(key[pos++]);
    return true;
  };
  if (tag == kScalarTag) {
    uint8_t s;
    if (!byte(s) || !valid_scalar(s)) return std::nullopt;
    return scalar_of(static_cast<Scalar>(s));
  }
  if (tag == kArrayTag) {
    uint8_t s, ndim, flags;
    if (!byte(s) || !byte(ndim) || !byte(flags) || (!valid_scalar(s) && s != kRecordDtype) ||
        ndim > kMaxDims)
      return std::nullopt;
    const int layout = flags & (kReadonlyBit - 1);
    if (layout > static_cast<int>(Layout::Any) || flags >= 2 * kReadonlyBit) return std::nullopt;
    const bool readonly = (flags & kReadonlyBit) != 0;
    if (s == kRecordDtype) {
      auto r = decode_record(key, pos);
      if (!r || ndim == 0) return std::nullopt;
      return record_array(RecordRef(std::move(*r)), ndim, static_cast<Layout>(layout), readonly);
    }
    return array(static_cast<Scalar>(s), ndim, static_cast<Layout>(layout), readonly);
  }
  if (tag == kRecordTag) {
    uint8_t flags;
    if (!byte(flags) || flags > 1) return std::nullopt;
    auto r = decode_record(key, pos);
    if (!r) return std::nullopt;
    return record_of(RecordRef(std::move(*r)), flags != 0);
  }
  if (tag == kTupleBegin || tag == kNamedTupleBegin) {
    std::vector<ArgType> items;
    std::vector<std::string> fields;
    while (pos < key.size() && key[pos] != kTupleEnd) {
      if (tag == kNamedTupleBegin) {
        uint8_t length;
        if (!byte(length) || pos + length > key.size()) return std::nullopt;
        fields.emplace_back(key.substr(pos, length));
        pos += length;
      }
      auto item = decode(key, pos, depth + 1);
      if (!item) return std::nullopt;
      items.push_back(std::move(*item));
    }
    if (pos >= key.size()) return std::nullopt;
    ++pos;
    if (tag == kNamedTupleBegin) return named_tuple(std::move(items), std::move(fields));
    return tuple(std::move(items));
  }
  return std::nullopt;
}

std::optional<std::vector<ArgType>> decode_arg_types(std::string_view key) {
  std::vector<ArgType> types;
  size_t pos = 0;
  while (pos < key.size()) {
    auto t = ArgType::decode(key, pos);
    if (!t) return std::nullopt;
    types.push_back(std::move(*t));
  }
  return types;
}

std::string ArgType::str() const {
  switch (kind) {
    case Kind::Scalar:
      return scalar_name(scalar);
    case Kind::Record:
      return (readonly ? "readonly " : "") + record->str();
    case Kind::Array: {
      std::string s = readonly ? "readonly " : "";
      s += (record ? record->str() : std::string(scalar_name(scalar))) + "[";
      for (int d = 0; d < ndim; ++d) {
        if (d) s += ", ";
        bool unit = (layout == Layout::C && d == ndim - 1) || (layout == Layout::F && d == 0);
        s += unit ? "::1" : ":";
      }
      return s + "]";
    }
    case Kind::Tuple: {
      std::string s = "(";
      for (size_t i = 0; i < items.size(); ++i)
        s += (i ? ", " : "") + (fields.empty() ? "" : fields[i] + "=") + items[i].str();
      if (items.size() == 1) s += ",";
      return s + ")";
    }
  }
  return "?";
}

namespace {

// NumPy's kinds in the order same_kind casting climbs them.
int kind_rank(Scalar s) {
  if (s == Scalar::Bool) return 0;
  if (is_integer(s)) return 1;
  return is_float(s) ? 2 : 3;
}

}  // namespace

bool converts_to(const ArgType& given, const ArgType& declared) {
  if (given.kind != declared.kind) return false;
  switch (given.kind) {
    case ArgType::Kind::Scalar:
      return kind_rank(given.scalar) <= kind_rank(declared.scalar);
    case ArgType::Kind::Array:
      if (given.scalar != declared.scalar || given.ndim != declared.ndim ||
          !(given.record == declared.record))
        return false;
      if (given.readonly && !declared.readonly) return false;
      return declared.layout == Layout::Any || given.layout == declared.layout;
    case ArgType::Kind::Record:
      return given.record == declared.record && (!given.readonly || declared.readonly);
    case ArgType::Kind::Tuple:
      if (given.items.size() != declared.items.size() || given.fields != declared.fields)
        return false;
      for (size_t i = 0; i < given.items.size(); ++i)
        if (!converts_to(given.items[i], declared.items[i])) return false;
      return true;
  }
  return false;
}

std::optional<ArgType> ArgType::parse(std::string_view text, Spelling spelling) {
  TextParser p{text, spelling};
  auto t = p.parse();
  p.skip_space();
  if (!t || p.pos != text.size()) return std::nullopt;
  return t;
}

}  // namespace simt::abi
