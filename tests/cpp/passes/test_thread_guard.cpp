// passes::find_thread_guard: which kernels the CPU may test once per row of
// threads (the guard's truth monotone along threadIdx.x), table driven.
#include <gtest/gtest.h>

#include <memory>
#include <string>

#include "lang/parser.h"
#include "passes/thread_guard.h"
#include "sema/infer.h"
#include "sema/types.h"
#include "support/kernel_corpus.h"

namespace {

struct GuardCase {
  const char* name;
  const char* body;  // of `def k(x, out, n):`, each line indented by four spaces
  bool found;
  bool holds_when = true;
  bool straight_line = true;
};

// found: the row test is sound for it; not found: it could give a wrong row
// (an unsigned index wrapping at thread 0, a guard rising on both sides) or
// the shape is not a guard at all.
const GuardCase kCases[] = {
    {"grid_then_if", "i = cuda.grid(1)\nif i < x.size:\n    out[i] = x[i]\n", true},
    {"early_return", "i = cuda.grid(1)\nif i >= n:\n    return\nout[i] = x[i]\n", true, false},
    {"thread_arithmetic",
     "t = cuda.threadIdx.x\nb = cuda.blockIdx.x * cuda.blockDim.x\ni = t + b\n"
     "if i < n and i < x.size:\n    out[i] = x[i]\n",
     true},
    {"interval", "i = cuda.grid(1)\nif 0 < i < n - 1:\n    out[i] = x[i - 1] + x[i + 1]\n", true},
    {"falling_index", "i = n - 1 - cuda.grid(1)\nif i >= 0:\n    out[i] = x[i]\n", true},
    {"scaled", "i = 2 * cuda.grid(1) + 1\nif i < n:\n    out[i] = x[i]\n", true},
    {"not", "i = cuda.grid(1)\nif not i >= n:\n    out[i] = x[i]\n", true},
    {"branchy_body", "i = cuda.grid(1)\nif i < n:\n    if x[i] > 0:\n        out[i] = x[i]\n", true,
     true, false},
    {"else_branch", "i = cuda.grid(1)\nif i < n:\n    out[i] = x[i]\nelse:\n    pass\n", true},
    {"statement_after", "i = cuda.grid(1)\nif i < n:\n    out[i] = x[i]\nout[0] = 0\n", true, true,
     false},
    {"stencil",
     "i, j = cuda.grid(2)\nn, m = out.shape[0], x.size\nif 0 < i < n - 1 and 0 < j < m:\n"
     "    out[i] = x[i - 1]\nelif i < n:\n    out[i] = x[i]\n",
     true},
    {"grid2_row", "i, j = cuda.grid(2)\nif i < n and j < 3:\n    out[i] = x[i]\n", true},
    // Not sound, or not a guard:
    {"rising_both_sides", "i = cuda.grid(1)\nif i < 2 * i:\n    out[i] = x[i]\n", false},
    {"equality", "i = cuda.grid(1)\nif i == n:\n    out[0] = x[0]\n", false},
    {"or", "i = cuda.grid(1)\nif i < 1 or i > n:\n    out[0] = x[0]\n", false},
    {"element_test", "i = cuda.grid(1)\nif x[i] < n:\n    out[i] = x[i]\n", false},
    {"modulo", "i = cuda.grid(1) % 7\nif i < n:\n    out[i] = x[i]\n", false},
    {"store_first", "i = cuda.grid(1)\nout[0] = 1\nif i < n:\n    out[i] = x[i]\n", false},
    {"shared_array",
     "s = cuda.shared.array(4, float32)\ni = cuda.grid(1)\nif i < n:\n    out[i] = x[i]\n", false},
    {"unsigned_wraps",
     "t = uint32(cuda.threadIdx.x) - uint32(1)\nif t < uint32(n):\n    out[0] = x[0]\n", false},
    {"no_if", "i = cuda.grid(1)\nout[i] = x[i]\n", false},
    // Swapped before the test: j now rises on both sides of the comparison.
    {"swap", "i = cuda.grid(1)\nj = n\ni, j = j, i\nif j < 2 * i + j:\n    out[0] = x[0]\n", false},
};

class ThreadGuard : public ::testing::TestWithParam<GuardCase> {};

TEST_P(ThreadGuard, FoundExactlyWhereTheRowTestIsSound) {
  const GuardCase& c = GetParam();
  std::string text = "def k(x, out, n):\n";
  std::string body = c.body;
  for (size_t start = 0; start < body.size();) {
    size_t end = body.find('\n', start);
    text += "    " + body.substr(start, end - start) + "\n";
    start = end + 1;
  }
  simt::lang::SourceText source(text, "guard_test.py", 1);
  simt::lang::ParsedFunction parsed = simt::lang::parse_function(source);
  simt::sema::Globals globals = simt::testing::corpus_globals();
  for (const char* name : {"float32", "uint32"}) {
    simt::sema::GlobalValue v;
    v.kind = simt::sema::GlobalValue::Kind::DType;
    v.dtype = *simt::sema::scalar_from_name(name);
    globals[name] = v;
  }
  std::vector<simt::sema::Type> sig = {*simt::sema::parse_type("float32[::1]"),
                                       *simt::sema::parse_type("float32[::1]"),
                                       *simt::sema::parse_type("int64")};
  simt::sema::TypedFunction fn = simt::sema::infer_types(parsed, source, sig, globals);
  auto guard = simt::passes::find_thread_guard(fn);
  ASSERT_EQ(guard.has_value(), c.found) << text;
  if (!guard) return;
  EXPECT_EQ(guard->holds_when, c.holds_when);
  EXPECT_EQ(guard->straight_line, c.straight_line);
  EXPECT_EQ(guard->test_stmt->kind, simt::lang::StmtKind::If);
}

INSTANTIATE_TEST_SUITE_P(Kernels, ThreadGuard, ::testing::ValuesIn(kCases),
                         [](const auto& info) { return std::string(info.param.name); });

}  // namespace
