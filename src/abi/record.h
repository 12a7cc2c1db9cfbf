// Record (structured) dtypes: NumPy's `np.dtype([('x', np.float32), ('y', np.int32)])`,
// aligned or packed, with nested records and fixed-size array fields. A Record is the
// one description of such a dtype's bytes that every layer reads: the launch path builds
// it from a NumPy dtype (src/python/records.cpp), abi::ArgType carries it in the
// specialization key and in signatures' text, sema types fields by it and codegen reads
// and writes each field at its offset.
#pragma once

#include <cstdint>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "abi/scalar.h"

namespace simt::abi {

struct Record;

// A record shared by the types that hold it (an array's dtype, a field's nested record,
// every copy of a sema type), compared by value.
class RecordRef {
 public:
  RecordRef() = default;
  explicit RecordRef(Record record);

  explicit operator bool() const { return record_ != nullptr; }
  const Record& operator*() const { return *record_; }
  const Record* operator->() const { return record_.get(); }
  bool operator==(const RecordRef& o) const;

 private:
  std::shared_ptr<const Record> record_;
};

// One field of a record, as NumPy's dtype.fields gives it.
struct RecordField {
  std::string name;
  uint32_t offset = 0;            // bytes from the record's start
  Scalar scalar = Scalar::UInt8;  // the field's type, unless it is a record or opaque
  RecordRef record;               // a nested record
  std::vector<uint32_t> shape;    // a fixed-size array of scalars: its extents (C order)
  // Bytes kernels cannot read (strings, bytes, datetimes, big-endian numbers, arrays of
  // records): NumPy's description of them ("|S10"), for the error at a use. The field
  // still occupies its bytes, so whole records copy it.
  std::string opaque;
  uint32_t opaque_bytes = 0;
  bool operator==(const RecordField&) const = default;

  bool is_record() const { return opaque.empty() && static_cast<bool>(record); }
  bool is_scalar() const { return opaque.empty() && !record; }
  // The bytes of one value of a scalar or nested field, and of the whole field.
  uint32_t element_bytes() const;
  uint32_t bytes() const;
};

struct Record {
  std::vector<RecordField> fields;  // in NumPy's order (dtype.names)
  uint32_t itemsize = 0;
  // The alignment (a power of two) that the first byte of every record of this type is
  // known to have: what an array's data address and the itemsize allow, up to the largest
  // alignment its fields' types have. A field whose type's alignment this and its offset
  // guarantee is read and written with that type's loads and stores; any other field byte
  // by byte (packed dtypes, views starting at an odd address). Part of the type: the same
  // dtype at another alignment is another specialization.
  uint32_t align = 1;
  bool operator==(const Record&) const = default;

  const RecordField* find(std::string_view name) const;
  // "record(x: float32 @ 0, v: float32[3] @ 4; size 16, align 4)": ArgType's text of it.
  std::string str() const;
  // The same layout, whatever the alignment.
  bool same_layout(const Record& o) const;
};

// C's alignment of a scalar's storage type (bool: 1; a complex number: its parts').
uint32_t scalar_alignment(Scalar s);
// The largest alignment any (nested) field's type has: the most `align` can be.
uint32_t natural_alignment(const Record& record);
// The largest power of two dividing `n`, at most `cap` (`cap` for 0).
uint32_t low_bit(uint64_t n, uint32_t cap);

// Sets `record.align` to the most that `known` (an alignment the records start at)
// allows: at most natural_alignment(record), dividing the itemsize; and each nested
// record's to what its offset leaves of that. Every Record the layers build goes through
// this, so two descriptions of one layout compare equal.
void settle_alignment(Record& record, uint32_t known);

// Whether values of type `scalar` at `offset` bytes into records starting at `align` are
// aligned for that type: its own loads and stores then reach them.
bool aligned_access(Scalar scalar, uint32_t offset, uint32_t align);

// What makes a layout unusable (a field past the itemsize, two fields overlapping, a
// repeated or empty name, no fields, nesting past kMaxRecordDepth), as a sentence naming
// the field; nullopt for a usable layout.
std::optional<std::string> layout_error(const Record& record, int depth = 0);

inline constexpr int kMaxRecordDepth = 32;  // nested records
inline constexpr size_t kMaxRecordFields = 4096;
inline constexpr int kMaxFieldDims = 32;  // a fixed-size array field's dimensions
inline constexpr uint32_t kMaxRecordBytes = 1u << 30;
inline constexpr size_t kMaxRecordName = 255;

// The key bytes of a record (ArgType::encode) and back; decode returns nullopt for
// malformed bytes or an unusable layout.
void encode_record(const Record& record, std::string& key);
std::optional<Record> decode_record(std::string_view key, size_t& pos, int depth = 0);

// Parses Record::str()'s text at `pos` (at the word "record"), advancing past it; nullopt
// when malformed or unusable.
std::optional<Record> parse_record(std::string_view text, size_t& pos, int depth = 0);

}  // namespace simt::abi
