// abi/record.h: record dtypes. Their text and key bytes round-trip (through ArgType, as
// arrays of records and as records), alignment settles to what the layout allows, and
// layouts kernels cannot use are named.
#include <gtest/gtest.h>

#include "abi/arg_type.h"
#include "abi/record.h"
#include "sema/types.h"

namespace {

using simt::abi::ArgType;
using simt::abi::Layout;
using simt::abi::Record;
using simt::abi::RecordField;
using simt::abi::RecordRef;
using simt::abi::Scalar;

RecordField scalar_field(std::string name, uint32_t offset, Scalar s,
                         std::vector<uint32_t> shape = {}) {
  RecordField f;
  f.name = std::move(name);
  f.offset = offset;
  f.scalar = s;
  f.shape = std::move(shape);
  return f;
}

Record settled(Record r, uint32_t known = 1u << 20) {
  simt::abi::settle_alignment(r, known);
  return r;
}

// np.dtype([('x', f4), ('b', i1), ('y', f8)], align=True): 16 bytes.
Record aligned_record() {
  Record r;
  r.itemsize = 16;
  r.fields = {scalar_field("x", 0, Scalar::Float32), scalar_field("b", 4, Scalar::Int8),
              scalar_field("y", 8, Scalar::Float64)};
  return settled(r);
}

// The same fields packed (align=False): 13 bytes, y at 5; with a nested record, an array
// field, an opaque field and a name that is not an identifier.
Record packed_record() {
  Record inner;
  inner.itemsize = 6;
  inner.fields = {scalar_field("lo", 0, Scalar::Int16), scalar_field("hi", 2, Scalar::Float32)};
  Record r;
  r.fields = {scalar_field("x", 0, Scalar::Float32), scalar_field("b", 4, Scalar::Int8),
              scalar_field("y", 5, Scalar::Float64)};
  RecordField nested;
  nested.name = "inner";
  nested.offset = 13;
  nested.record = RecordRef(inner);
  r.fields.push_back(nested);
  r.fields.push_back(scalar_field("v", 19, Scalar::Complex64, {3, 1}));  // 24 bytes
  RecordField label;
  label.name = "a label";
  label.offset = 43;
  label.opaque = "|S10 (bytes)";
  label.opaque_bytes = 10;
  r.fields.push_back(label);
  r.fields.push_back(scalar_field("ok", 53, Scalar::Bool));
  r.itemsize = 54;
  return settled(r);
}

TEST(Record, AlignmentSettlesToWhatTheLayoutAllows) {
  EXPECT_EQ(aligned_record().align, 8u);
  EXPECT_EQ(simt::abi::natural_alignment(aligned_record()), 8u);
  // Packed: the itemsize (54) allows 2, and the nested record at offset 13 gets 1.
  Record p = packed_record();
  EXPECT_EQ(p.align, 2u);
  EXPECT_EQ(p.find("inner")->record->align, 1u);
  // An address known only to 4-byte alignment lowers it.
  EXPECT_EQ(settled(aligned_record(), 4).align, 4u);
  EXPECT_TRUE(simt::abi::aligned_access(Scalar::Float64, 8, 8));
  EXPECT_FALSE(simt::abi::aligned_access(Scalar::Float64, 8, 4));
  EXPECT_FALSE(simt::abi::aligned_access(Scalar::Float64, 5, 8));
  EXPECT_TRUE(simt::abi::aligned_access(Scalar::Complex64, 4, 4));  // its parts' alignment
  EXPECT_TRUE(simt::abi::aligned_access(Scalar::Bool, 3, 1));
  EXPECT_EQ(simt::abi::low_bit(0, 16), 16u);
  EXPECT_EQ(simt::abi::low_bit(24, 16), 8u);
}

TEST(Record, TextAndKeysRoundTrip) {
  for (const Record& r : {aligned_record(), packed_record()}) {
    std::string text = r.str();
    size_t pos = 0;
    auto parsed = simt::abi::parse_record(text, pos);
    ASSERT_TRUE(parsed) << text;
    EXPECT_EQ(pos, text.size());
    EXPECT_EQ(*parsed, r) << text;
    std::string key;
    simt::abi::encode_record(r, key);
    pos = 0;
    auto decoded = simt::abi::decode_record(key, pos);
    ASSERT_TRUE(decoded) << text;
    EXPECT_EQ(pos, key.size());
    EXPECT_EQ(*decoded, r);
  }
  EXPECT_EQ(aligned_record().str(),
            "record(x: float32 @ 0, b: int8 @ 4, y: float64 @ 8; size 16, align 8)");
  EXPECT_NE(packed_record().str().find("'a label': opaque(10, '|S10 (bytes)') @ 43"),
            std::string::npos);
  EXPECT_NE(packed_record().str().find("v: complex64[3, 1] @ 19"), std::string::npos);
}

TEST(Record, ArgTypesOfRecordsRoundTrip) {
  const RecordRef a(aligned_record()), p(packed_record());
  for (const ArgType& t :
       {ArgType::record_array(a, 1, Layout::C), ArgType::record_array(p, 2, Layout::F),
        ArgType::record_array(a, 3, Layout::Any, /*readonly=*/true), ArgType::record_of(a),
        ArgType::record_of(p, /*readonly=*/true),
        ArgType::tuple({ArgType::record_of(a), ArgType::scalar_of(Scalar::Int32)})}) {
    std::string key;
    t.encode(key);
    size_t pos = 0;
    auto back = ArgType::decode(key, pos);
    ASSERT_TRUE(back) << t.str();
    EXPECT_EQ(*back, t) << t.str();
    auto parsed = ArgType::parse(t.str());
    ASSERT_TRUE(parsed) << t.str();
    EXPECT_EQ(*parsed, t) << t.str();
    auto typed = simt::sema::argument_type(simt::sema::type_of_argument(t));
    ASSERT_TRUE(typed) << t.str();
    EXPECT_EQ(*typed, t) << t.str();
  }
  EXPECT_EQ(ArgType::record_array(a, 2, Layout::C).str(),
            "record(x: float32 @ 0, b: int8 @ 4, y: float64 @ 8; size 16, align 8)[:, ::1]");
  EXPECT_EQ(ArgType::record_of(a, true).str().substr(0, 16), "readonly record(");
  // The same layout at another alignment is another type (it reads fields otherwise).
  EXPECT_NE(ArgType::record_array(a, 1, Layout::C),
            ArgType::record_array(RecordRef(settled(aligned_record(), 4)), 1, Layout::C));
}

TEST(Record, UnusableLayoutsAreNamed) {
  Record overlap = aligned_record();
  overlap.fields[1].offset = 2;  // b inside x
  EXPECT_EQ(*simt::abi::layout_error(overlap),
            "the fields 'x' and 'b' overlap (a union: kernels read each byte as one field's)");
  Record past = aligned_record();
  past.fields[2].offset = 12;
  EXPECT_EQ(*simt::abi::layout_error(past), "the field 'y' (bytes 12 to 20 of a record of 16)");
  Record twice = aligned_record();
  twice.fields[1].name = "x";
  EXPECT_EQ(*simt::abi::layout_error(twice), "two fields named 'x'");
  EXPECT_EQ(*simt::abi::layout_error(Record{}), "a record without fields");
  EXPECT_FALSE(simt::abi::layout_error(packed_record()));
}

TEST(Record, MalformedTextAndKeysAreRejected) {
  for (const char* bad :
       {"record(", "record()", "record(x: float32 @ 0)", "record(x: float32 @ 0; size 4)",
        "record(x: float32; size 4, align 4)", "record(x: float32 @ 2; size 4, align 4)",
        "record(x: notatype @ 0; size 4, align 4)", "record(x: float32[] @ 0; size 4, align 4)",
        "record(x: float32 @ 0; size 4, align 3)", "record('x: float32 @ 0; size 4, align 4)",
        "record(x: opaque(4) @ 0; size 4, align 4)", "record(x: float32 @ 0; size 4, align 4"}) {
    EXPECT_FALSE(ArgType::parse(bad)) << bad;
  }
  // An alignment above what the layout allows settles down.
  EXPECT_EQ(ArgType::parse("record(x: float32 @ 0; size 4, align 16)")->record->align, 4u);
  std::string key;
  simt::abi::encode_record(aligned_record(), key);
  for (size_t cut = 0; cut < key.size(); ++cut) {
    size_t pos = 0;
    EXPECT_FALSE(simt::abi::decode_record(std::string_view(key).substr(0, cut), pos)) << cut;
  }
}

}  // namespace
