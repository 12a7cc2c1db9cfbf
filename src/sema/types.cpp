#include "sema/types.h"

#include <algorithm>
#include <cctype>

namespace simt::sema {

namespace {

Scalar signed_of_bits(int bits) {
  switch (bits) {
    case 8:
      return Scalar::Int8;
    case 16:
      return Scalar::Int16;
    case 32:
      return Scalar::Int32;
    default:
      return Scalar::Int64;
  }
}

// The smallest float (or complex) type that holds every value of an integer
// type, as NumPy's can_cast(int, float, "safe") decides.
Scalar float_holding(Scalar integer) {
  int bits = bit_width(integer);
  if (bits <= 8) return Scalar::Float16;
  if (bits <= 16) return Scalar::Float32;
  return Scalar::Float64;
}

Scalar wider(Scalar a, Scalar b) { return static_cast<int>(a) >= static_cast<int>(b) ? a : b; }

Scalar promote_strong(Scalar a, Scalar b) {
  if (a == b) return a;
  if (is_bool(a)) return b;
  if (is_bool(b)) return a;
  if (is_integer(a) && is_integer(b)) {
    if (is_signed(a) == is_signed(b)) return bit_width(a) >= bit_width(b) ? a : b;
    Scalar s = is_signed(a) ? a : b;
    Scalar u = is_signed(a) ? b : a;
    if (bit_width(u) < bit_width(s)) return s;
    if (bit_width(u) < 64) return signed_of_bits(bit_width(u) * 2);
    return Scalar::Float64;
  }
  if (is_integer(a) || is_integer(b)) {
    Scalar integer = is_integer(a) ? a : b;
    Scalar other = is_integer(a) ? b : a;
    Scalar holding = float_holding(integer);
    if (is_float(other)) return wider(other, holding);
    return complex_of(wider(real_of(other), holding));
  }
  if (is_complex(a) || is_complex(b)) {
    Scalar ra = is_complex(a) ? real_of(a) : a;
    Scalar rb = is_complex(b) ? real_of(b) : b;
    return complex_of(wider(ra, rb));
  }
  return wider(a, b);
}

// A weak (literal) operand meeting a strong one, NEP 50: the literal's kind
// is kept only when it is higher than the strong operand's kind.
Scalar promote_weak(Scalar weak, Scalar strong) {
  if (is_bool(weak)) return strong;
  if (is_integer(weak)) {
    if (is_bool(strong)) return weak == Scalar::UInt64 ? Scalar::UInt64 : Scalar::Int64;
    return strong;
  }
  if (is_float(weak)) {
    if (is_bool(strong) || is_integer(strong)) return Scalar::Float64;
    return strong;
  }
  // complex literal
  if (is_complex(strong)) return strong;
  if (is_float(strong)) return complex_of(strong);
  return Scalar::Complex128;
}

std::string space_prefix(Space space) {
  switch (space) {
    case Space::Global:
      return "";
    case Space::Shared:
      return "shared ";
    case Space::Local:
      return "local ";
    case Space::Constant:
      return "constant ";
  }
  return "";
}

}  // namespace

Type Type::none() {
  Type t;
  t.kind = TypeKind::None;
  return t;
}

Type Type::scalar_of(Scalar s, bool weak) {
  Type t;
  t.kind = TypeKind::Scalar;
  t.scalar = s;
  t.weak = weak;
  return t;
}

Type Type::array(Scalar dtype, int ndim, Layout layout, Space space) {
  Type t;
  t.kind = TypeKind::Array;
  t.scalar = dtype;
  t.ndim = static_cast<uint8_t>(ndim);
  // One dimension has no order: C and F describe the same memory.
  t.layout = ndim <= 1 && layout == Layout::F ? Layout::C : layout;
  t.space = space;
  return t;
}

Type Type::tuple(std::vector<Type> items) {
  Type t;
  t.kind = TypeKind::Tuple;
  t.items = std::move(items);
  return t;
}

Type Type::uniform_tuple(const Type& item, int count) {
  return tuple(std::vector<Type>(static_cast<size_t>(count), item));
}

Type Type::string() {
  Type t;
  t.kind = TypeKind::String;
  return t;
}

Type Type::module(std::string name) {
  Type t;
  t.kind = TypeKind::Module;
  t.name = std::move(name);
  return t;
}

Type Type::function(std::string qualified_name) {
  Type t;
  t.kind = TypeKind::Function;
  t.name = std::move(qualified_name);
  return t;
}

Type Type::dtype(Scalar s) {
  Type t;
  t.kind = TypeKind::DType;
  t.scalar = s;
  return t;
}

Type Type::dim3(std::string which) {
  Type t;
  t.kind = TypeKind::Dim3;
  t.name = std::move(which);
  return t;
}

Type Type::range(Scalar index) {
  Type t;
  t.kind = TypeKind::Range;
  t.scalar = index;
  return t;
}

Type Type::grid_group() {
  Type t;
  t.kind = TypeKind::GridGroup;
  return t;
}

Type Type::record_ref(abi::RecordRef record, Space space, bool readonly) {
  Type t;
  t.kind = TypeKind::Record;
  t.record = std::move(record);
  t.space = space;
  t.readonly = readonly;
  return t;
}

Type Type::record_array(abi::RecordRef record, int ndim, Layout layout, Space space) {
  Type t = array(Scalar::UInt8, ndim, layout, space);
  t.record = std::move(record);
  return t;
}

Type Type::record_dtype(abi::RecordRef record) {
  Type t = dtype(Scalar::UInt8);
  t.record = std::move(record);
  return t;
}

Type Type::element() const {
  if (record) return record_ref(record, space, readonly);
  return scalar_of(scalar);
}

int64_t Type::element_bytes() const { return record ? record->itemsize : bit_width(scalar) / 8; }

int Type::tuple_depth() const {
  int deepest = 0;
  for (const Type& item : items) deepest = std::max(deepest, item.tuple_depth());
  return is_tuple() ? deepest + 1 : 0;
}

size_t Type::leaf_count() const {
  if (kind == TypeKind::GridGroup) return 0;
  if (!is_tuple()) return 1;
  size_t n = 0;
  for (const Type& item : items) n += item.leaf_count();
  return n;
}

bool Type::contains_unknown() const {
  if (kind == TypeKind::Unknown) return true;
  return std::any_of(items.begin(), items.end(),
                     [](const Type& t) { return t.contains_unknown(); });
}

Type Type::strong() const {
  Type t = *this;
  if (t.kind == TypeKind::Scalar && t.weak) {
    t.scalar = concrete(t);
    t.weak = false;
  }
  return t;
}

Type Type::range_item() const {
  if (items.empty()) return scalar_of(scalar, weak);
  return tuple(items);
}

bool Type::operator==(const Type& o) const {
  if (kind != o.kind) return false;
  switch (kind) {
    case TypeKind::Scalar:
      return scalar == o.scalar && weak == o.weak;
    case TypeKind::Array:
      return scalar == o.scalar && record == o.record && ndim == o.ndim && layout == o.layout &&
             space == o.space && readonly == o.readonly && packed == o.packed;
    case TypeKind::Tuple:
      return items == o.items && fields == o.fields;
    case TypeKind::DType:
      return scalar == o.scalar && record == o.record;
    case TypeKind::Record:
      return record == o.record && space == o.space && readonly == o.readonly;
    case TypeKind::Range:
      return scalar == o.scalar && items == o.items && name == o.name;
    case TypeKind::Module:
    case TypeKind::Function:
    case TypeKind::Dim3:
      return name == o.name;
    default:
      return true;
  }
}

std::string Type::str() const {
  switch (kind) {
    case TypeKind::Unknown:
      return "<unknown>";
    case TypeKind::None:
      return "None";
    case TypeKind::Scalar:
      return weak ? std::string(is_integer(scalar) ? "int"
                                : is_float(scalar) ? "float"
                                                   : "complex") +
                        " literal"
                  : scalar_name(scalar);
    case TypeKind::Record:
      return std::string(readonly ? "readonly " : "") + space_prefix(space) + record->str();
    case TypeKind::Array: {
      std::string s = (record ? record->str() : std::string(scalar_name(scalar))) + "[";
      for (int d = 0; d < ndim; ++d) {
        if (d) s += ", ";
        bool unit = (layout == Layout::C && d == ndim - 1) || (layout == Layout::F && d == 0);
        s += unit ? "::1" : ":";
      }
      s += "]";
      return (packed ? "packed " : "") + space_prefix(space) + s;
    }
    case TypeKind::Tuple: {
      // A long tuple (a module's table of constants) shows its first items and its length:
      // in full, an error naming it ran to megabytes.
      constexpr size_t kShown = 4;
      const bool long_tuple = items.size() > 2 * kShown;
      std::string s = "(";
      for (size_t i = 0; i < (long_tuple ? kShown : items.size()); ++i)
        s += (i ? ", " : "") + (fields.empty() ? "" : fields[i] + "=") + items[i].str();
      if (long_tuple) s += ", ... " + std::to_string(items.size()) + " items in all";
      if (items.size() == 1) s += ",";
      return s + ")";
    }
    case TypeKind::String:
      return "str";
    case TypeKind::Module:
      return "module " + name;
    case TypeKind::Function:
      if (name.rfind("simt.func:", 0) == 0)  // a device function: "simt.func:<name>#<k>"
        return "device function " + name.substr(10, name.rfind('#') - 10);
      return "function " + name;
    case TypeKind::DType:
      return "dtype " + (record ? record->str() : std::string(scalar_name(scalar)));
    case TypeKind::Dim3:
      return name;
    case TypeKind::Range:
      return name.empty() ? "range" : name;
    case TypeKind::GridGroup:
      return "grid group";
  }
  return "?";
}

Type promote(const Type& a, const Type& b) {
  if (a.weak && b.weak) return Type::scalar_of(promote_strong(a.scalar, b.scalar), true);
  if (a.weak) return Type::scalar_of(promote_weak(a.scalar, b.scalar));
  if (b.weak) return Type::scalar_of(promote_weak(b.scalar, a.scalar));
  return Type::scalar_of(promote_strong(a.scalar, b.scalar));
}

Scalar concrete(const Type& t) {
  if (!t.weak) return t.scalar;
  if (is_integer(t.scalar)) return t.scalar == Scalar::UInt64 ? Scalar::UInt64 : Scalar::Int64;
  if (is_float(t.scalar)) return Scalar::Float64;
  if (is_complex(t.scalar)) return Scalar::Complex128;
  return t.scalar;
}

Type array_row(const Type& a) {
  if (a.ndim == 1) return Type::scalar_of(a.scalar);
  Type row =
      Type::array(a.scalar, a.ndim - 1, a.layout == Layout::C ? Layout::C : Layout::Any, a.space);
  row.readonly = a.readonly;
  return row;
}

std::optional<Type> join(const Type& a, const Type& b) {
  if (a.is_unknown()) return b;
  if (b.is_unknown()) return a;
  if (a.kind != b.kind) return std::nullopt;
  switch (a.kind) {
    case TypeKind::Scalar:
      return promote(a, b);
    case TypeKind::Array: {
      if (a.scalar != b.scalar || a.record != b.record || a.ndim != b.ndim || a.space != b.space ||
          a.packed != b.packed)
        return std::nullopt;
      Type t = a;
      if (a.layout != b.layout) t.layout = Layout::Any;
      t.readonly = a.readonly || b.readonly;
      return t;
    }
    case TypeKind::Record: {
      // Two references to records of one layout and alignment, in one space.
      if (a.record != b.record || a.space != b.space) return std::nullopt;
      Type t = a;
      t.readonly = a.readonly || b.readonly;
      return t;
    }
    case TypeKind::Tuple: {
      if (a.items.size() != b.items.size()) return std::nullopt;
      std::vector<Type> items;
      for (size_t i = 0; i < a.items.size(); ++i) {
        auto j = join(a.items[i], b.items[i]);
        if (!j) return std::nullopt;
        items.push_back(*j);
      }
      Type joined = Type::tuple(std::move(items));
      // Field names survive where both sides have the same ones.
      if (a.fields == b.fields) joined.fields = a.fields;
      return joined;
    }
    default:
      if (a == b) return a;
      return std::nullopt;
  }
}

Type type_of_argument(const abi::ArgType& arg) {
  switch (arg.kind) {
    case abi::ArgType::Kind::Scalar:
      return Type::scalar_of(arg.scalar);
    case abi::ArgType::Kind::Array: {
      Type t = arg.record ? Type::record_array(arg.record, arg.ndim, arg.layout)
                          : Type::array(arg.scalar, arg.ndim, arg.layout);
      t.readonly = arg.readonly;
      return t;
    }
    case abi::ArgType::Kind::Record:
      return Type::record_ref(arg.record, Space::Global, arg.readonly);
    case abi::ArgType::Kind::Tuple: {
      std::vector<Type> items;
      for (const auto& item : arg.items) items.push_back(type_of_argument(item));
      Type t = Type::tuple(std::move(items));
      t.fields = arg.fields;
      return t;
    }
  }
  return Type::unknown();
}

std::optional<abi::ArgType> argument_type(const Type& t) {
  switch (t.kind) {
    case TypeKind::Scalar:
      return abi::ArgType::scalar_of(concrete(t));
    case TypeKind::Array:
      if (t.space != Space::Global || t.packed) return std::nullopt;
      if (t.record) return abi::ArgType::record_array(t.record, t.ndim, t.layout, t.readonly);
      return abi::ArgType::array(t.scalar, t.ndim, t.layout, t.readonly);
    case TypeKind::Record:
      if (t.space != Space::Global) return std::nullopt;
      return abi::ArgType::record_of(t.record, t.readonly);
    case TypeKind::Tuple: {
      std::vector<abi::ArgType> items;
      for (const auto& item : t.items) {
        auto a = argument_type(item);
        if (!a) return std::nullopt;
        items.push_back(std::move(*a));
      }
      if (!t.fields.empty()) return abi::ArgType::named_tuple(std::move(items), t.fields);
      return abi::ArgType::tuple(std::move(items));
    }
    default:
      return std::nullopt;
  }
}

std::optional<Type> parse_type(std::string_view text) {
  auto arg = abi::ArgType::parse(text);
  if (!arg) return std::nullopt;
  return type_of_argument(*arg);
}

}  // namespace simt::sema
