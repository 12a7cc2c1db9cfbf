// Every row of the intrinsic table (sema/intrinsics.cpp) typed and emitted in
// every dialect through the compiler pipeline, and the CUDA code compiled by
// NVRTC where it is present: a row whose rule has no typing case, no
// lowering case or no snippet here fails, naming the row.
#include <gtest/gtest.h>

#include <map>
#include <memory>
#include <string>

#include "codegen/helpers.h"
#include "compiler/pipeline.h"
#include "lang/diagnostics.h"
#include "lang/parser.h"
#include "sema/intrinsics.h"
#include "support/compile_checks.h"
#include "support/kernel_corpus.h"

namespace {

using simt::sema::Rule;

// A statement calling `F` (the intrinsic as Python spells it) in a kernel
// `k(out, x, u, n)`: out and x float64[::1], u uint32[::1], n int64, with
// `i = simt.grid(1)` defined. Every Rule has one.
const std::map<Rule, std::string>& snippets() {
  static const std::map<Rule, std::string> kSnippets = {
      {Rule::FloatUnary, "out[i] = F(x[i])"},
      {Rule::FloatBinary, "out[i] = F(x[i], x[0])"},
      {Rule::Ldexp, "out[i] = F(x[i], n)"},
      {Rule::FloatSplit, "p, q = F(x[i])\n    out[i] = p + q"},
      {Rule::FloatPredicate, "out[i] = 1.0 if F(x[i]) else 0.0"},
      {Rule::FloatToInt, "out[i] = F(x[i])"},
      {Rule::FloatRound, "out[i] = F(x[i])"},
      {Rule::Abs, "out[i] = F(x[i])"},
      {Rule::MinMax, "out[i] = F(x[i], 1.0)"},
      {Rule::CastInt, "out[i] = F(x[i])"},
      {Rule::CastFloat, "out[i] = F(n)"},
      {Rule::CastBool, "out[i] = 1.0 if F(x[i]) else 0.0"},
      {Rule::CastComplex, "c = F(x[i], 1.0)\n    out[i] = c.real"},
      {Rule::Round, "out[i] = F(x[i])"},
      {Rule::Pow, "out[i] = F(x[i], 3)"},
      {Rule::Len, "out[i] = F(x)"},
      {Rule::Range, "for j in F(n):\n        out[i] += x[j]"},
      {Rule::Print, "F(\"value\", x[i], n)"},
      {Rule::Grid, "j = F(1)\n    out[j] = 0.0"},
      {Rule::GridSize, "out[i] = F(1)"},
      {Rule::ArrayAlloc, "s = F(32, np.float64)\n    s[0] = x[i]\n    out[i] = s[0]"},
      {Rule::Barrier, "F()"},
      {Rule::BarrierReduce, "out[i] = F(x[i] > 0.0)"},
      {Rule::Fence, "F()"},
      {Rule::Atomic, "out[i] = F(u, 0, 3)"},
      {Rule::AtomicCas, "out[i] = F(u, 0, 1, 2)"},
      {Rule::LaneId, "out[i] = F"},
      {Rule::WarpSize, "out[i] = F"},
      {Rule::ActiveMask, "u[i] = F()"},
      {Rule::ConstArrayLike, "t = F(TABLE)\n    out[i] = t[1]"},
      {Rule::Shuffle, "out[i] = F(0xffffffff, x[i], 1)"},
      {Rule::Vote, "v = F(0xffffffff, x[i] > 0.0)\n    out[i] = 1.0 if v else 0.0"},
      {Rule::FloatTernary, "out[i] = F(x[i], x[0], 1.0)"},
      {Rule::IntBits, "u[i] = F(u[i])\n    out[i] = F(n)"},
      {Rule::Select, "out[i] = F(x[i] > 0.0, x[i], n)"},
      {Rule::Enumerate, "for a, b in F(range(n)):\n        out[i] += x[b] + a"},
      {Rule::Zip, "for a, b in F(range(n), range(1, n, 2)):\n        out[i] += x[a] + b"},
      {Rule::CompareAndSwap, "out[i] = F(u, 1, 2)"},
      {Rule::SyncWarp, "F()\n    F(0xffff)"},
      {Rule::LaneMask, "u[i] = F()"},
      {Rule::Match, "r = F(0xffffffff, x[i])\n    out[i] = 1.0"},
      {Rule::HalfUnary, "out[i] = F(x[i])"},
      {Rule::HalfBinary, "out[i] = F(x[i], 1.5)"},
      {Rule::HalfTernary, "out[i] = F(x[i], x[0], n)"},
      {Rule::HalfCompare, "out[i] = 1.0 if F(x[i], 0.5) else 0.0"},
      {Rule::ThisGrid, "g = F()\n    out[i] = x[i]\n    g.sync()"},
      // The method is reached only as an attribute of a grid group.
      {Rule::GridSync, "out[i] = x[i]\n    simt.cg.this_grid().sync()"},
      {Rule::ComplexUnary, "c = F(x[i] + 1j)\n    out[i] = c.real + c.imag"},
      {Rule::ComplexPhase, "out[i] = F(x[i] - 2j)"},
      {Rule::ComplexPolar, "p, q = F(x[i] + 1j)\n    out[i] = p + q"},
      {Rule::ComplexRect, "c = F(x[i], 0.5)\n    out[i] = c.imag"},
      {Rule::Operator, "out[i] = F(n, 3)"},
      // A method: x.reshape(...), written as such (the row's name is not Python's).
      {Rule::Reshape, "out[i] = x.reshape(n, -1)[0, 0]"},
  };
  return kSnippets;
}

// "math.sin" -> "math.sin", "numpy.floor" -> "np.floor", "builtins.abs" -> "abs".
std::string python_spelling(std::string_view name) {
  if (name.starts_with("builtins.")) return std::string(name.substr(9));
  if (name.starts_with("numpy.")) return "np." + std::string(name.substr(6));
  return std::string(name);
}

std::string kernel_text(const simt::sema::Intrinsic& row) {
  std::string body = snippets().at(row.rule);
  // The operator module's rows take one operand (neg, not_) or index (getitem).
  if (row.rule == Rule::Operator && row.max_args == 1) body = "out[i] = F(n)";
  if (row.rule == Rule::Operator && row.c_name == "getitem") body = "out[i] = F(x, n)";
  const std::string call = python_spelling(row.name);
  for (size_t p = body.find('F'); p != std::string::npos; p = body.find('F', p + call.size()))
    body.replace(p, 1, call);
  return "def k(out, x, u, n):\n    i = simt.grid(1)\n    " + body + "\n";
}

simt::sema::Globals table_globals() {
  simt::sema::Globals g = simt::testing::corpus_module_globals();
  simt::sema::GlobalValue table;
  table.kind = simt::sema::GlobalValue::Kind::ConstArray;
  table.dtype = simt::sema::Scalar::Float64;
  table.shape = {4};
  table.bytes = std::make_shared<const std::string>(4 * sizeof(double), '\0');
  g["TABLE"] = table;
  return g;
}

TEST(IntrinsicTable, EveryComplexFormHasAHelper) {
  for (std::string_view name : simt::sema::kComplexForms)
    EXPECT_TRUE(simt::codegen::complex_math_helper(name).has_value()) << name;
}

TEST(IntrinsicTable, EveryRuleHasASnippet) {
  for (const auto& row : simt::sema::intrinsic_table())
    EXPECT_TRUE(snippets().count(row.rule)) << row.name << ": add its rule to the snippets";
}

TEST(IntrinsicTable, EveryRowTypesAndEmitsInEveryDialect) {
  const simt::sema::Globals globals = table_globals();
  const std::vector<simt::sema::Type> signature = {
      *simt::sema::parse_type("float64[::1]"), *simt::sema::parse_type("float64[::1]"),
      *simt::sema::parse_type("uint32[::1]"), *simt::sema::parse_type("int64")};
  using simt::abi::Language;
  int nvrtc_checked = 0;
  for (const auto& row : simt::sema::intrinsic_table()) {
    if (!snippets().count(row.rule)) continue;  // reported above
    const std::string text = kernel_text(row);
    simt::lang::SourceText source(text, "table.py", 1);
    const simt::lang::ParsedFunction parsed = simt::lang::parse_function(source);
    for (Language language : {Language::Cuda, Language::OpenCL, Language::Cpp}) {
      simt::abi::GeneratedKernel kernel;
      try {
        kernel = simt::compiler::generate(parsed, source, signature, globals, language);
      } catch (const std::exception& e) {
        ADD_FAILURE() << row.name << " in " << simt::abi::language_name(language) << ":\n"
                      << text << e.what();
        continue;
      }
      EXPECT_NE(kernel.source.find(kernel.entry), std::string::npos) << row.name;
      const bool warp = row.rule == Rule::Shuffle || row.rule == Rule::Vote ||
                        row.rule == Rule::ActiveMask || row.rule == Rule::SyncWarp ||
                        row.rule == Rule::LaneMask || row.rule == Rule::Match;
      EXPECT_EQ(kernel.requirements.warps.has_value(), warp) << row.name;
      const bool grid = row.rule == Rule::ThisGrid || row.rule == Rule::GridSync;
      EXPECT_EQ(kernel.requirements.grid_sync.has_value(), grid) << row.name;
      if (language != Language::Cuda) continue;
      auto check = simt::testing::check_cuda(kernel.source, "table");
      if (!check.ran) continue;
      ++nvrtc_checked;
      EXPECT_TRUE(check.ok) << row.name << ": NVRTC rejected\n" << kernel.source << check.log;
    }
  }
  if (nvrtc_checked == 0) GTEST_SKIP() << "emitted every row; NVRTC unavailable to compile them";
}

}  // namespace
