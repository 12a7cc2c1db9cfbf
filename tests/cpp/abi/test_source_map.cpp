// abi/source_map.h: generated lines back to Python statements, C token
// search, and compiler logs annotated with the Python lines they cite.

#include <gtest/gtest.h>

#include <string>

#include "abi/source_map.h"

namespace {

using simt::abi::annotate_compiler_log;
using simt::abi::find_identifier;
using simt::abi::python_line_of;

constexpr const char* kGenerated = R"(typedef long simt_i64;
static inline double helper(double x) { return x; }

__kernel void simt_kernel_k(__global float* out) {
  // my:file.py:3: i = cuda.grid(1)
  long v_i = get_global_id(0);
  // my:file.py:4: out[i] = "double" + x  # 'double'
  out[v_i] = (float)helper(1.0);
  /* double */
}
)";

TEST(SourceMap, GeneratedLinesMapToTheStatementAbove) {
  auto where = python_line_of(kGenerated, 6);
  ASSERT_TRUE(where);
  EXPECT_EQ(where->file, "my:file.py");  // colons in a file name survive
  EXPECT_EQ(where->line, 3);
  EXPECT_EQ(where->text, "i = cuda.grid(1)");
  where = python_line_of(kGenerated, 8);
  ASSERT_TRUE(where);
  EXPECT_EQ(where->line, 4);
  EXPECT_EQ(python_line_of(kGenerated, 7)->line, 4);  // the comment line itself
}

TEST(SourceMap, LinesOutsideStatementsMapNowhere) {
  EXPECT_FALSE(python_line_of(kGenerated, 1));  // prelude
  EXPECT_FALSE(python_line_of(kGenerated, 2));  // a helper
  EXPECT_FALSE(python_line_of(kGenerated, 4));  // the signature
  EXPECT_FALSE(python_line_of(kGenerated, 0));
  EXPECT_FALSE(python_line_of(kGenerated, 99));
}

TEST(SourceMap, IdentifiersAreFoundOutsideCommentsAndStrings) {
  EXPECT_EQ(find_identifier(kGenerated, "double"), 2);
  EXPECT_EQ(find_identifier("float doubled = 1; // double\n/* double */ \"double\"\n", "double"),
            0);
  EXPECT_EQ(find_identifier("x\n'\\''; y\nlong double z;", "double"), 3);
  EXPECT_EQ(find_identifier(kGenerated, "v_i"), 6);
  EXPECT_EQ(find_identifier(kGenerated, "nothing"), 0);
}

TEST(SourceMap, CompilerLogsGetThePythonLine) {
  std::string clang_log =
      "<source>:8:14: error: use of undeclared identifier 'helper'\n"
      "1 error generated.";
  std::string annotated = annotate_compiler_log(clang_log, kGenerated);
  EXPECT_EQ(annotated,
            "<source>:8:14: error: use of undeclared identifier 'helper'\n"
            "  (generated from my:file.py:4: out[i] = \"double\" + x  # 'double')\n"
            "1 error generated.");
  std::string nvrtc_log = "k.cu(6): error: identifier \"v_i\" is undefined";
  EXPECT_NE(annotate_compiler_log(nvrtc_log, kGenerated)
                .find("(generated from my:file.py:3: i = cuda.grid(1))"),
            std::string::npos);
  // Lines citing nothing, or citing prelude lines, pass through unchanged.
  EXPECT_EQ(annotate_compiler_log("warning: 99999999999999:1: x\n<source>:1:1: note", kGenerated),
            "warning: 99999999999999:1: x\n<source>:1:1: note");
}

}  // namespace
