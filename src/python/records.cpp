#include "python/records.h"

#include <nanobind/stl/string.h>

#include <cstdint>
#include <cstdio>
#include <unordered_map>

#include "abi/arg_type.h"
#include "abi/scalar.h"

namespace simt::python {

namespace {

using abi::Scalar;

// NumPy's kinds and item sizes of the numbers a field can hold.
std::optional<Scalar> number_scalar(char kind, int64_t itemsize) {
  struct Row {
    char kind;
    int64_t bytes;
    Scalar scalar;
  };
  static constexpr Row kRows[] = {
      {'b', 1, Scalar::Bool},      {'i', 1, Scalar::Int8},        {'i', 2, Scalar::Int16},
      {'i', 4, Scalar::Int32},     {'i', 8, Scalar::Int64},       {'u', 1, Scalar::UInt8},
      {'u', 2, Scalar::UInt16},    {'u', 4, Scalar::UInt32},      {'u', 8, Scalar::UInt64},
      {'f', 2, Scalar::Float16},   {'f', 4, Scalar::Float32},     {'f', 8, Scalar::Float64},
      {'c', 8, Scalar::Complex64}, {'c', 16, Scalar::Complex128},
  };
  for (const Row& row : kRows)
    if (row.kind == kind && row.bytes == itemsize) return row.scalar;
  return std::nullopt;
}

// What a field of NumPy kind `kind` holds, for the error at a kernel's use of it.
const char* opaque_kind(char kind) {
  switch (kind) {
    case 'S':
      return "bytes";
    case 'U':
      return "a string";
    case 'M':
      return "a datetime64";
    case 'm':
      return "a timedelta64";
    case 'V':
      return "raw bytes";
    default:
      return "a number of a size kernels have no type for";
  }
}

// A stable 64-bit hash of `text` (FNV-1a), in hex.
std::string fnv_hex(const std::string& text) {
  uint64_t h = 1469598103934665603ull;
  for (char c : text) h = (h ^ static_cast<unsigned char>(c)) * 1099511628211ull;
  char out[17];
  std::snprintf(out, sizeof out, "%016llx", static_cast<unsigned long long>(h));
  return out;
}

uint32_t checked_u32(int64_t v, const std::string& what) {
  if (v < 0 || v > static_cast<int64_t>(abi::kMaxRecordBytes))
    throw RecordError(what + " is " + std::to_string(v) + " bytes, more than kernels take");
  return static_cast<uint32_t>(v);
}

abi::Record describe(const nb::handle& dtype, const std::string& path, int depth);

// One field's type: a number, a nested record, a fixed-size array of numbers, or bytes
// kernels cannot read (opaque).
void describe_field(abi::RecordField& f, const nb::handle& fd, const std::string& path, int depth) {
  if (nb::cast<bool>(fd.attr("hasobject")))
    throw RecordError("the field '" + path +
                      "' holds Python objects (dtype object), which kernels cannot take");
  nb::handle base = fd;
  nb::object subdtype = fd.attr("subdtype");
  std::vector<uint32_t> shape;
  if (!subdtype.is_none()) {
    base = subdtype[0];
    for (nb::handle extent : nb::cast<nb::tuple>(subdtype[1]))
      shape.push_back(checked_u32(nb::cast<int64_t>(extent), "an extent of '" + path + "'"));
  }
  const std::string shown_shape = [&] {
    std::string text;
    for (size_t d = 0; d < shape.size(); ++d) text += (d ? ", " : "[") + std::to_string(shape[d]);
    return text.empty() ? text : text + "]";
  }();
  auto opaque = [&](const std::string& what) {
    f.opaque = nb::cast<std::string>(base.attr("str")) + shown_shape + " (" + what + ")";
    f.opaque_bytes =
        checked_u32(nb::cast<int64_t>(fd.attr("itemsize")), "the field '" + path + "'");
  };
  if (is_record_dtype(base)) {
    if (shape.empty()) {
      f.record = abi::RecordRef(describe(base, path + ".", depth + 1));
      return;
    }
    // Named by NumPy's description of its records, so that records differing there
    // have different texts (a simt array's dtype is found by its text).
    std::string layout = nb::cast<std::string>(nb::repr(base.attr("descr")));
    for (char& c : layout) c = c == '\'' ? '"' : c == '\\' ? '/' : c;
    if (layout.size() > 160) layout = layout.substr(0, 120) + "... #" + fnv_hex(layout);
    f.opaque = layout + shown_shape + " (an array of records)";
    f.opaque_bytes =
        checked_u32(nb::cast<int64_t>(fd.attr("itemsize")), "the field '" + path + "'");
    return;
  }
  const std::string kind = nb::cast<std::string>(base.attr("kind"));
  const std::string order = nb::cast<std::string>(base.attr("byteorder"));
  const char k = kind.empty() ? '?' : kind[0];
  auto scalar = number_scalar(k, nb::cast<int64_t>(base.attr("itemsize")));
  if (scalar && order == ">") {
    opaque("big-endian: convert the array with a.astype(a.dtype.newbyteorder(\"=\"))");
    return;
  }
  if (!scalar) {
    opaque(opaque_kind(k));
    return;
  }
  f.scalar = *scalar;
  f.shape = std::move(shape);
}

abi::Record describe(const nb::handle& dtype, const std::string& prefix, int depth) {
  if (depth > abi::kMaxRecordDepth)
    throw RecordError("records nested more than " + std::to_string(abi::kMaxRecordDepth) +
                      " levels deep");
  abi::Record r;
  r.itemsize = checked_u32(nb::cast<int64_t>(dtype.attr("itemsize")), "the record");
  nb::object fields = dtype.attr("fields");
  for (nb::handle name : nb::cast<nb::tuple>(dtype.attr("names"))) {
    abi::RecordField f;
    f.name = nb::cast<std::string>(name);
    nb::tuple field = nb::cast<nb::tuple>(fields[name]);
    f.offset = checked_u32(nb::cast<int64_t>(field[1]), "the offset of '" + prefix + f.name + "'");
    describe_field(f, field[0], prefix + f.name, depth);
    r.fields.push_back(std::move(f));
  }
  return r;
}

RecordDtypePtr make_record(abi::Record r) {
  if (auto why = abi::layout_error(r)) throw RecordError(*why);
  // Its natural alignment, which its arrays have at a well-aligned address (NumPy's and
  // simt's allocations); record_key_at lowers it for others.
  abi::settle_alignment(r, abi::kMaxRecordBytes);
  auto out = std::make_shared<RecordDtype>();
  abi::encode_record(r, out->key);
  out->record = abi::RecordRef(std::move(r));
  return out;
}

// Records by dtype object (held, so the address is never another object's). Programs
// use a few record dtypes; one that made thousands would be dropped in bulk.
constexpr size_t kMaxCached = 256;
std::unordered_map<PyObject*, std::pair<nb::object, RecordDtypePtr>>& dtype_cache() {
  static auto* cache = new std::unordered_map<PyObject*, std::pair<nb::object, RecordDtypePtr>>;
  return *cache;  // never destroyed: it holds Python objects past the interpreter's end
}

std::unordered_map<std::string, RecordDtypePtr>& text_cache() {
  static auto* cache = new std::unordered_map<std::string, RecordDtypePtr>;
  return *cache;
}

}  // namespace

bool is_record_dtype(const nb::handle& dtype) {
  PyObject* names = PyObject_GetAttrString(dtype.ptr(), "names");
  if (names == nullptr) {
    PyErr_Clear();
    return false;
  }
  const bool record = names != Py_None;
  Py_DECREF(names);
  return record;
}

RecordDtypePtr numpy_record(const nb::handle& dtype) {
  auto& cache = dtype_cache();
  if (auto found = cache.find(dtype.ptr()); found != cache.end()) return found->second.second;
  RecordDtypePtr record = make_record(describe(dtype, "", 0));
  if (cache.size() >= kMaxCached) cache.clear();
  cache.emplace(dtype.ptr(), std::pair{nb::borrow(dtype), record});
  return record;
}

RecordDtypePtr record_from_text(const std::string& text) {
  auto& cache = text_cache();
  if (auto found = cache.find(text); found != cache.end()) return found->second;
  auto type = abi::ArgType::parse(text);
  if (!type || !type->is_record()) throw nb::value_error(("not a record dtype: " + text).c_str());
  RecordDtypePtr record = make_record(*type->record);
  if (cache.size() >= kMaxCached) cache.clear();
  cache.emplace(text, record);
  return record;
}

std::string_view record_key_at(const RecordDtype& dtype, const void* address,
                               std::string& scratch) {
  const uint32_t align = abi::low_bit(reinterpret_cast<uintptr_t>(address), dtype.record->align);
  if (align == dtype.record->align) return dtype.key;
  abi::Record lower = *dtype.record;
  abi::settle_alignment(lower, align);
  scratch.clear();
  abi::encode_record(lower, scratch);
  return scratch;
}

PyObject* numpy_asarray() {
  // Never released: a static object would be released after the interpreter finalized.
  static PyObject* asarray =
      nb::object(nb::module_::import_("numpy").attr("asarray")).release().ptr();
  return asarray;
}

void bind_records(nb::module_& m) {
  m.def(
      "record_type",
      [](nb::handle dtype) {
        if (!is_record_dtype(dtype)) throw nb::type_error("not a record (structured) dtype");
        try {
          return numpy_record(dtype)->record->str();
        } catch (const RecordError& e) {
          throw nb::type_error(e.what());
        }
      },
      nb::arg("dtype"),
      "The text of a NumPy structured dtype as kernels' types name it "
      "('record(x: float32 @ 0, ...; size 8, align 4)'); TypeError for dtypes kernels cannot "
      "take (object fields, overlapping fields).");
}

}  // namespace simt::python
