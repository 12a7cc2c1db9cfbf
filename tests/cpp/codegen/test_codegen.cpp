// The emitter: snapshots of every corpus kernel in every dialect, the
// generated code compiled by the real compilers (NVRTC for CUDA, the first
// OpenCL device for OpenCL C, the system C++ compiler for C++), and
// properties of the output (mangling, parameter slots, line comments).
//
// Snapshots live in tests/cpp/data/snapshots/<kernel>_<signature index>.<dialect>.
// After an intended change to the generated code, regenerate them with
//   SIMT_UPDATE_SNAPSHOTS=1 ./build/tests/cpp/simt_cpp_tests --gtest_filter='*CodegenSnapshot*'
// and review the diff.

#include <gtest/gtest.h>

#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <map>
#include <memory>
#include <mutex>
#include <regex>
#include <set>
#include <sstream>
#include <string>
#include <vector>

#include "codegen/dialect.h"
#include "codegen/emitter.h"
#include "compiler/pipeline.h"
#include "lang/diagnostics.h"
#include "lang/parser.h"
#include "sema/infer.h"
#include "sema/types.h"
#include "support/compile_checks.h"
#include "support/kernel_corpus.h"

namespace {

namespace fs = std::filesystem;
using simt::abi::GeneratedKernel;
using simt::abi::Language;
using simt::abi::Param;

constexpr const char* kKernelDir = "tests/cpp/data/kernels";
constexpr const char* kSnapshotDir = "tests/cpp/data/snapshots";
constexpr simt::abi::Language kDialects[] = {simt::abi::Language::Cuda, simt::abi::Language::OpenCL,
                                             simt::abi::Language::Cpp};

fs::path repo_path(const std::string& relative) { return fs::path(SIMT_SOURCE_DIR) / relative; }

std::string read_file(const fs::path& path) { return simt::testing::read_text_file(path); }

bool update_snapshots() {
  const char* v = std::getenv("SIMT_UPDATE_SNAPSHOTS");
  return v != nullptr && std::string(v) == "1";
}

// ---- The corpus, parsed, typed and emitted once for the whole binary -------

// One kernel of the corpus with its source kept alive: TypedFunction points
// into the parse tree and the source text.
struct LoadedKernel {
  simt::testing::CorpusKernel corpus;
  std::unique_ptr<simt::lang::SourceText> source;
  std::unique_ptr<simt::lang::ParsedFunction> parsed;
  std::string error;  // parse error, if any
};

struct Corpus {
  std::vector<LoadedKernel> kernels;
  std::string load_error;
};

const Corpus& corpus() {
  static const Corpus* c = [] {
    auto* out = new Corpus;
    try {
      for (auto& k : simt::testing::load_corpus(repo_path(kKernelDir).string())) {
        LoadedKernel lk;
        lk.corpus = std::move(k);
        // A path relative to the repository: the header line of generated
        // code names the file, and snapshots must not depend on the checkout.
        lk.source = std::make_unique<simt::lang::SourceText>(
            lk.corpus.text, std::string(kKernelDir) + "/" + lk.corpus.name + ".py", 1);
        try {
          lk.parsed =
              std::make_unique<simt::lang::ParsedFunction>(simt::lang::parse_function(*lk.source));
        } catch (const simt::lang::CompileError& e) {
          lk.error = e.diagnostic().format();
        }
        out->kernels.push_back(std::move(lk));
      }
    } catch (const std::exception& e) {
      out->load_error = e.what();
    }
    return out;
  }();
  return *c;
}

struct Case {
  size_t kernel = 0;
  size_t signature = 0;
  simt::abi::Language dialect = simt::abi::Language::Cuda;
};

std::string dialect_name(simt::abi::Language d) {
  return std::string(simt::codegen::dialect(d).name);
}

// How GoogleTest shows a case (in --gtest_list_tests and failures).
void PrintTo(const Case& c, std::ostream* os) {
  *os << "kernel " << c.kernel << " signature " << c.signature << " " << dialect_name(c.dialect);
}

std::string case_name(const Case& c) {
  return corpus().kernels[c.kernel].corpus.name + "_" + std::to_string(c.signature);
}

std::string signature_text(const std::vector<simt::sema::Type>& sig) {
  std::string s = "(";
  for (size_t i = 0; i < sig.size(); ++i) s += (i ? ", " : "") + sig[i].str();
  return s + ")";
}

// The emitted kernel of a case, or the error that stopped it (memoized: the
// snapshot and compiler tests share one emission per case).
struct Emission {
  bool ok = false;
  simt::abi::GeneratedKernel kernel;
  std::string error;
};

// c by value: GCC 13's -Wdangling-reference takes the reference returned for a temporary
// Case argument (emit({k, 0, d})) for one into it.
const Emission& emit(Case c) {
  static std::mutex mu;
  static std::map<std::tuple<size_t, size_t, int>, Emission> cache;
  std::lock_guard<std::mutex> lock(mu);
  auto key = std::make_tuple(c.kernel, c.signature, static_cast<int>(c.dialect));
  auto it = cache.find(key);
  if (it != cache.end()) return it->second;
  Emission e;
  const LoadedKernel& k = corpus().kernels[c.kernel];
  if (!k.parsed) {
    e.error = "parse error: " + k.error;
  } else {
    try {
      e.kernel = simt::compiler::generate(*k.parsed, *k.source, k.corpus.signatures[c.signature],
                                          simt::testing::corpus_globals(), c.dialect);
      e.ok = true;
    } catch (const simt::lang::CompileError& err) {
      e.error = err.diagnostic().format();
    } catch (const std::exception& err) {
      e.error = std::string("exception: ") + err.what();
    }
  }
  return cache.emplace(key, std::move(e)).first->second;
}

std::vector<Case> all_cases(bool per_dialect) {
  std::vector<Case> cases;
  const Corpus& c = corpus();
  for (size_t k = 0; k < c.kernels.size(); ++k)
    for (size_t s = 0; s < c.kernels[k].corpus.signatures.size(); ++s) {
      if (!per_dialect) {
        cases.push_back({k, s, simt::abi::Language::Cuda});
        continue;
      }
      for (simt::abi::Language d : kDialects) cases.push_back({k, s, d});
    }
  return cases;
}

std::string describe(const Case& c) {
  const LoadedKernel& k = corpus().kernels[c.kernel];
  return k.corpus.name + ".py signature " + std::to_string(c.signature) + " " +
         signature_text(k.corpus.signatures[c.signature]) + " dialect " + dialect_name(c.dialect);
}

// The first line where two texts differ, for a readable snapshot failure.
std::string first_difference(const std::string& expected, const std::string& actual) {
  std::istringstream a(expected), b(actual);
  std::string la, lb;
  for (int line = 1;; ++line) {
    bool ga = static_cast<bool>(std::getline(a, la));
    bool gb = static_cast<bool>(std::getline(b, lb));
    if (!ga && !gb) return "texts differ only in the final newline";
    if (!ga || !gb || la != lb)
      return "first difference at line " + std::to_string(line) +
             ":\n  snapshot: " + (ga ? la : "<end of file>") +
             "\n  emitted:  " + (gb ? lb : "<end of file>");
  }
}

TEST(CodegenCorpus, LoadsAndParses) {
  const Corpus& c = corpus();
  ASSERT_EQ(c.load_error, "");
  ASSERT_FALSE(c.kernels.empty());
  for (const auto& k : c.kernels) {
    EXPECT_EQ(k.error, "") << k.corpus.name;
    EXPECT_FALSE(k.corpus.signatures.empty()) << k.corpus.name << " has no # signature: line";
  }
}

// ---- Snapshots --------------------------------------------------------------

class CodegenSnapshot : public ::testing::TestWithParam<Case> {};

TEST_P(CodegenSnapshot, MatchesFile) {
  const Case& c = GetParam();
  const Emission& e = emit(c);
  ASSERT_TRUE(e.ok) << describe(c) << ": " << e.error;
  fs::path file = repo_path(kSnapshotDir) / (case_name(c) + "." + dialect_name(c.dialect));
  if (update_snapshots()) {
    fs::create_directories(file.parent_path());
    std::ofstream out(file, std::ios::binary | std::ios::trunc);
    out << e.kernel.source;
    ASSERT_TRUE(out.good()) << "cannot write " << file;
    return;
  }
  ASSERT_TRUE(fs::exists(file)) << file << " is missing; run with SIMT_UPDATE_SNAPSHOTS=1";
  std::string expected = read_file(file);
  EXPECT_TRUE(expected == e.kernel.source)
      << describe(c) << " differs from " << file << " (SIMT_UPDATE_SNAPSHOTS=1 rewrites it)\n"
      << first_difference(expected, e.kernel.source);
}

std::string snapshot_case_name(const ::testing::TestParamInfo<Case>& info) {
  return case_name(info.param) + "_" + dialect_name(info.param.dialect);
}

INSTANTIATE_TEST_SUITE_P(Corpus, CodegenSnapshot, ::testing::ValuesIn(all_cases(true)),
                         snapshot_case_name);

// Every snapshot file belongs to a corpus case: a renamed kernel or a dropped
// signature leaves no stale file behind (update mode deletes them).
TEST(CodegenSnapshotFiles, NoStaleSnapshots) {
  std::set<std::string> expected;
  for (const Case& c : all_cases(true))
    expected.insert(case_name(c) + "." + dialect_name(c.dialect));
  fs::path dir = repo_path(kSnapshotDir);
  if (!fs::exists(dir)) {
    if (!update_snapshots()) FAIL() << dir << " does not exist";
    return;
  }
  for (const auto& entry : fs::directory_iterator(dir)) {
    std::string name = entry.path().filename().string();
    if (expected.count(name)) continue;
    if (update_snapshots()) {
      fs::remove(entry.path());
    } else {
      ADD_FAILURE() << "stale snapshot " << entry.path() << " matches no corpus kernel/signature";
    }
  }
}

// The header names the file relative to the repository, never the checkout.
TEST(CodegenSnapshotFiles, HeaderNamesRelativePath) {
  for (const Case& c : all_cases(true)) {
    const Emission& e = emit(c);
    if (!e.ok) continue;  // reported by the snapshot test
    std::string header = e.kernel.source.substr(0, e.kernel.source.find('\n'));
    std::string rel =
        std::string(kKernelDir) + "/" + corpus().kernels[c.kernel].corpus.name + ".py";
    EXPECT_NE(header.find(rel), std::string::npos) << describe(c) << ": " << header;
    EXPECT_EQ(e.kernel.source.find(SIMT_SOURCE_DIR), std::string::npos) << describe(c);
  }
}

// ---- The generated code compiles ------------------------------------------

class CodegenNvrtc : public ::testing::TestWithParam<Case> {};

TEST_P(CodegenNvrtc, CompilesForSm90) {
  const Case& c = GetParam();
  const Emission& e = emit(c);
  ASSERT_TRUE(e.ok) << describe(c) << ": " << e.error;
  simt::testing::CompileCheck r = simt::testing::check_cuda(e.kernel.source, case_name(c));
  if (!r.ran) GTEST_SKIP() << r.log;
  EXPECT_TRUE(r.ok) << describe(c) << "\n" << r.log << "\n---- source ----\n" << e.kernel.source;
}

std::string signature_case_name(const ::testing::TestParamInfo<Case>& info) {
  return case_name(info.param);
}

INSTANTIATE_TEST_SUITE_P(Corpus, CodegenNvrtc, ::testing::ValuesIn(all_cases(false)),
                         signature_case_name);

class CodegenOpenCL : public ::testing::TestWithParam<Case> {};

bool uses_scalar(const std::vector<simt::sema::Type>& sig, simt::sema::Scalar s) {
  for (const auto& t : sig) {
    if ((t.is_scalar() || t.is_array()) && t.scalar == s) return true;
    if (t.is_tuple() && uses_scalar(t.items, s)) return true;
  }
  return false;
}

TEST_P(CodegenOpenCL, BuildsOnFirstDevice) {
  Case c = GetParam();
  c.dialect = simt::abi::Language::OpenCL;
  const auto& sig = corpus().kernels[c.kernel].corpus.signatures[c.signature];
  bool fp64 = uses_scalar(sig, simt::sema::Scalar::Float64) ||
              uses_scalar(sig, simt::sema::Scalar::Complex128);
  const Emission& e = emit(c);
  ASSERT_TRUE(e.ok) << describe(c) << ": " << e.error;
  simt::testing::CompileCheck r = simt::testing::check_opencl(e.kernel.source, fp64);
  if (!r.ran) GTEST_SKIP() << r.log;
  EXPECT_TRUE(r.ok) << describe(c) << " " << r.log << "\n---- source ----\n" << e.kernel.source;
}

INSTANTIATE_TEST_SUITE_P(Corpus, CodegenOpenCL, ::testing::ValuesIn(all_cases(false)),
                         signature_case_name);

// Until the embedded Clang exists, the system C++ compiler checks the C++
// dialect (syntax and types only: nothing links).
class CodegenCpp : public ::testing::TestWithParam<Case> {};

TEST_P(CodegenCpp, CompilesWithSystemCompiler) {
  Case c = GetParam();
  c.dialect = simt::abi::Language::Cpp;
  const Emission& e = emit(c);
  ASSERT_TRUE(e.ok) << describe(c) << ": " << e.error;
  simt::testing::CompileCheck r = simt::testing::check_cpp(e.kernel.source, case_name(c));
  if (!r.ran) GTEST_SKIP() << r.log;
  EXPECT_TRUE(r.ok) << describe(c) << "\n" << r.log << "\n---- source ----\n" << e.kernel.source;
}

INSTANTIATE_TEST_SUITE_P(Corpus, CodegenCpp, ::testing::ValuesIn(all_cases(false)),
                         signature_case_name);

// ---- Properties of the generated code --------------------------------------

// Parses, types and emits one kernel given as text.
struct Compiled {
  std::unique_ptr<simt::lang::SourceText> source;
  std::unique_ptr<simt::lang::ParsedFunction> parsed;
  simt::sema::TypedFunction typed;
  simt::abi::GeneratedKernel kernel;
};

Compiled compile_text(const std::string& text, const std::string& signature,
                      simt::abi::Language dialect = simt::abi::Language::Cuda) {
  Compiled c;
  c.source = std::make_unique<simt::lang::SourceText>(text, "tests/props.py", 10);
  c.parsed = std::make_unique<simt::lang::ParsedFunction>(simt::lang::parse_function(*c.source));
  std::vector<simt::sema::Type> sig;
  for (const auto& part : simt::testing::split_signature(signature)) {
    auto t = simt::sema::parse_type(part);
    if (!t) throw std::runtime_error("bad type in test: " + part);
    sig.push_back(*t);
  }
  c.typed = simt::sema::infer_types(*c.parsed, *c.source, sig, simt::testing::corpus_globals());
  c.kernel = simt::compiler::generate(c.typed, dialect);
  return c;
}

// The code without comments and string literals: what the C compiler sees
// as identifiers.
std::string strip_comments_and_strings(const std::string& code) {
  std::string out;
  for (size_t i = 0; i < code.size(); ++i) {
    if (code.compare(i, 2, "//") == 0) {
      while (i < code.size() && code[i] != '\n') ++i;
      out += '\n';
    } else if (code.compare(i, 2, "/*") == 0) {
      size_t end = code.find("*/", i + 2);
      i = end == std::string::npos ? code.size() : end + 1;
      out += ' ';
    } else if (code[i] == '"') {
      ++i;
      while (i < code.size() && code[i] != '"') i += code[i] == '\\' ? 2 : 1;
      out += "\"\"";
    } else {
      out += code[i];
    }
  }
  return out;
}

std::set<std::string> identifiers(const std::string& code) {
  std::set<std::string> ids;
  std::regex id(R"([A-Za-z_][A-Za-z_0-9]*)");
  std::string stripped = strip_comments_and_strings(code);
  for (auto it = std::sregex_iterator(stripped.begin(), stripped.end(), id);
       it != std::sregex_iterator(); ++it)
    ids.insert(it->str());
  return ids;
}

size_t corpus_index(const std::string& name) {
  const Corpus& c = corpus();
  for (size_t k = 0; k < c.kernels.size(); ++k)
    if (c.kernels[k].corpus.name == name) return k;
  return c.kernels.size();
}

TEST(CodegenProperties, UserNamesAreMangled) {
  size_t k = corpus_index("names");
  ASSERT_LT(k, corpus().kernels.size()) << "names.py is missing from the corpus";
  for (simt::abi::Language d : kDialects) {
    const Emission& e = emit({k, 0, d});
    ASSERT_TRUE(e.ok) << e.error;
    const std::string& src = e.kernel.source;
    std::set<std::string> ids = identifiers(src);
    // Every user name appears mangled.
    for (const char* name : {"v_sin", "v_int", "v_float4", "v_j1", "v_threadIdx", "v_double"})
      EXPECT_TRUE(ids.count(name)) << dialect_name(d) << ": no " << name << "\n" << src;
    // Names no dialect itself uses never appear unmangled.
    for (const char* name : {"sin", "float4", "j1", "kernel"})
      EXPECT_FALSE(ids.count(name)) << dialect_name(d) << ": unmangled " << name << "\n" << src;
    // Names the dialect does use (types, CUDA's threadIdx) are never declared
    // as variables or parameters.
    std::regex declaration(
        R"((?:int|long|double|float|float4|short|char|bool|simt_i64|unsigned)\s*\*?\s+)"
        R"((sin|int|float4|j1|threadIdx|double)\s*[=;,)\[])");
    std::string stripped = strip_comments_and_strings(src);
    std::smatch m;
    EXPECT_FALSE(std::regex_search(stripped, m, declaration))
        << dialect_name(d) << ": declares '" << m.str(1) << "' in: " << m.str(0) << "\n"
        << src;
  }
}

TEST(CodegenProperties, KernelSymbol) {
  EXPECT_EQ(simt::codegen::kernel_symbol("kernel"), "simt_kernel_kernel");
  EXPECT_EQ(simt::codegen::kernel_symbol("saxpy"), "simt_kernel_saxpy");
  EXPECT_EQ(simt::codegen::kernel_symbol("_private2"), "simt_kernel__private2");
}

TEST(CodegenProperties, EntryIsKernelSymbolAndDefined) {
  for (const Case& c : all_cases(true)) {
    const Emission& e = emit(c);
    if (!e.ok) continue;
    const std::string& py_name = corpus().kernels[c.kernel].parsed->def.name;
    EXPECT_EQ(e.kernel.entry, simt::codegen::kernel_symbol(py_name)) << describe(c);
    EXPECT_NE(e.kernel.source.find(" " + e.kernel.entry + "("), std::string::npos) << describe(c);
  }
}

TEST(CodegenProperties, ParamRecordsOfScalarAndCArray) {
  Compiled c = compile_text(
      "def k(alpha, m):\n"
      "    i, j = cuda.grid(2)\n"
      "    if i < m.shape[0] and j < m.shape[1]:\n"
      "        m[i, j] = alpha\n",
      "float32, float32[:, ::1]");
  const auto& p = c.kernel.params;
  ASSERT_EQ(p.size(), 6u);
  using K = simt::abi::Param::Role;
  EXPECT_EQ(p[0].role, K::Scalar);
  EXPECT_EQ(p[0].argument, 0);
  EXPECT_EQ(p[0].scalar, simt::sema::Scalar::Float32);
  EXPECT_EQ(p[1].role, K::ArrayData);
  EXPECT_EQ(p[1].argument, 1);
  EXPECT_EQ(p[1].scalar, simt::sema::Scalar::Float32);
  const K rest[] = {K::ArrayShape, K::ArrayShape, K::ArrayStride, K::ArrayStride};
  const int dims[] = {0, 1, 0, 1};
  for (int s = 0; s < 4; ++s) {
    EXPECT_EQ(p[2 + s].role, rest[s]) << "slot " << 2 + s;
    EXPECT_EQ(p[2 + s].dim, dims[s]) << "slot " << 2 + s;
    EXPECT_EQ(p[2 + s].argument, 1) << "slot " << 2 + s;
  }
  for (const auto& slot : p) {
    EXPECT_TRUE(slot.path.empty());
    EXPECT_FALSE(slot.c_type.empty());
    // The declared C types are the ones in the signature of the kernel.
    EXPECT_NE(c.kernel.source.find(slot.c_type), std::string::npos) << slot.c_type;
  }
  EXPECT_EQ(p[0].c_type, "float");
}

TEST(CodegenProperties, ParamRecordsOfTupleArgument) {
  Compiled c = compile_text(
      "def k(out, t):\n"
      "    a, b = t\n"
      "    out[0] = a + b\n",
      "int64[::1], (int32, float64)");
  const auto& p = c.kernel.params;
  ASSERT_EQ(p.size(), 5u);
  EXPECT_EQ(p[3].role, simt::abi::Param::Role::Scalar);
  EXPECT_EQ(p[3].argument, 1);
  EXPECT_EQ(p[3].path, std::vector<int>{0});
  EXPECT_EQ(p[3].scalar, simt::sema::Scalar::Int32);
  EXPECT_EQ(p[4].path, std::vector<int>{1});
  // Leaves in the order a launch classifies them: out, t[0], t[1]; an
  // array's extents and strides are its leaf's.
  const int leaves[] = {0, 0, 0, 1, 2};
  for (int s = 0; s < 5; ++s) EXPECT_EQ(p[s].leaf, leaves[s]) << "slot " << s;
  EXPECT_EQ(p[4].scalar, simt::sema::Scalar::Float64);
}

TEST(CodegenProperties, LineCommentsMapBackToPython) {
  size_t k = corpus_index("saxpy");
  ASSERT_LT(k, corpus().kernels.size());
  for (simt::abi::Language d : kDialects) {
    const Emission& e = emit({k, 0, d});
    ASSERT_TRUE(e.ok) << e.error;
    const std::string& src = e.kernel.source;
    EXPECT_NE(src.find("// saxpy.py:5: i = cuda.grid(1)\n"), std::string::npos) << src;
    EXPECT_NE(src.find("// saxpy.py:6: if i < out.size:\n"), std::string::npos) << src;
    EXPECT_NE(src.find("// saxpy.py:7: out[i] = a * x[i] + y[i]\n"), std::string::npos) << src;
  }
}

TEST(CodegenProperties, LineCommentsUseFileLineNumbers) {
  // SourceText starts at file line 10 in compile_text.
  Compiled c = compile_text(
      "def k(out):\n"
      "    out[0] = 1\n",
      "int32[::1]");
  EXPECT_NE(c.kernel.source.find("// props.py:11: out[0] = 1\n"), std::string::npos)
      << c.kernel.source;
}

// A `//` comment ending in a backslash swallows the next line in C.
TEST(CodegenProperties, BackslashContinuationDoesNotEndAComment) {
  for (simt::abi::Language d : kDialects) {
    Compiled c = compile_text(
        "def k(out, a, b):\n"
        "    x = a + \\\n"
        "        b\n"
        "    out[0] = x\n",
        "int64[::1], int64, int64", d);
    std::istringstream lines(c.kernel.source);
    std::string line;
    while (std::getline(lines, line)) {
      if (line.find("//") == std::string::npos) continue;
      std::string trimmed = line.substr(0, line.find_last_not_of(" \t\r") + 1);
      EXPECT_FALSE(!trimmed.empty() && trimmed.back() == '\\')
          << dialect_name(d) << ": comment line ends in a backslash: " << line << "\n"
          << c.kernel.source;
    }
    // The assignment itself is still emitted.
    EXPECT_NE(c.kernel.source.find("v_x = "), std::string::npos) << c.kernel.source;
  }
}

// A Python comment may end in a backslash without continuing the line.
TEST(CodegenProperties, PythonCommentEndingInBackslashIsNotSpliced) {
  for (simt::abi::Language d : kDialects) {
    Compiled c = compile_text(
        "def k(out, a):\n"
        "    if a > 0:  # a path: C:\\\n"
        "        out[0] = a\n",
        "int64[::1], int64", d);
    std::istringstream lines(c.kernel.source);
    std::string line;
    while (std::getline(lines, line)) {
      if (line.find("//") == std::string::npos) continue;
      EXPECT_NE(line.back(), '\\') << dialect_name(d) << ": " << line;
    }
  }
}

// OpenCL C compilers (Clang-based ones such as PoCL's) replace the trigraph
// ??/ with a backslash, so a comment ending in it splices the next line.
TEST(CodegenProperties, CommentEndingInTrigraphIsNotSpliced) {
  for (simt::abi::Language d : kDialects) {
    Compiled c = compile_text(
        "def k(out, a):\n"
        "    if a > 0:  # ?\?/\n"
        "        out[0] = a\n",
        "int64[::1], int64", d);
    std::istringstream lines(c.kernel.source);
    std::string line;
    while (std::getline(lines, line)) {
      if (line.find("//") == std::string::npos) continue;
      std::string trimmed = line.substr(0, line.find_last_not_of(" \t") + 1);
      EXPECT_FALSE(trimmed.size() >= 3 && trimmed.compare(trimmed.size() - 3, 3, "?\?/") == 0)
          << dialect_name(d) << ": " << line;
    }
  }
}

// An integer literal outside the other operand's range must not wrap into
// it before a comparison: Python (and NumPy 2) compare exactly.
TEST(CodegenProperties, ComparisonWithOutOfRangeLiteralDoesNotWrap) {
  Compiled c = compile_text(
      "def k(out, x, u):\n"
      "    out[0] = x < 3000000000\n"
      "    out[1] = u > -1\n",
      "bool[::1], int32, uint32");
  EXPECT_EQ(c.kernel.source.find("4294967295"), std::string::npos) << c.kernel.source;
  EXPECT_EQ(c.kernel.source.find("-1294967296"), std::string::npos) << c.kernel.source;
}

// A case inference let through that the emitter cannot lower is a
// CompileError at the statement, not an error without a location.
TEST(CodegenProperties, InternalErrorsNameTheStatement) {
  simt::lang::SourceText source(
      "def k(out):\n"
      "    x = 1\n"
      "    if x > 0:\n"
      "        out[0] = x\n",
      "tests/props.py", 10);
  simt::lang::ParsedFunction parsed = simt::lang::parse_function(source);
  simt::sema::TypedFunction typed = simt::sema::infer_types(
      parsed, source, {*simt::sema::parse_type("int64[::1]")}, simt::testing::corpus_globals());
  // `x` in `out[0] = x` as a name with no variable: what a global module
  // in a tuple display was before inference rejected it.
  const simt::lang::Expr& x = *parsed.def.body[1]->body[0]->value;
  ASSERT_EQ(x.kind, simt::lang::ExprKind::Name);
  typed.exprs[&x].local = -1;
  typed.exprs[&x].constant.reset();
  try {
    simt::compiler::generate(typed, simt::abi::Language::Cpp);
    FAIL() << "expected a CompileError";
  } catch (const simt::lang::CompileError& e) {
    EXPECT_EQ(e.diagnostic().kind, simt::lang::DiagnosticKind::Typing);
    EXPECT_EQ(e.diagnostic().span.line, 13u);  // the innermost statement
    EXPECT_NE(e.diagnostic().message.find("internal error"), std::string::npos)
        << e.diagnostic().message;
    EXPECT_NE(e.diagnostic().message.find("global 'x' has no value"), std::string::npos)
        << e.diagnostic().message;
  }
}

TEST(CodegenProperties, DialectsAreNamedAndFound) {
  for (simt::abi::Language d : kDialects) {
    auto found = simt::codegen::dialect_from_name(dialect_name(d));
    ASSERT_TRUE(found.has_value()) << dialect_name(d);
    EXPECT_EQ(*found, d);
  }
  EXPECT_FALSE(simt::codegen::dialect_from_name("metal").has_value());
}

}  // namespace
