// libFuzzer target over the whole compiler without a device: the input is
// kernel source, parsed, typed and emitted in every dialect (CUDA C++,
// OpenCL C, the CPU's C++). A CompileError is the compiler doing its job;
// anything else (a crash, an escaping std::logic_error, a sanitizer report,
// a hang) is a defect.
//
// Input format, so that mutations reach every stage:
//   - lines `# signature: T, T, ...` (as in tests/cpp/data/kernels) give the
//     argument types to compile for; without one, a fixed list of types is
//     dealt to the parameters;
//   - lines `#---` split the input into parts: every part but the last is a
//     device function (@simt.func) visible to the later parts by its name,
//     the last part is the kernel.
// Build: cmake -DSIMT_BUILD_FUZZERS=ON with Clang (scripts/fuzz.sh).

#include <cstddef>
#include <cstdint>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "abi/kernel_abi.h"
#include "codegen/emitter.h"
#include "compiler/pipeline.h"
#include "lang/diagnostics.h"
#include "lang/parser.h"
#include "sema/infer.h"
#include "sema/types.h"
#include "support/kernel_corpus.h"

namespace {

using simt::sema::Globals;
using simt::sema::GlobalValue;
using simt::sema::Type;

// Bounds that keep one input fast: the fuzzer looks for defects, and huge
// inputs or many signatures only make each run slower.
constexpr size_t kMaxInputBytes = 4096;
constexpr size_t kMaxSignatures = 4;
constexpr size_t kMaxParts = 4;

std::vector<std::string_view> split_lines(std::string_view text) {
  std::vector<std::string_view> lines;
  size_t start = 0;
  while (start <= text.size()) {
    size_t end = text.find('\n', start);
    if (end == std::string_view::npos) end = text.size();
    lines.push_back(text.substr(start, end - start));
    start = end + 1;
  }
  return lines;
}

// nullopt when a type does not parse: such a signature is skipped, as the
// Python side rejects it before the compiler runs.
std::optional<std::vector<Type>> parse_signature(std::string_view text) {
  std::vector<Type> types;
  for (const auto& part : simt::testing::split_signature(std::string(text))) {
    auto t = simt::sema::parse_type(part);
    if (!t) return std::nullopt;
    types.push_back(*t);
  }
  return types;
}

// Types dealt round-robin to the parameters of a kernel without signatures.
const std::vector<Type>& default_types() {
  static const std::vector<Type> types = [] {
    std::vector<Type> out;
    for (const char* text :
         {"float32[::1]", "int64", "float64[:, :]", "int32[:]", "float32", "(int64, int64)",
          "complex64[::1]", "bool", "readonly float32[:]", "uint8[::1]", "float16[::1]",
          "float64[::1, :]", "int16", "(float32[::1], int32)"}) {
      auto t = simt::sema::parse_type(text);
      if (t) out.push_back(*t);
    }
    return out;
  }();
  return types;
}

GlobalValue module_value(const char* name) {
  GlobalValue v;
  v.kind = GlobalValue::Kind::Module;
  v.name = name;
  return v;
}

GlobalValue int_constant(int64_t value) {
  GlobalValue v;
  v.kind = GlobalValue::Kind::Constant;
  v.constant.type = Type::scalar_of(simt::abi::Scalar::Int64, /*weak=*/true);
  v.constant.int_value = value;
  v.constant.real = static_cast<double>(value);  // as src/python/compiler.cpp reads an int
  return v;
}

GlobalValue float_constant(double value) {
  GlobalValue v;
  v.kind = GlobalValue::Kind::Constant;
  v.constant.type = Type::scalar_of(simt::abi::Scalar::Float64, /*weak=*/true);
  v.constant.real = value;
  return v;
}

// Free names as the Python side could resolve them: the modules the tests'
// kernels use and one global of each other kind, so mutations that rename a
// name reach every kind of global.
Globals base_globals() {
  Globals g;
  g["math"] = module_value("math");
  g["np"] = module_value("numpy");
  g["numpy"] = module_value("numpy");
  g["simt"] = module_value("simt");
  g["cuda"] = module_value("simt");
  g["N"] = int_constant(16);
  g["BIG"] = int_constant(INT64_MAX);
  g["EPS"] = float_constant(1e-6);
  GlobalValue dtype;
  dtype.kind = GlobalValue::Kind::DType;
  dtype.dtype = simt::abi::Scalar::Float32;
  g["float32"] = dtype;
  GlobalValue shape;
  shape.kind = GlobalValue::Kind::Tuple;
  shape.items = {int_constant(4), int_constant(8)};
  g["SHAPE"] = shape;
  GlobalValue member;
  member.kind = GlobalValue::Kind::Member;
  member.name = "simt";
  member.attribute = "threadIdx";
  g["threadIdx"] = member;
  GlobalValue unsupported;
  unsupported.kind = GlobalValue::Kind::Unsupported;
  unsupported.name = "a str object";
  g["NAME"] = unsupported;
  GlobalValue table;
  table.kind = GlobalValue::Kind::ConstArray;
  table.dtype = simt::abi::Scalar::Int32;
  table.shape = {2, 2};
  table.bytes =
      std::make_shared<const std::string>(std::string("\1\0\0\0\2\0\0\0\3\0\0\0\4\0\0\0", 16));
  g["TABLE"] = table;
  return g;
}

struct Input {
  std::vector<std::string> parts;  // device functions first, the kernel last
  std::vector<std::vector<Type>> signatures;
};

Input read_input(std::string_view text) {
  Input in;
  std::string part;
  for (std::string_view line : split_lines(text)) {
    constexpr std::string_view kSignature = "# signature:";
    if (line.starts_with("#---")) {
      if (in.parts.size() + 1 < kMaxParts) {
        in.parts.push_back(std::move(part));
        part.clear();
      }
      continue;
    }
    if (line.starts_with(kSignature) && in.signatures.size() < kMaxSignatures) {
      if (auto sig = parse_signature(line.substr(kSignature.size())))
        in.signatures.push_back(std::move(*sig));
    }
    part.append(line);
    part.push_back('\n');
  }
  in.parts.push_back(std::move(part));
  return in;
}

std::vector<Type> dealt_signature(size_t params, size_t seed) {
  const auto& pool = default_types();
  std::vector<Type> sig;
  for (size_t i = 0; i < params; ++i) sig.push_back(pool[(seed + i) % pool.size()]);
  return sig;
}

// The device functions of one input. Each sees itself among its globals (so
// recursion is reachable), a reference cycle that the destructor breaks as
// the Python side's GlobalsReader does.
struct DeviceFunctions {
  std::vector<std::shared_ptr<simt::sema::DeviceFunctionSource>> functions;
  ~DeviceFunctions() {
    for (auto& f : functions) f->globals.clear();
  }
};

void compile_all(const Input& in, size_t seed) {
  DeviceFunctions device_functions;
  Globals globals = base_globals();
  for (size_t i = 0; i + 1 < in.parts.size(); ++i) {
    auto f = std::make_shared<simt::sema::DeviceFunctionSource>();
    f->source = std::make_shared<simt::lang::SourceText>(in.parts[i], "funcs.py", 1);
    f->parsed =
        std::make_shared<simt::lang::ParsedFunction>(simt::lang::parse_function(*f->source));
    f->name = f->parsed->def.name;
    device_functions.functions.push_back(f);
    GlobalValue v;
    v.kind = GlobalValue::Kind::DeviceFunction;
    v.name = f->name;
    v.function = f;
    globals[f->name] = v;
    f->globals = globals;
  }
  simt::lang::SourceText source(in.parts.back(), "kernel.py", 1);
  simt::lang::ParsedFunction parsed = simt::lang::parse_function(source);
  std::vector<std::vector<Type>> signatures = in.signatures;
  if (signatures.empty()) signatures.push_back(dealt_signature(parsed.def.params.size(), seed));
  for (const auto& sig : signatures) {
    for (auto language :
         {simt::abi::Language::Cuda, simt::abi::Language::OpenCL, simt::abi::Language::Cpp}) {
      for (bool debug : {false, true}) {
        try {
          simt::codegen::EmitOptions options;
          options.debug = debug;
          simt::compiler::generate(parsed, source, sig, globals, language, options);
        } catch (const simt::lang::CompileError&) {
          // A typing error: expected. The next dialect still runs, as a
          // dialect may reject what another accepts.
        }
      }
    }
  }
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  if (size > kMaxInputBytes) return -1;  // -1: not added to the corpus
  std::string_view text(reinterpret_cast<const char*>(data), size);
  try {
    compile_all(read_input(text), size);
  } catch (const simt::lang::CompileError&) {
    // A syntax error: expected.
  }
  return 0;
}
