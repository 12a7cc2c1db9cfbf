// abi/signature.h: the one reader of the signatures users write, in Numba's vocabulary.
#include <gtest/gtest.h>

#include "abi/signature.h"

namespace {

using simt::abi::parse_signature;
using simt::abi::Signature;

// "result | params" of a signature that must read, the result "-" when it declares none.
std::string read(std::string_view text) {
  std::string why;
  std::optional<Signature> s = parse_signature(text, &why);
  EXPECT_TRUE(s) << text << ": " << why;
  if (!s) return "";
  std::string out = s->result ? s->result->str() : "-";
  out += " |";
  for (const auto& p : s->params) out += " " + p.str();
  return out;
}

std::string error(std::string_view text) {
  std::string why;
  EXPECT_FALSE(parse_signature(text, &why)) << text;
  return why;
}

TEST(Signature, ReadsEachFormUsersWrite) {
  EXPECT_EQ(read("void(float32[:], int64)"), "- | float32[:] int64");
  EXPECT_EQ(read("(float32[::1], float32)"), "- | float32[::1] float32");
  EXPECT_EQ(read("float32(float32, int32)"), "float32 | float32 int32");
  EXPECT_EQ(read("none(int32)"), "- | int32");
  EXPECT_EQ(read("float32[:], int64"), "- | float32[:] int64");
  EXPECT_EQ(read("  void ( f4[:, ::1] ,i8 )  "), "- | float32[:, ::1] int64");
  EXPECT_EQ(read("void()"), "- |");
  EXPECT_EQ(read("()"), "- |");
  EXPECT_EQ(read(""), "- |");
  EXPECT_EQ(read("(int32,)"), "- | int32");
  EXPECT_EQ(read("readonly float64[::1, :]"), "- | readonly float64[::1, :]");
}

TEST(Signature, TuplesAreArguments) {
  EXPECT_EQ(read("void((int64, float32), f8)"), "- | (int64, float32) float64");
  EXPECT_EQ(read("void((x=f4, y=f4))"), "- | (x=float32, y=float32)");
  // A parenthesized list is the argument list, as it always was.
  EXPECT_EQ(read("(int64, float32)"), "- | int64 float32");
  EXPECT_EQ(read("(int64, float32),"), "- | (int64, float32)");
}

TEST(Signature, PointersAsDeclareDeviceTakesThem) {
  EXPECT_EQ(read("float32(float32, CPointer(int32))"), "float32 | float32 CPointer(int32)");
  EXPECT_EQ(read("none(CPointer( f8 ), b1)"), "- | CPointer(float64) bool");
  EXPECT_EQ(read("CPointer(i4)"), "- | CPointer(int32)");
  EXPECT_EQ(read("int64, CPointer(u1)"), "- | int64 CPointer(uint8)");
}

TEST(Signature, ReadsNumbasNames) {
  EXPECT_EQ(read("void(boolean, b1, intp, uintp, double, float_, byte, char)"),
            "- | bool bool int64 uint64 float64 float32 uint8 int8");
  EXPECT_EQ(read("(f2, f4, f8, i1, i2, i4, i8, u1, u2, u4, u8, c8, c16)"),
            "- | float16 float32 float64 int8 int16 int32 int64 uint8 uint16 uint32 uint64 "
            "complex64 complex128");
  EXPECT_EQ(read("(long_, ulong, size_t, ssize_t, uchar)"), "- | int64 uint64 uint64 int64 uint8");
  EXPECT_EQ(read("double(double)"), "float64 | float64");
}

TEST(Signature, NumpyKeepsItsOwnReadingOfSharedNames) {
  using simt::abi::Scalar;
  using simt::abi::scalar_from_name;
  using simt::abi::Spelling;
  EXPECT_EQ(scalar_from_name("float_"), Scalar::Float64);
  EXPECT_EQ(scalar_from_name("float_", Spelling::Numba), Scalar::Float32);
  EXPECT_EQ(scalar_from_name("byte"), Scalar::Int8);
  EXPECT_EQ(scalar_from_name("byte", Spelling::Numba), Scalar::UInt8);
  EXPECT_FALSE(scalar_from_name("boolean"));
  for (Spelling spelling : {Spelling::NumPy, Spelling::Numba})
    for (const auto& alias : simt::abi::scalar_aliases(spelling))
      EXPECT_EQ(scalar_from_name(alias.name, spelling), alias.scalar) << alias.name;
}

TEST(Signature, ErrorsNameTheTextAndWhatIsWrong) {
  EXPECT_TRUE(error("void(float32[:], int65)")
                  .starts_with("the signature 'void(float32[:], int65)' has argument 2 "
                               "'int65', which is not a type (such as float32,"));
  EXPECT_NE(error("foo(int32)").find("the result type 'foo'"), std::string::npos);
  EXPECT_NE(error("void(float32[:]").find("does not balance"), std::string::npos);
  EXPECT_NE(error("void(int32])").find("does not balance"), std::string::npos);
  EXPECT_NE(error("void(int32,,int64)").find("no type for argument 2"), std::string::npos);
  EXPECT_NE(error("void(CPointer(float32[:]))").find("CPointer takes a number"), std::string::npos);
  EXPECT_NE(error("CPointer(f4)(int32)").find("returns a pointer"), std::string::npos);
  EXPECT_NE(error("void").find("'void', which is not a type"), std::string::npos);
  EXPECT_NE(error("void(float32[:, :, ::1, :])").find("argument 1"), std::string::npos);
}

}  // namespace
