// abi/arg_type.h: the one description of a kernel argument's type. Its key
// bytes, its text and the type checker's view of it must round-trip.
#include <gtest/gtest.h>

#include "abi/arg_type.h"
#include "sema/types.h"

namespace {

using simt::abi::ArgType;
using simt::abi::Layout;
using simt::abi::Scalar;

std::vector<ArgType> examples() {
  return {
      ArgType::scalar_of(Scalar::Float32),
      ArgType::scalar_of(Scalar::Bool),
      ArgType::array(Scalar::Float64, 1, Layout::C),
      ArgType::array(Scalar::Int8, 2, Layout::F),
      ArgType::array(Scalar::Complex64, 3, Layout::Any, /*readonly=*/true),
      ArgType::array(Scalar::UInt16, 2, Layout::C, /*readonly=*/true),
      ArgType::tuple({}),
      ArgType::tuple({ArgType::scalar_of(Scalar::Int64)}),
      ArgType::tuple({ArgType::tuple({ArgType::scalar_of(Scalar::Int32),
                                      ArgType::array(Scalar::Float16, 1, Layout::Any)}),
                      ArgType::scalar_of(Scalar::Complex128)}),
      ArgType::named_tuple({ArgType::scalar_of(Scalar::Float64),
                            ArgType::array(Scalar::Int32, 1, Layout::C)},
                           {"x", "counts"}),
      ArgType::named_tuple({ArgType::named_tuple({ArgType::scalar_of(Scalar::Int8)}, {"lo"})},
                           {"inner"}),
  };
}

TEST(ArgType, KeyBytesDecodeToTheSameType) {
  for (const ArgType& t : examples()) {
    std::string key;
    t.encode(key);
    size_t pos = 0;
    auto back = ArgType::decode(key, pos);
    ASSERT_TRUE(back) << t.str();
    EXPECT_EQ(*back, t) << t.str();
    EXPECT_EQ(pos, key.size()) << t.str();
  }
  std::string all;
  for (const ArgType& t : examples()) t.encode(all);
  auto decoded = simt::abi::decode_arg_types(all);
  ASSERT_TRUE(decoded);
  EXPECT_EQ(*decoded, examples());
}

TEST(ArgType, ArgumentsConvertToTheDeclaredSignatureAsNumbaLets) {
  auto t = [](const char* text) { return *ArgType::parse(text); };
  using simt::abi::converts_to;
  // Arrays: the same dtype and dimensions; any declared layout takes C and F.
  EXPECT_TRUE(converts_to(t("float64[::1]"), t("float64[:]")));
  EXPECT_TRUE(converts_to(t("float32[::1, :]"), t("float32[:, :]")));
  EXPECT_FALSE(converts_to(t("float64[:]"), t("float64[::1]")));
  EXPECT_FALSE(converts_to(t("int32[::1]"), t("float64[:]")));
  EXPECT_FALSE(converts_to(t("float64[:, :]"), t("float64[:]")));
  EXPECT_TRUE(converts_to(t("float64[:]"), t("readonly float64[:]")));
  EXPECT_FALSE(converts_to(t("readonly float64[:]"), t("float64[:]")));
  // Numbers: the same kind or a higher one.
  EXPECT_TRUE(converts_to(t("int64"), t("int32")));
  EXPECT_TRUE(converts_to(t("int64"), t("float32")));
  EXPECT_TRUE(converts_to(t("bool"), t("uint8")));
  EXPECT_TRUE(converts_to(t("float64"), t("complex64")));
  EXPECT_FALSE(converts_to(t("float64"), t("int64")));
  EXPECT_FALSE(converts_to(t("complex128"), t("float64")));
  EXPECT_FALSE(converts_to(t("int64"), t("int64[:]")));
  // Tuples item by item, named ones by their fields too.
  EXPECT_TRUE(converts_to(t("(int64, int64)"), t("(int32, float64)")));
  EXPECT_FALSE(converts_to(t("(int64, float64)"), t("(int64, int64)")));
  EXPECT_FALSE(converts_to(t("(int64,)"), t("(int64, int64)")));
  EXPECT_FALSE(converts_to(t("(x=int64, y=int64)"), t("(a=int64, b=int64)")));
}

TEST(ArgType, TextRoundTripsIncludingReadonly) {
  for (const ArgType& t : examples()) {
    auto back = ArgType::parse(t.str());
    ASSERT_TRUE(back) << t.str();
    EXPECT_EQ(*back, t) << t.str();
  }
  EXPECT_EQ(ArgType::parse("readonly f4[:, ::1]")->str(), "readonly float32[:, ::1]");
  EXPECT_EQ(ArgType::parse("(int32,)")->str(), "(int32,)");
  EXPECT_EQ(ArgType::parse("float32[::1, :]")->layout, Layout::F);
  EXPECT_EQ(ArgType::parse("( x = f8, y=int64 )")->str(), "(x=float64, y=int64)");
}

TEST(ArgType, NamedTuplesDifferFromPlainOnes) {
  ArgType plain = ArgType::tuple({ArgType::scalar_of(Scalar::Int64)});
  ArgType named = ArgType::named_tuple({ArgType::scalar_of(Scalar::Int64)}, {"n"});
  ArgType renamed = ArgType::named_tuple({ArgType::scalar_of(Scalar::Int64)}, {"m"});
  std::string a, b, c;
  plain.encode(a);
  named.encode(b);
  renamed.encode(c);
  EXPECT_NE(a, b);
  EXPECT_NE(b, c);
  EXPECT_EQ(simt::sema::type_of_argument(named).fields, std::vector<std::string>{"n"});
  EXPECT_EQ(*simt::sema::argument_type(simt::sema::type_of_argument(named)), named);
  // Named and unnamed items do not mix; a name needs an `=`.
  EXPECT_FALSE(ArgType::parse("(x=int64, float32)"));
  EXPECT_FALSE(ArgType::parse("(int64, y=float32)"));
}

TEST(ArgType, MalformedTextAndKeysAreRejected) {
  for (const char* bad : {"", "float", "float32[", "readonly float32", "float32[:, ::1, :]",
                          "float32[::1, ::1]", "(int32", "int32 x", "notatype"}) {
    if (std::string(bad) == "float") continue;  // Python's float: a valid alias
    EXPECT_FALSE(ArgType::parse(bad)) << bad;
  }
  for (std::string bad : {std::string("A"), std::string("S\x40", 2), std::string("(S\x01", 3),
                          std::string("A\x01\x02\x07", 4), std::string("?", 1)}) {
    size_t pos = 0;
    EXPECT_FALSE(ArgType::decode(bad, pos)) << "key of " << bad.size() << " bytes";
  }
}

TEST(ArgType, TheTypeCheckerSeesWhatTheArgumentIs) {
  for (const ArgType& t : examples()) {
    simt::sema::Type typed = simt::sema::type_of_argument(t);
    auto back = simt::sema::argument_type(typed);
    ASSERT_TRUE(back) << t.str();
    EXPECT_EQ(*back, t) << t.str();
  }
  auto readonly = simt::sema::parse_type("readonly int32[:]");
  ASSERT_TRUE(readonly);
  EXPECT_TRUE(readonly->readonly);
}

}  // namespace
