// The CPU backend's in-process compiler (src/backends/cpu/clang_jit.h): hand-written
// sources, every corpus kernel as emitted in the cpp dialect, and saxpy run through
// its block ABI. Compile times are printed (first compile in the process, then warm).

#include <gtest/gtest.h>

#ifndef SIMT_HAVE_CPU_BACKEND

TEST(ClangJit, Unavailable) { GTEST_SKIP() << "built without the CPU backend (LLVM/Clang 19)"; }

#else

#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstdint>
#include <cstdio>
#include <memory>
#include <string>
#include <string_view>
#include <thread>
#include <vector>

#include "abi/cpu_entry.h"
#include "backends/cpu/clang_jit.h"
#include "codegen/dialect.h"
#include "codegen/emitter.h"
#include "compiler/pipeline.h"
#include "lang/diagnostics.h"
#include "lang/parser.h"
#include "sema/infer.h"
#include "support/kernel_corpus.h"

namespace {

using simt::cpu::ClangJit;
using simt::cpu::JitError;
using simt::cpu::JitModule;
using simt::cpu::JitOptions;

double ms_since(std::chrono::steady_clock::time_point start) {
  return std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - start)
      .count();
}

// Layout-compatible with the prelude's simt_block_ctx (src/codegen/dialects.cpp).
using simt::abi::CpuBlockContext;
using KernelEntry = void (*)(const CpuBlockContext*, void* const*);

// A corpus kernel emitted in the cpp dialect. The typed function points into the
// parse tree and source, so those stay alive here until emission is done.
struct CppKernel {
  std::string label;  // "<file>_<signature index>"
  simt::abi::GeneratedKernel kernel;
};

std::vector<CppKernel> emit_corpus() {
  std::vector<CppKernel> out;
  for (const auto& k : simt::testing::load_corpus(SIMT_SOURCE_DIR "/tests/cpp/data/kernels")) {
    simt::lang::SourceText source(k.text, k.path, 1);
    auto parsed = simt::lang::parse_function(source);
    for (size_t s = 0; s < k.signatures.size(); ++s) {
      out.push_back(
          {k.name + "_" + std::to_string(s),
           simt::compiler::generate(parsed, source, k.signatures[s],
                                    simt::testing::corpus_globals(), simt::abi::Language::Cpp)});
    }
  }
  return out;
}

// label is a view: GCC 13's -Wdangling-reference takes the reference returned for a
// temporary std::string argument for one into it.
const CppKernel& corpus_kernel(std::string_view label) {
  static const std::vector<CppKernel> kernels = emit_corpus();
  for (const auto& k : kernels)
    if (k.label == label) return k;
  throw std::runtime_error("no corpus kernel " + std::string(label));
}

constexpr const char* kAdd = R"(extern "C" int simt_test_add(int a, int b) { return a + b; }
)";

TEST(ClangJit, CompilesAndCallsAFunction) {
  auto start = std::chrono::steady_clock::now();
  ClangJit& jit = ClangJit::instance();
  const double init_ms = ms_since(start);
  start = std::chrono::steady_clock::now();
  auto module = jit.compile(kAdd, "add", {});
  const double first_ms = ms_since(start);
  std::printf("[ jit      ] %s, host cpu %s: instance() %.1f ms, first compile %.1f ms\n",
              jit.version().c_str(), jit.host_cpu().c_str(), init_ms, first_ms);
  auto add = reinterpret_cast<int (*)(int, int)>(module->symbol("simt_test_add"));
  ASSERT_NE(add, nullptr);
  EXPECT_EQ(add(40, 2), 42);
  EXPECT_EQ(add(2147483647, 1), -2147483647 - 1);  // -fwrapv
  EXPECT_EQ(module->name(), "add");
  EXPECT_EQ(jit.version().rfind("clang 19.", 0), 0u) << jit.version();
  EXPECT_FALSE(jit.host_cpu().empty());
}

TEST(ClangJit, SyntaxErrorThrowsWithClangDiagnostics) {
  const std::string bad = "extern \"C\" int f(int x) {\n  return x +;\n}\n";
  try {
    ClangJit::instance().compile(bad, "broken", {});
    FAIL() << "expected JitError";
  } catch (const JitError& e) {
    const std::string what = e.what();
    EXPECT_NE(what.find("broken.cpp:2:13: error: expected expression"), std::string::npos) << what;
    EXPECT_NE(what.find("return x +;"), std::string::npos) << what;  // the source line
  }
}

TEST(ClangJit, NoHeaderIsReachable) {
  // Hermetic: neither the system's nor Clang's own headers are searched.
  try {
    ClangJit::instance().compile("#include <stddef.h>\n", "inc", {});
    FAIL() << "expected JitError";
  } catch (const JitError& e) {
    EXPECT_NE(std::string(e.what()).find("'stddef.h' file not found"), std::string::npos)
        << e.what();
  }
}

TEST(ClangJit, UndefinedSymbolThrows) {
  const std::string src = R"(extern "C" void simt_test_no_such_function();
extern "C" void simt_test_caller() { simt_test_no_such_function(); }
)";
  try {
    ClangJit::instance().compile(src, "undef", {});
    FAIL() << "expected JitError";
  } catch (const JitError& e) {
    EXPECT_NE(std::string(e.what()).find("simt_test_no_such_function"), std::string::npos)
        << e.what();
  }
}

TEST(ClangJit, MissingSymbolIsNull) {
  auto module = ClangJit::instance().compile(kAdd, "add", {});
  EXPECT_EQ(module->symbol("simt_test_sub"), nullptr);
  EXPECT_EQ(module->symbol(""), nullptr);
  EXPECT_EQ(module->symbol("printf"), nullptr);  // used is not defined
  EXPECT_NE(module->symbol("simt_test_add"), nullptr);
}

TEST(ClangJit, ProcessSymbolsResolve) {
  // printf, libm (what __builtin_sin/exp/pow lower to) and memcpy/memset come from
  // the process.
  const std::string src = R"(extern "C" int printf(const char*, ...);
extern "C" double simt_test_sin(double x) { return __builtin_sin(x); }
extern "C" float simt_test_expf(float x) { return __builtin_expf(x); }
extern "C" double simt_test_pow(double x, double y) { return __builtin_pow(x, y); }
extern "C" int simt_test_printf(int v) { return printf("jit printf %d\n", v); }
extern "C" void simt_test_copy(char* dst, const char* src, long long n) {
  __builtin_memcpy(dst, src, n);
  __builtin_memset(dst + n, 0, n);
}
)";
  auto module = ClangJit::instance().compile(src, "process", {});
  auto jsin = reinterpret_cast<double (*)(double)>(module->symbol("simt_test_sin"));
  auto jexpf = reinterpret_cast<float (*)(float)>(module->symbol("simt_test_expf"));
  auto jpow = reinterpret_cast<double (*)(double, double)>(module->symbol("simt_test_pow"));
  auto jprintf = reinterpret_cast<int (*)(int)>(module->symbol("simt_test_printf"));
  auto jcopy =
      reinterpret_cast<void (*)(char*, const char*, long long)>(module->symbol("simt_test_copy"));
  ASSERT_TRUE(jsin && jexpf && jpow && jprintf && jcopy);
  for (double x : {0.5, 1.0, 3.0, -7.25, 1e6}) EXPECT_EQ(jsin(x), std::sin(x)) << x;
  EXPECT_EQ(jexpf(1.5f), std::exp(1.5f));
  EXPECT_EQ(jpow(1.7, 3.3), std::pow(1.7, 3.3));
  std::fflush(stdout);
  EXPECT_EQ(jprintf(42), 14);  // "jit printf 42\n"
  std::fflush(stdout);
  std::vector<char> dst(64, 'x');
  const std::string text = "0123456789abcdef";
  jcopy(dst.data(), text.data(), 16);
  EXPECT_EQ(std::string(dst.data(), 16), text);
  EXPECT_TRUE(std::all_of(dst.begin() + 16, dst.begin() + 32, [](char c) { return c == 0; }));
  EXPECT_EQ(dst[32], 'x');
}

TEST(ClangJit, NumPyFloatSemantics) {
  const std::string src = R"(extern "C" float simt_test_madd(float a, float b, float c) {
  return a * b + c;
}
extern "C" int simt_test_to_int(float x) { return (int)x; }
)";
  auto module = ClangJit::instance().compile(src, "semantics", {});
  auto madd = reinterpret_cast<float (*)(float, float, float)>(module->symbol("simt_test_madd"));
  auto to_int = reinterpret_cast<int (*)(float)>(module->symbol("simt_test_to_int"));
  ASSERT_TRUE(madd && to_int);
  // (1 + 2^-12)^2 = 1 + 2^-11 + 2^-24 rounds to 1 + 2^-11 in float, so a * b + c is 0
  // with two roundings and 2^-24 with a fused multiply-add (-ffp-contract=off).
  const float a = 1.0f + std::ldexp(1.0f, -12);
  const float c = -(1.0f + std::ldexp(1.0f, -11));
  EXPECT_EQ(madd(a, a, c), 0.0f);
  // -fno-strict-float-cast-overflow: out-of-range casts saturate, NaN gives 0.
  EXPECT_EQ(to_int(1e10f), 2147483647);
  EXPECT_EQ(to_int(-1e10f), -2147483647 - 1);
  EXPECT_EQ(to_int(std::nanf("")), 0);
}

TEST(ClangJit, SameNamesInTwoModulesCoexist) {
  auto one = ClangJit::instance().compile(
      "extern \"C\" int simt_test_which() { return 1; }\nextern \"C\" int simt_test_g = 10;\n",
      "same", {});
  auto two = ClangJit::instance().compile(
      "extern \"C\" int simt_test_which() { return 2; }\nextern \"C\" int simt_test_g = 20;\n",
      "same", {});
  auto f1 = reinterpret_cast<int (*)()>(one->symbol("simt_test_which"));
  auto f2 = reinterpret_cast<int (*)()>(two->symbol("simt_test_which"));
  ASSERT_TRUE(f1 && f2);
  EXPECT_NE(reinterpret_cast<void*>(f1), reinterpret_cast<void*>(f2));
  EXPECT_EQ(f1(), 1);
  EXPECT_EQ(f2(), 2);
  EXPECT_EQ(*static_cast<int*>(one->symbol("simt_test_g")), 10);
  EXPECT_EQ(*static_cast<int*>(two->symbol("simt_test_g")), 20);
}

TEST(ClangJit, DestroyThenCompileAgain) {
  for (int round = 0; round < 3; ++round) {
    auto module = ClangJit::instance().compile(kAdd, "again", {});
    auto add = reinterpret_cast<int (*)(int, int)>(module->symbol("simt_test_add"));
    ASSERT_NE(add, nullptr);
    EXPECT_EQ(add(round, 1), round + 1);
    module.reset();  // frees the code; the next round links the same names anew
  }
}

TEST(ClangJit, FastmathAccepted) {
  const std::string src = R"(extern "C" float simt_test_sum(const float* x, long long n) {
  float s = 0.0f;
  for (long long i = 0; i < n; ++i) s += x[i] * 0.5f;
  return s;
}
)";
  JitOptions fast;
  fast.fastmath = true;
  auto module = ClangJit::instance().compile(src, "fast", fast);
  auto sum = reinterpret_cast<float (*)(const float*, long long)>(module->symbol("simt_test_sum"));
  ASSERT_NE(sum, nullptr);
  std::vector<float> x(1000, 2.0f);
  EXPECT_FLOAT_EQ(sum(x.data(), static_cast<long long>(x.size())), 1000.0f);
  for (int level : {0, 1, 2}) {
    JitOptions o;
    o.opt_level = level;
    auto m = ClangJit::instance().compile(src, "level", o);
    auto s = reinterpret_cast<float (*)(const float*, long long)>(m->symbol("simt_test_sum"));
    ASSERT_NE(s, nullptr);
    EXPECT_EQ(s(x.data(), 1000), 1000.0f) << "opt_level " << level;
  }
}

TEST(ClangJit, EveryCorpusKernelCompiles) {
  std::vector<CppKernel> kernels;
  ASSERT_NO_THROW(kernels = emit_corpus());
  ASSERT_FALSE(kernels.empty());
  double total_ms = 0;
  std::vector<std::pair<double, std::string>> times;
  int with_warnings = 0;  // Clang warnings are kept on the module, never printed
  for (const auto& k : kernels) {
    SCOPED_TRACE(k.label);
    const auto start = std::chrono::steady_clock::now();
    std::unique_ptr<JitModule> module;
    try {
      module = ClangJit::instance().compile(k.kernel.source, k.label, {});
    } catch (const JitError& e) {
      ADD_FAILURE() << e.what() << "\n--- source ---\n" << k.kernel.source;
      continue;
    }
    const double ms = ms_since(start);
    total_ms += ms;
    times.emplace_back(ms, k.label);
    if (!module->diagnostics().empty()) ++with_warnings;
    EXPECT_NE(module->symbol(k.kernel.entry), nullptr) << k.kernel.entry;
  }
  std::sort(times.rbegin(), times.rend());
  std::printf(
      "[ jit      ] %zu corpus kernels (%d with warnings): mean %.1f ms per compile; "
      "slowest:",
      kernels.size(), with_warnings, total_ms / static_cast<double>(kernels.size()));
  for (size_t i = 0; i < std::min<size_t>(3, times.size()); ++i)
    std::printf(" %s %.1f ms", times[i].second.c_str(), times[i].first);
  std::printf("\n");
}

TEST(ClangJit, RunsSaxpyThroughTheBlockAbi) {
  const CppKernel& saxpy = corpus_kernel("saxpy_0");  // float32, float32[::1] x3
  ASSERT_EQ(saxpy.kernel.params.size(), 10u);
  auto module = ClangJit::instance().compile(saxpy.kernel.source, "saxpy", {});
  auto entry = reinterpret_cast<KernelEntry>(module->symbol(saxpy.kernel.entry));
  ASSERT_NE(entry, nullptr) << saxpy.kernel.entry;

  const long long n = 1000;  // not a multiple of the block: the bounds check matters
  std::vector<float> x(n), y(n), out(n, -1.0f);
  for (long long i = 0; i < n; ++i) {
    x[i] = 0.25f * static_cast<float>(i) - 3.0f;
    y[i] = 1.0f / static_cast<float>(i + 1);
  }
  float a = 1.7f;
  float* xd = x.data();
  float* yd = y.data();
  float* od = out.data();
  long long shape = n, stride = 1;
  // One pointer per parameter slot, in simt::abi::Param order: a, then data, shape0,
  // stride0 (in elements) for each 1-D array.
  void* const args[] = {&a, &xd, &shape, &stride, &yd, &shape, &stride, &od, &shape, &stride};

  // A call per block, then (saxpy reads its x position only through cuda.grid) calls
  // that each run a row of blocks: 3, then the rest.
  const long long block = 128, grid = (n + block - 1) / block;
  ASSERT_TRUE(saxpy.kernel.requirements.x_spans);
  for (const std::vector<long long>& spans :
       {std::vector<long long>(grid, 1), std::vector<long long>{3, grid - 3}}) {
    std::fill(out.begin(), out.end(), -1.0f);
    long long b = 0;
    for (long long span : spans) {
      CpuBlockContext ctx{};
      ctx.grid_dim[0] = grid;
      ctx.grid_dim[1] = ctx.grid_dim[2] = 1;
      ctx.block_dim[0] = block;
      ctx.block_dim[1] = ctx.block_dim[2] = 1;
      ctx.block_idx[0] = b;
      ctx.x_blocks = span;
      entry(&ctx, args);
      b += span;
    }
    for (long long i = 0; i < n; ++i) {
      const float product = a * x[i];  // two roundings, as the kernel (no FMA)
      const float expected = product + y[i];
      ASSERT_EQ(out[i], expected) << "i = " << i << ", spans of " << spans.front();
    }
  }
}

TEST(ClangJit, ConcurrentCompiles) {
  const CppKernel& saxpy = corpus_kernel("saxpy_1");
  constexpr int kThreads = 4, kPerThread = 3;
  std::vector<int> ok(kThreads, 0);
  std::vector<std::string> errors(kThreads);
  std::vector<std::thread> threads;
  const auto start = std::chrono::steady_clock::now();
  for (int t = 0; t < kThreads; ++t) {
    threads.emplace_back([&, t] {
      try {
        for (int i = 0; i < kPerThread; ++i) {
          auto m = ClangJit::instance().compile(saxpy.kernel.source, "t" + std::to_string(t), {});
          auto add = ClangJit::instance().compile(kAdd, "add" + std::to_string(t), {});
          auto f = reinterpret_cast<int (*)(int, int)>(add->symbol("simt_test_add"));
          if (m->symbol(saxpy.kernel.entry) != nullptr && f != nullptr && f(t, i) == t + i) ++ok[t];
        }
      } catch (const std::exception& e) {
        errors[t] = e.what();
      }
    });
  }
  for (auto& th : threads) th.join();
  std::printf("[ jit      ] %d threads x %d x 2 compiles: %.1f ms wall\n", kThreads, kPerThread,
              ms_since(start));
  for (int t = 0; t < kThreads; ++t) {
    EXPECT_EQ(ok[t], kPerThread) << "thread " << t << ": " << errors[t];
  }
}

TEST(ClangJit, CompileTimes) {
  // Informational (never a timed assertion): warm compile of a small kernel.
  ClangJit& jit = ClangJit::instance();
  const CppKernel& saxpy = corpus_kernel("saxpy_0");
  for (int warmup = 0; warmup < 2; ++warmup) jit.compile(saxpy.kernel.source, "warm", {});
  constexpr int kRounds = 20;
  std::vector<double> ms;
  for (int i = 0; i < kRounds; ++i) {
    const auto start = std::chrono::steady_clock::now();
    auto m = jit.compile(saxpy.kernel.source, "warm", {});
    ms.push_back(ms_since(start));
  }
  std::sort(ms.begin(), ms.end());
  std::printf("[ jit      ] warm saxpy compile: min %.2f ms, median %.2f ms, max %.2f ms\n",
              ms.front(), ms[ms.size() / 2], ms.back());
  const auto start = std::chrono::steady_clock::now();
  auto m = jit.compile(kAdd, "tiny", {});
  std::printf("[ jit      ] warm tiny-function compile: %.2f ms\n", ms_since(start));
}

}  // namespace

#endif  // SIMT_HAVE_CPU_BACKEND
