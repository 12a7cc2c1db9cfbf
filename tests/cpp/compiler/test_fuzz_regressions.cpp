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
#include "support/compile_checks.h"
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

// `x[i] += v` with x complex64 and v float64 or complex128 computes in
// complex128; the element was passed as it is, a complex64 struct, to the
// complex128 helper, which the C compilers reject.
TEST(FuzzRegression, AugmentedAssignmentWidensTheTargetToTheOperation) {
  const std::string text =
      "def k(x, v):\n"
      "    i = cuda.grid(1)\n"
      "    if i < x.size:\n"
      "        x[i] += v\n"
      "        x[i] *= v\n";
  for (const char* v : {"float64", "int64", "complex128"}) {
    std::string code = generate(text, {"complex64[::1]", v}, Language::Cpp);
    auto checked = simt::testing::check_cpp(code, "aug_complex");
    if (checked.ran) {
      EXPECT_TRUE(checked.ok) << v << "\n" << checked.log << "\n" << code;
    }
    EXPECT_EQ(code.find("simt_cadd_c128(v_x.data"), std::string::npos) << code;
    std::string opencl = generate(text, {"complex64[::1]", v}, Language::OpenCL);
    auto built = simt::testing::check_opencl(opencl, /*needs_fp64=*/true);
    if (built.ran) {
      EXPECT_TRUE(built.ok) << v << "\n" << built.log << "\n" << opencl;
    }
  }
}

// `cuda.syncthreads(),` (a barrier inside a tuple statement) is a barrier
// on the GPUs and, on the CPU, whose regions need barriers as statements of
// their own, a kernel in fiber mode; it was std::logic_error("syncthreads()
// and threadfence() are statements").
TEST(FuzzRegression, BarrierInsideATupleStatement) {
  const std::string text =
      "def k(a):\n"
      "    cuda.syncthreads(),\n"
      "    a[0] = 1\n";
  EXPECT_NE(generate(text, {"float32[::1]"}, Language::Cuda).find("__syncthreads()"),
            std::string::npos);
  const std::string cpp = generate(text, {"float32[::1]"}, Language::Cpp);
  EXPECT_NE(cpp.find("simt_ctx->fibers->run_block("), std::string::npos) << cpp;
  EXPECT_NE(cpp.find("simt_ctx->fibers->barrier(simt_ctx, 0, 0);"), std::string::npos) << cpp;
}

size_t count(const std::string& text, const std::string& what) {
  size_t n = 0;
  for (size_t at = text.find(what); at != std::string::npos; at = text.find(what, at + 1)) ++n;
  return n;
}

// The body of a loop over a tuple is emitted once per item: a call in it
// (an atomic, a device function) ran in the first copy only, and the later
// copies named its temporary, out of scope there (BackendCompileError).
TEST(FuzzRegression, CallsInALoopOverATupleRunInEveryIteration) {
  const std::string text =
      "def k(x, hist):\n"
      "    for j in (1, 2, x.size):\n"
      "        cuda.atomic.add(hist, j, 1)\n";
  std::string cuda = generate(text, {"uint8[::1]", "int32[::1]"}, Language::Cuda);
  EXPECT_EQ(count(cuda, "atomicAdd("), 3u) << cuda;
  std::string cpp = generate(text, {"uint8[::1]", "int32[::1]"}, Language::Cpp);
  auto checked = simt::testing::check_cpp(cpp, "tuple_loop_calls");
  if (checked.ran) {
    EXPECT_TRUE(checked.ok) << checked.log << "\n" << cpp;
  }
}

}  // namespace
