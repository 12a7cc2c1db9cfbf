// Inputs the fuzzers (tests/fuzz) found crashing or miscompiling, reduced to
// a few lines: each compiles in every dialect, or fails with a CompileError,
// and never throws anything else.
#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "compiler/pipeline.h"
#include "lang/diagnostics.h"
#include "lang/parser.h"
#include "sema/types.h"
#include "support/kernel_corpus.h"

namespace {

using simt::abi::Language;

constexpr Language kDialects[] = {Language::Cuda, Language::OpenCL, Language::Cpp};

std::vector<simt::sema::Type> types(const std::vector<std::string>& texts) {
  std::vector<simt::sema::Type> out;
  for (const auto& text : texts) {
    auto t = simt::sema::parse_type(text);
    EXPECT_TRUE(t.has_value()) << text;
    if (t) out.push_back(*t);
  }
  return out;
}

// The generated source of `text` for `arg_types` in `language`; a
// CompileError fails the test with its message.
std::string generate(const std::string& text, const std::vector<std::string>& arg_types,
                     Language language) {
  simt::lang::SourceText source(text, "fuzz.py", 1);
  try {
    auto parsed = simt::lang::parse_function(source);
    return simt::compiler::generate(parsed, source, types(arg_types),
                                    simt::testing::corpus_module_globals(), language)
        .source;
  } catch (const simt::lang::CompileError& e) {
    ADD_FAILURE() << e.what();
    return "";
  }
}

// A tuple expression statement holding a string, None or a module (a
// docstring followed by a comma) has nothing to emit for those items; the
// emitter threw std::logic_error("cannot emit this expression").
TEST(FuzzRegression, TupleStatementOfValuesWithoutCode) {
  const std::string text =
      "def k(a):\n"
      "    \"\"\"doc\"\"\",\n"
      "    (None, a[0], math)\n"
      "    a[0] = 1\n";
  for (Language language : kDialects) {
    std::string code = generate(text, {"float32[::1]"}, language);
    EXPECT_NE(code.find("(void)("), std::string::npos) << code;  // a[0] is still evaluated
  }
}

}  // namespace
