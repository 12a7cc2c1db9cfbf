// ArgType: the one description of a kernel argument's type. A launch's
// classifier (src/python/classify.cpp) appends each argument's key bytes;
// the key is the specialization key, and decoding it gives back the
// ArgTypes the compiler is run for, so classification, explicit signatures,
// `typeof` and `inspect_*` cannot disagree. `str()` and `parse()` are a
// lossless text form ("readonly float32[:, ::1]").
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "abi/record.h"
#include "abi/scalar.h"

namespace simt::abi {

struct ArgType {
  // Record: one record of a record dtype, passed by reference as Numba passes it (a
  // NumPy record `a[0]` or 0-d record array, a 0-d simt array): writes to its fields are
  // seen by the caller.
  enum class Kind : uint8_t { Scalar, Array, Tuple, Record };
  Kind kind = Kind::Scalar;
  abi::Scalar scalar = abi::Scalar::Int64;  // a scalar's type; an array's dtype
  uint8_t ndim = 0;                         // Array
  Layout layout = Layout::Any;              // Array
  bool readonly = false;                    // Array, Record
  // Record; Array: a record dtype (then `scalar` means nothing).
  RecordRef record;
  std::vector<ArgType> items;  // Tuple
  // A named tuple's field names, one per item (collections.namedtuple, typing.NamedTuple);
  // empty for a plain tuple. Part of the type: `p.x` compiles for these fields only.
  std::vector<std::string> fields;

  static ArgType scalar_of(abi::Scalar s);
  // A one-dimensional F array is C: both describe the same memory.
  static ArgType array(abi::Scalar dtype, int ndim, Layout layout, bool readonly = false);
  static ArgType tuple(std::vector<ArgType> items);
  static ArgType named_tuple(std::vector<ArgType> items, std::vector<std::string> fields);
  static ArgType record_array(RecordRef record, int ndim, Layout layout, bool readonly = false);
  static ArgType record_of(RecordRef record, bool readonly = false);

  bool is_scalar() const { return kind == Kind::Scalar; }
  bool is_array() const { return kind == Kind::Array; }
  bool is_tuple() const { return kind == Kind::Tuple; }
  bool is_record() const { return kind == Kind::Record; }

  // Appends this type's specialization-key bytes.
  void encode(std::string& key) const;
  // Reads one type's bytes from `key` at `pos` (advanced past them);
  // nullopt when they are malformed.
  static std::optional<ArgType> decode(std::string_view key, size_t& pos, int depth = 0);

  // "float32", "float32[:, ::1]", "readonly float64[:]", "(int64, float32)",
  // "(x=float64, y=float64)" (a named tuple), "record(x: float32 @ 0; size 4, align 4)[::1]"
  // (an array of records), "readonly record(...)" (one record).
  std::string str() const;
  // The inverse of str(), also accepting dtype aliases ("f4[::1]", read in `spelling`)
  // and "void"-less tuples; nullopt when malformed.
  static std::optional<ArgType> parse(std::string_view text, Spelling spelling = Spelling::NumPy);

  bool operator==(const ArgType&) const = default;
};

// The key bytes of one scalar and one array, as ArgType::encode writes them:
// the launch path appends them without building an ArgType.
void append_scalar_key(std::string& key, Scalar scalar);
void append_array_key(std::string& key, Scalar dtype, int ndim, Layout layout, bool readonly);
// An array of records, and one record: `record_bytes` from abi::encode_record.
void append_record_array_key(std::string& key, std::string_view record_bytes, int ndim,
                             Layout layout, bool readonly);
void append_record_key(std::string& key, std::string_view record_bytes, bool readonly);
// An array of records: kArrayTag's dtype byte is kRecordDtype, and the record's bytes
// (abi/record.h) follow the layout byte.
inline constexpr uint8_t kRecordDtype = 0xff;
// One record: this tag, a readonly byte, the record's bytes.
inline constexpr char kRecordTag = 'R';
inline constexpr char kTupleBegin = '(';
inline constexpr char kTupleEnd = ')';
// A named tuple: each item's bytes follow its field name's (a length byte, then the
// name), up to kTupleEnd.
inline constexpr char kNamedTupleBegin = '{';
// Field names longer than this are not named-tuple fields a kernel can read.
inline constexpr size_t kMaxFieldName = 255;

// How deeply tuples may nest in an argument (and in any value a kernel
// computes): deeper ones are errors, so that no recursion over a type can
// exhaust the stack.
inline constexpr int kMaxTupleDepth = 32;
// The most values (numbers and arrays, all levels together) a tuple holds, an argument's
// too: beyond that the generated code would be megabytes that compilers reject.
inline constexpr size_t kMaxTupleLeaves = 1024;
// The most dimensions an array argument has (NumPy allows 64).
inline constexpr int kMaxDims = 32;

// Whether an argument of type `given` may be passed where a kernel's explicit signature
// declares `declared` (explicit signatures close a kernel's set, as Numba's do): an array
// or record of the same dtype and dimensions (a C or F array where any layout is declared,
// a writable one where a read-only one is), a number of the same kind or a higher one
// (bool, integers, floats, complex: NumPy's same_kind casting, so a Python int passes as an
// int32), a tuple item by item.
bool converts_to(const ArgType& given, const ArgType& declared);

// Decodes a whole key of argument types (after whatever prefix the caller
// skipped); nullopt when malformed.
std::optional<std::vector<ArgType>> decode_arg_types(std::string_view key);

}  // namespace simt::abi
