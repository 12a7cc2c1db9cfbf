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

TEST(ArgType, TextRoundTripsIncludingReadonly) {
  for (const ArgType& t : examples()) {
    auto back = ArgType::parse(t.str());
    ASSERT_TRUE(back) << t.str();
    EXPECT_EQ(*back, t) << t.str();
  }
  EXPECT_EQ(ArgType::parse("readonly f4[:, ::1]")->str(), "readonly float32[:, ::1]");
  EXPECT_EQ(ArgType::parse("(int32,)")->str(), "(int32,)");
  EXPECT_EQ(ArgType::parse("float32[::1, :]")->layout, Layout::F);
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
