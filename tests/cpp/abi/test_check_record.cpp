// abi/check_record.h: what the host makes of a checked launch's record.

#include <gtest/gtest.h>

#include <array>
#include <string>
#include <vector>

#include "abi/check_record.h"

namespace {

using simt::abi::CheckSite;
using simt::abi::read_check_record;
namespace record = simt::abi::check_record;

std::vector<CheckSite> sites() {
  CheckSite index{CheckSite::Kind::Index, {"/x/k.py", 12, "b[i] = a[i + 1]", 12}, "a"};
  CheckSite assertion{CheckSite::Kind::Assert, {"/x/k.py", 14, "assert n > 0, \"n\"", 12}, "n"};
  CheckSite bare{CheckSite::Kind::Assert, {"/x/k.py", 15, "assert m", 12}, ""};
  return {index, assertion, bare};
}

std::array<int64_t, record::kWords> failed(CheckSite::Kind kind, int64_t site) {
  std::array<int64_t, record::kWords> r{};
  r[record::kStatus] = static_cast<int64_t>(kind);
  r[record::kSite] = site;
  r[record::kIndex] = -9;
  r[record::kExtent] = 8;
  r[record::kAxis] = 1;
  r[record::kThread] = 3;
  r[record::kBlock + 2] = 7;
  return r;
}

TEST(CheckRecord, ZeroStatusIsNoFailure) {
  std::array<int64_t, record::kWords> r{};
  r[record::kSite] = 2;  // words other than the status do not count
  EXPECT_FALSE(read_check_record(r, sites(), "k").has_value());
}

TEST(CheckRecord, IndexFailureReadsAsNumPysMessageAndWhere) {
  auto failure = read_check_record(failed(CheckSite::Kind::Index, 0), sites(), "k");
  ASSERT_TRUE(failure.has_value());
  EXPECT_EQ(failure->kind, CheckSite::Kind::Index);
  EXPECT_EQ(failure->message,
            "index -9 is out of bounds for axis 1 with size 8 (array 'a' in kernel 'k', thread "
            "(3, 0, 0) of block (0, 0, 7), at /x/k.py:12: b[i] = a[i + 1])");
}

TEST(CheckRecord, AssertFailureUsesItsMessageOrADefault) {
  auto with = read_check_record(failed(CheckSite::Kind::Assert, 1), sites(), "k");
  ASSERT_TRUE(with.has_value());
  EXPECT_EQ(with->kind, CheckSite::Kind::Assert);
  EXPECT_EQ(with->message.rfind("n (in kernel 'k', thread (3, 0, 0)", 0), 0u) << with->message;
  auto bare = read_check_record(failed(CheckSite::Kind::Assert, 2), sites(), "k");
  ASSERT_TRUE(bare.has_value());
  EXPECT_EQ(bare->message.rfind("assertion failed (in kernel 'k'", 0), 0u) << bare->message;
}

TEST(CheckRecord, ARecordNamingNoKnownSiteIsStillAFailure) {
  for (int64_t site : {int64_t{-1}, int64_t{3}, int64_t{1} << 40}) {
    auto failure = read_check_record(failed(CheckSite::Kind::Index, site), sites(), "k");
    ASSERT_TRUE(failure.has_value());
    EXPECT_NE(failure->message.find("unreadable"), std::string::npos);
  }
  // A kind that does not match its site's.
  auto mismatch = read_check_record(failed(CheckSite::Kind::Assert, 0), sites(), "k");
  ASSERT_TRUE(mismatch.has_value());
  EXPECT_NE(mismatch->message.find("unreadable"), std::string::npos);
}

}  // namespace
