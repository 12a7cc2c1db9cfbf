// A device compiler's log as errors show it: the first lines, each cut to a width.
#include <gtest/gtest.h>

#include <string>

#include "abi/compiler_log.h"

namespace {

using simt::abi::kLogLinesShown;
using simt::abi::kLogLineWidth;
using simt::abi::shortened_compiler_log;

TEST(CompilerLog, AShortLogIsKeptAsItIs) {
  EXPECT_EQ(shortened_compiler_log("k.cl:2:8: error: x\n  o[0] = x;\n"),
            "k.cl:2:8: error: x\n  o[0] = x;");
}

TEST(CompilerLog, ALongLogKeepsItsFirstLinesAndCountsTheRest) {
  std::string log;
  for (int k = 0; k < 5000; ++k) log += "k.cl:" + std::to_string(k) + ":1: error: undefined\n";
  const std::string shown = shortened_compiler_log(log);
  EXPECT_EQ(shown.rfind("k.cl:0:1: error", 0), 0u);
  EXPECT_NE(shown.find("... " + std::to_string(5000 - kLogLinesShown) +
                       " more lines of the compiler's log"),
            std::string::npos);
  EXPECT_LT(shown.size(), (kLogLinesShown + 1) * (kLogLineWidth + 40));
}

TEST(CompilerLog, ALongLineIsCut) {
  const std::string shown = shortened_compiler_log(std::string(100000, 'x'));
  EXPECT_LT(shown.size(), kLogLineWidth + 40);
  EXPECT_NE(shown.find("more characters"), std::string::npos);
}

}  // namespace
