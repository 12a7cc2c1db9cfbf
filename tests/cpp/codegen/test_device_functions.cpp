// Device functions (@simt.func): calls typed per argument signature (return
// types, weak literal arguments, keywords and defaults, nesting, tuples,
// recursion and arity errors located in the right file; constant arguments
// specialized on where a compile-time position needs them), and the emitted
// functions: one per specialization, callees first, calls evaluated once,
// compiled by NVRTC, the OpenCL device and the system C++ compiler.

#include <gtest/gtest.h>

#include <memory>
#include <regex>
#include <stdexcept>
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

using simt::abi::Language;
using simt::lang::CompileError;
using simt::sema::DeviceFunctionSource;
using simt::sema::Globals;
using simt::sema::TypedDeviceFunction;
using simt::testing::device_function_global;
using simt::testing::make_device_function;

constexpr simt::abi::Language kDialects[] = {simt::abi::Language::Cuda, simt::abi::Language::OpenCL,
                                             simt::abi::Language::Cpp};

Globals base_globals() {
  Globals g = simt::testing::corpus_module_globals();
  simt::sema::GlobalValue f32;
  f32.kind = simt::sema::GlobalValue::Kind::DType;
  f32.dtype = simt::sema::Scalar::Float32;
  g["float32"] = f32;
  simt::sema::GlobalValue n;
  n.kind = simt::sema::GlobalValue::Kind::Constant;
  n.constant.type = simt::sema::Type::scalar_of(simt::sema::Scalar::Int64, true);
  n.constant.int_value = 3;
  n.constant.real = 3;
  g["N"] = n;
  return g;
}

// A set of device functions defined in order, each seeing the ones before
// it (and base_globals()), and a kernel seeing all of them.
class Program {
 public:
  // Adds a device function; `calls` may name functions defined later or the
  // function itself (recursion tests): they are bound by link().
  Program& func(const std::string& text, const std::string& filename = "funcs.py",
                uint32_t first_line = 1) {
    Globals g = base_globals();
    for (const auto& f : functions_) g[f->name] = device_function_global(f);
    functions_.push_back(make_device_function(text, g, filename, first_line));
    return *this;
  }

  // Binds every function's name in every function's globals (for
  // recursion); breaks the reference cycles again on destruction.
  Program& link() {
    for (auto& f : functions_)
      for (const auto& other : functions_) f->globals[other->name] = device_function_global(other);
    linked_ = true;
    return *this;
  }

  ~Program() {
    if (linked_)
      for (auto& f : functions_) f->globals.clear();
  }

  Globals kernel_globals() const {
    Globals g = base_globals();
    for (const auto& f : functions_) g[f->name] = device_function_global(f);
    return g;
  }

  void kernel(const std::string& text, const std::string& sig) {
    source_ = std::make_unique<simt::lang::SourceText>(text, "kernel.py", 1);
    parsed_ = std::make_unique<simt::lang::ParsedFunction>(simt::lang::parse_function(*source_));
    std::vector<simt::sema::Type> types;
    for (const auto& part : simt::testing::split_signature(sig)) {
      auto t = simt::sema::parse_type(part);
      if (!t) throw std::runtime_error("bad type in test: " + part);
      types.push_back(*t);
    }
    typed_ = simt::sema::infer_types(*parsed_, *source_, types, kernel_globals());
  }

  const simt::sema::TypedFunction& typed() const { return typed_; }
  const std::vector<std::shared_ptr<const TypedDeviceFunction>>& specializations() const {
    return typed_.functions;
  }
  std::string local(const std::string& name) const {
    for (const auto& l : typed_.locals)
      if (l.name == name) return l.type.str();
    return "<no local " + name + ">";
  }
  // "name(sig) -> result" for each specialization, in emission order.
  std::vector<std::string> summary() const {
    std::vector<std::string> out;
    for (const auto& f : typed_.functions) {
      std::string s = f->source->name + "#" + std::to_string(f->ordinal) + "(";
      for (size_t i = 0; i < f->signature.size(); ++i) s += (i ? ", " : "") + f->signature[i].str();
      out.push_back(s + ") -> " + f->typed.return_type.str());
    }
    return out;
  }
  std::string emit(simt::abi::Language d = simt::abi::Language::Cuda) const {
    return simt::compiler::generate(typed_, d).source;
  }

 private:
  std::vector<std::shared_ptr<DeviceFunctionSource>> functions_;
  std::unique_ptr<simt::lang::SourceText> source_;
  std::unique_ptr<simt::lang::ParsedFunction> parsed_;
  simt::sema::TypedFunction typed_;
  bool linked_ = false;
};

// The diagnostic a program's kernel raises (fails the test if none).
simt::lang::Diagnostic kernel_error(Program& p, const std::string& text, const std::string& sig) {
  try {
    p.kernel(text, sig);
  } catch (const CompileError& e) {
    return e.diagnostic();
  }
  ADD_FAILURE() << "expected a TypingError for:\n" << text;
  return {};
}

size_t count(const std::string& haystack, const std::string& needle) {
  size_t n = 0;
  for (size_t p = haystack.find(needle); p != std::string::npos; p = haystack.find(needle, p + 1))
    ++n;
  return n;
}

// ---- Inference ------------------------------------------------------------

TEST(DeviceFunctionInfer, ReturnTypeIsTheJoinOfReturns) {
  Program p;
  p.func(
      "def pick(x):\n"
      "    if x > 0:\n"
      "        return x\n"
      "    return 0.5\n");
  p.kernel(
      "def k(out, a, b):\n"
      "    r = pick(a)\n"
      "    s = pick(b)\n",
      "float32[::1], int32, float32");
  // int32 with a float literal is float64; float32 stays float32 (NEP 50).
  EXPECT_EQ(p.local("r"), "float64");
  EXPECT_EQ(p.local("s"), "float32");
  EXPECT_EQ(p.summary(),
            (std::vector<std::string>{"pick#0(int32) -> float64", "pick#1(float32) -> float32"}));
}

TEST(DeviceFunctionInfer, LiteralReturnIsConcrete) {
  Program p;
  p.func("def one():\n    return 1\n");
  p.kernel("def k(out):\n    out[0] = one()\n", "int8[::1]");
  EXPECT_EQ(p.summary(), std::vector<std::string>{"one#0() -> int64"});
}

TEST(DeviceFunctionInfer, NoValueReturnsNone) {
  Program p;
  p.func(
      "def store(a, i, v):\n"
      "    if i >= len(a):\n"
      "        return\n"
      "    a[i] = v\n");
  p.kernel("def k(out):\n    store(out, 0, 1.5)\n", "float32[::1]");
  EXPECT_EQ(p.summary(), std::vector<std::string>{"store#0(float32[::1], int64, float64) -> None"});
}

TEST(DeviceFunctionInfer, WeakLiteralArgumentsShareOneSpecialization) {
  Program p;
  p.func("def twice(x):\n    return x * 2\n");
  p.kernel(
      "def k(out, n):\n"
      "    out[0] = twice(1)\n"
      "    out[1] = twice(2)\n"
      "    out[2] = twice(n)\n"
      "    out[3] = twice(2.5)\n",
      "float64[::1], int64");
  EXPECT_EQ(p.summary(),
            (std::vector<std::string>{"twice#0(int64) -> int64", "twice#1(float64) -> float64"}));
}

// Constants that flow in (sema/infer_constants.cpp): a parameter a compile-time
// position reads is specialized on its value, one specialization per value
// (64 from a literal, a global or a parameter given it alike); others are not.
TEST(DeviceFunctionInfer, ConstantArgumentsSpecializeOnlyWhereNeeded) {
  Program p;
  p.func(
      "def sized(a, n):\n    t = cuda.local.array(n, float32)\n    t[0] = a[0]\n"
      "    return t[n - 1]\n");
  p.func("def via(a, m):\n    return sized(a, m)\n");
  p.func("def plain(x, n):\n    return x * n\n");
  p.kernel(
      "def k(out):\n"
      "    out[0] = sized(out, 4) + sized(out, 4) + sized(out, 8) + sized(out, N)\n"
      "    out[1] = via(out, 8) + plain(1, 2) + plain(1, 3)\n",
      "float32[::1]");
  std::vector<std::string> sized;
  size_t plain = 0;
  for (const auto& f : p.specializations()) {
    if (f->source->name == "plain") ++plain;
    if (f->source->name != "sized") continue;
    ASSERT_EQ(f->constants.size(), 2u);
    EXPECT_FALSE(f->constants[0].has_value());
    ASSERT_TRUE(f->constants[1].has_value());
    sized.push_back(std::to_string(f->constants[1]->int_value) + " " + f->constants[1]->type.str());
  }
  EXPECT_EQ(sized, (std::vector<std::string>{"4 int64", "8 int64", "3 int64"}));
  EXPECT_EQ(plain, 1u);
}

TEST(DeviceFunctionInfer, ReassignedParameterIsNotAConstant) {
  Program p;
  p.func("def f(a, n):\n    n = n + 1\n    t = cuda.local.array(n, float32)\n    return 0\n");
  simt::lang::Diagnostic d =
      kernel_error(p, "def k(out):\n    out[0] = f(out, 2)\n", "float32[::1]");
  EXPECT_NE(d.message.find("parameter 'n' is assigned in 'f', so its value is not a constant"),
            std::string::npos)
      << d.message;
  EXPECT_EQ(d.filename, "funcs.py");
}

TEST(DeviceFunctionErrors, RuntimeValueAsAShapeNamesTheArgument) {
  Program p;
  p.func("def f(a, n):\n    t = cuda.local.array(n, float32)\n    return 0\n");
  p.func("def g(a, m):\n    return f(a, m)\n");
  simt::lang::Diagnostic d =
      kernel_error(p, "def k(out, s):\n    out[0] = g(out, s)\n", "float32[::1], int64");
  EXPECT_EQ(d.message,
            "argument 'm' of g() must be known at compile time (a literal, a global or closure "
            "constant, a local assigned once, or a parameter whose argument is one): g() uses it "
            "as the shape of simt.local.array() at funcs.py:2:17; here it is a value computed at "
            "run time; 's' is an argument of the kernel, known only at launch");
  EXPECT_EQ(d.filename, "kernel.py");
  EXPECT_EQ(d.span.line, 2u);
  EXPECT_EQ(d.span.col, 21u);
}

TEST(DeviceFunctionInfer, KeywordArgumentsAndDefaults) {
  Program p;
  p.func(
      "def clamp(x, lo=0.0, hi=N):\n"
      "    return min(max(x, lo), hi)\n");
  p.kernel(
      "def k(out, v):\n"
      "    out[0] = clamp(v, hi=2.0)\n"
      "    out[1] = clamp(hi=1.0, x=v)\n"
      "    out[2] = clamp(v)\n"
      "    out[3] = clamp(v, -1.0, 1.0)\n",
      "float32[::1], float32");
  // Literal defaults and arguments are float64 (and N an int64) in the
  // signature, so the three calls with float defaults share one.
  EXPECT_EQ(p.summary(), (std::vector<std::string>{"clamp#0(float32, float64, float64) -> float64",
                                                   "clamp#1(float32, float64, int64) -> float64"}));
  const auto& call = p.typed().exprs;
  int with_default = 0;
  for (const auto& [expr, info] : call) {
    if (!info.function) continue;
    for (const auto& a : info.arguments)
      if (!a.expr) ++with_default;
  }
  EXPECT_EQ(with_default, 4);  // lo twice, lo and hi once
}

TEST(DeviceFunctionInfer, AnnotatedParametersConvert) {
  Program p;
  p.func("def scale(x: float32, f: float32 = 2.0):\n    return x * f\n");
  p.kernel("def k(out, v):\n    out[0] = scale(v)\n", "float32[::1], float64");
  ASSERT_EQ(p.specializations().size(), 1u);
  const auto& typed = p.specializations()[0]->typed;
  EXPECT_EQ(typed.param_types[0].str(), "float32");
  EXPECT_EQ(typed.param_types[1].str(), "float32");
  EXPECT_EQ(typed.return_type.str(), "float32");
}

TEST(DeviceFunctionInfer, NestedCallsComeCalleesFirst) {
  Program p;
  p.func("def sq(x):\n    return x * x\n");
  p.func("def norm2(x, y):\n    return sq(x) + sq(y)\n");
  p.func("def dist2(a, i, j):\n    return norm2(a[i, 0] - a[j, 0], a[i, 1] - a[j, 1])\n");
  p.kernel(
      "def k(out, a):\n"
      "    out[0] = dist2(a, 0, 1) + sq(3)\n",
      "float32[::1], float32[:, ::1]");
  EXPECT_EQ(p.summary(),
            (std::vector<std::string>{
                "sq#0(float32) -> float32", "norm2#0(float32, float32) -> float32",
                "dist2#0(float32[:, ::1], int64, int64) -> float32", "sq#1(int64) -> int64"}));
}

TEST(DeviceFunctionInfer, TupleReturnsAndUnpacking) {
  Program p;
  p.func(
      "def divmod_floor(a, b):\n"
      "    if b == 0:\n"
      "        return 0, 0\n"
      "    return a // b, a % b\n");
  p.kernel(
      "def k(out, x, y):\n"
      "    q, r = divmod_floor(x, y)\n"
      "    t = divmod_floor(x, 2)\n"
      "    out[0] = q + r + t[1]\n",
      "int32[::1], int32, int32");
  EXPECT_EQ(p.summary(),
            (std::vector<std::string>{"divmod_floor#0(int32, int32) -> (int32, int32)",
                                      "divmod_floor#1(int32, int64) -> (int64, int64)"}));
  EXPECT_EQ(p.local("q"), "int32");
  EXPECT_EQ(p.local("t"), "(int64, int64)");
}

TEST(DeviceFunctionInfer, TupleArguments) {
  Program p;
  p.func("def dot(u, v):\n    return u[0] * v[0] + u[1] * v[1]\n");
  p.kernel("def k(out, t, x):\n    out[0] = dot(t, (x, 2.0))\n",
           "float64[::1], (int32, int32), float32");
  EXPECT_EQ(p.summary(),
            std::vector<std::string>{"dot#0((int32, int32), (float32, float64)) -> float64"});
}

TEST(DeviceFunctionInfer, TwoSignaturesTwoSpecializations) {
  Program p;
  p.func("def inc(x):\n    return x + 1\n");
  p.kernel(
      "def k(out, a, b):\n"
      "    out[0] = inc(a) + inc(b) + inc(a)\n",
      "float64[::1], int32, float32");
  ASSERT_EQ(p.specializations().size(), 2u);
  EXPECT_EQ(p.specializations()[0]->ordinal, 0);
  EXPECT_EQ(p.specializations()[1]->ordinal, 1);
  std::string src = p.emit();
  EXPECT_NE(src.find("int simt_func_inc_0(int v_x)"), std::string::npos) << src;
  EXPECT_NE(src.find("float simt_func_inc_1(float v_x)"), std::string::npos) << src;
}

TEST(DeviceFunctionInfer, ArgumentTypesWidenAcrossPasses) {
  // `x` is an int literal in the first pass and float64 after the loop
  // widens it: only the final signature is kept.
  Program p;
  p.func("def half(v):\n    return v // 2\n");
  p.kernel(
      "def k(out, n):\n"
      "    x = 0\n"
      "    for i in range(n):\n"
      "        out[i] = half(x)\n"
      "        x = x + 0.5\n",
      "float64[::1], int64");
  EXPECT_EQ(p.summary(), std::vector<std::string>{"half#0(float64) -> float64"});
}

TEST(DeviceFunctionInfer, KernelStillCannotReturnAValue) {
  Program p;
  p.func("def one():\n    return 1\n");
  auto d = kernel_error(p, "def k(out):\n    return one()\n", "int64[::1]");
  EXPECT_NE(d.message.find("a kernel cannot return a value"), std::string::npos) << d.message;
}

// ---- Errors ---------------------------------------------------------------

struct CallErrorCase {
  const char* call;
  const char* message;
};

class DeviceFunctionCallErrors : public ::testing::TestWithParam<CallErrorCase> {};

TEST_P(DeviceFunctionCallErrors, NameFunctionAndParameter) {
  Program p;
  p.func("def f(a, b, c=1):\n    return a + b + c\n");
  std::string text = std::string("def k(out, x):\n    out[0] = ") + GetParam().call + "\n";
  auto d = kernel_error(p, text, "int64[::1], int64");
  EXPECT_EQ(d.message, GetParam().message);
  EXPECT_EQ(d.filename, "kernel.py");
  EXPECT_EQ(d.span.line, 2u);
}

INSTANTIATE_TEST_SUITE_P(
    Arity, DeviceFunctionCallErrors,
    ::testing::Values(CallErrorCase{"f(x)", "f() missing 1 required argument: 'b'"},
                      CallErrorCase{"f()", "f() missing 2 required arguments: 'a' and 'b'"},
                      CallErrorCase{"f(x, x, x, x)",
                                    "f() takes 3 positional arguments but 4 were given"},
                      CallErrorCase{"f(x, x, d=1)", "f() got an unexpected keyword argument 'd'"},
                      CallErrorCase{"f(x, x, a=1)", "f() got multiple values for argument 'a'"}));

TEST(DeviceFunctionErrors, ArgumentMustBeData) {
  Program p;
  p.func("def f(a):\n    return 1\n");
  auto d = kernel_error(p, "def k(out):\n    out[0] = f(math)\n", "int64[::1]");
  EXPECT_EQ(d.message,
            "argument 'a' of f() must be a number, an array or a tuple of those, a dtype or a "
            "function, not "
            "module math");
}

TEST(DeviceFunctionErrors, ErrorInsideCalleePointsIntoItsFile) {
  Program p;
  p.func(
      "def bad(x):\n"
      "    y = x + 1\n"
      "    return y.shape\n",
      "helpers.py", 20);
  auto d = kernel_error(p, "def k(out):\n    out[0] = bad(1.5)\n", "int64[::1]");
  EXPECT_EQ(d.filename, "helpers.py");
  EXPECT_EQ(d.span.line, 22u);
  EXPECT_NE(d.message.find("has no attribute 'shape'"), std::string::npos) << d.message;
}

TEST(DeviceFunctionErrors, DirectRecursion) {
  Program p;
  p.func("def fact(n):\n    if n <= 1:\n        return 1\n    return n * fact(n - 1)\n").link();
  auto d = kernel_error(p, "def k(out):\n    out[0] = fact(5)\n", "int64[::1]");
  EXPECT_EQ(d.message, "recursive device functions are not supported: fact -> fact");
  EXPECT_EQ(d.filename, "funcs.py");
  EXPECT_EQ(d.span.line, 4u);
}

TEST(DeviceFunctionErrors, MutualRecursion) {
  Program p;
  p.func("def f(n):\n    return g(n)\n", "f.py");
  p.func("def g(n):\n    return f(n - 1)\n", "g.py");
  p.link();
  auto d = kernel_error(p, "def k(out):\n    out[0] = f(5)\n", "int64[::1]");
  EXPECT_EQ(d.message, "recursive device functions are not supported: f -> g -> f");
  EXPECT_EQ(d.filename, "g.py");
  EXPECT_EQ(d.span.line, 2u);
}

TEST(DeviceFunctionErrors, ReturningAnArray) {
  Program p;
  p.func("def row(a, i):\n    return a[i]\n");
  auto d = kernel_error(p, "def k(out, m):\n    r = row(m, 0)\n", "int64[::1], float32[:, :]");
  EXPECT_EQ(d.filename, "funcs.py");
  EXPECT_EQ(d.span.line, 2u);
  EXPECT_NE(d.message.find("a device function cannot return an array"), std::string::npos)
      << d.message;

  Program q;
  q.func("def both(a):\n    return a, 1\n");
  auto e = kernel_error(q, "def k(out):\n    both(out)\n", "int64[::1]");
  EXPECT_NE(e.message.find("cannot return an array"), std::string::npos) << e.message;
}

TEST(DeviceFunctionErrors, MixedReturns) {
  Program p;
  p.func("def f(x):\n    if x > 0:\n        return\n    return x\n");
  auto d = kernel_error(p, "def k(out):\n    out[0] = f(1)\n", "int64[::1]");
  EXPECT_EQ(d.message,
            "'f' returns a value (line 4) and also returns without one here; "
            "return a value on every path");
  EXPECT_EQ(d.span.line, 3u);
}

TEST(DeviceFunctionErrors, FallingOffTheEnd) {
  Program p;
  p.func("def f(x):\n    if x > 0:\n        return x\n");
  auto d = kernel_error(p, "def k(out):\n    out[0] = f(1)\n", "int64[::1]");
  EXPECT_EQ(d.message,
            "'f' returns a value (line 3) but can reach its end without one; end it "
            "with a return");
  EXPECT_EQ(d.span.line, 1u);
}

TEST(DeviceFunctionErrors, AllPathsReturnIsAccepted) {
  Program p;
  p.func(
      "def sign(x):\n"
      "    if x > 0:\n"
      "        return 1\n"
      "    elif x < 0:\n"
      "        return -1\n"
      "    else:\n"
      "        return 0\n");
  p.func(
      "def first_positive(a):\n"
      "    i = 0\n"
      "    while True:\n"
      "        if a[i] > 0:\n"
      "            return i\n"
      "        i += 1\n");
  p.kernel("def k(out):\n    out[0] = sign(out[1]) + first_positive(out)\n", "int64[::1]");
  EXPECT_EQ(p.specializations().size(), 2u);
}

TEST(DeviceFunctionErrors, ReturnTypesMustJoin) {
  Program p;
  p.func("def f(x):\n    if x > 0:\n        return x, x\n    return x\n");
  auto d = kernel_error(p, "def k(out):\n    out[0] = f(1)\n", "int64[::1]");
  EXPECT_EQ(d.message,
            "'f' returns (int64, int64) (line 3) but int64 here; a function returns "
            "one type");
}

TEST(DeviceFunctionErrors, DefaultMustBeConstant) {
  Program p;
  p.func("def f(x, k=math.sin):\n    return x\n");
  auto d = kernel_error(p, "def k(out):\n    out[0] = f(1)\n", "int64[::1]");
  EXPECT_EQ(d.filename, "funcs.py");
  EXPECT_EQ(d.message,
            "the default of parameter 'k' of 'f' must be a constant (a literal or a "
            "global number or tuple), not function math.sin");
}

TEST(DeviceFunctionErrors, UnusedBadDefaultIsNotEvaluated) {
  Program p;
  p.func("def f(x, k=math.sin):\n    return x\n");
  p.kernel("def k(out):\n    out[0] = f(1, 2)\n", "int64[::1]");
  EXPECT_EQ(p.specializations().size(), 1u);
}

TEST(DeviceFunctionErrors, NoneResultIsNotAValue) {
  Program p;
  p.func("def nothing(a):\n    a[0] = 1\n");
  auto d = kernel_error(p, "def k(out):\n    x = nothing(out)\n", "int64[::1]");
  EXPECT_NE(d.message.find("'x' cannot be assigned None"), std::string::npos) << d.message;
}

TEST(DeviceFunctionErrors, FunctionsAreOnlyCalled) {
  Program p;
  p.func("def one():\n    return 1\n");
  auto d = kernel_error(p, "def k(out):\n    g = one\n    out[0] = g()\n", "int64[::1]");
  EXPECT_EQ(d.message,
            "the device function 'one' can only be called or passed to a device function, not "
            "assigned to 'g'");
}

// ---- Emitted code ---------------------------------------------------------

TEST(DeviceFunctionCodegen, PrefixSymbolAndHiddenParameters) {
  Program p;
  p.func("def gid():\n    return cuda.grid(1)\n");
  p.func("def at(a):\n    return a[gid()]\n");
  p.kernel("def k(out, x):\n    out[gid()] = at(x)\n", "float32[::1], float32[::1]");
  for (simt::abi::Language d : kDialects) {
    const auto& dialect = simt::codegen::dialect(d);
    std::string src = p.emit(d);
    std::string hidden = std::string(dialect.function_hidden_params);
    std::string gid = std::string(dialect.function_prefix) +
                      std::string(dialect.value_type(simt::sema::Scalar::Int64)) +
                      " simt_func_gid_0(" + (hidden.empty() ? "void" : hidden) + ")";
    EXPECT_NE(src.find(gid), std::string::npos) << dialect.name << "\n" << src;
    // Callees before callers, all before the kernel.
    size_t gid_at = src.find("simt_func_gid_0("), at_at = src.find(" simt_func_at_0(");
    size_t kernel_at = src.find(simt::codegen::kernel_symbol("k"));
    EXPECT_LT(gid_at, at_at) << src;
    EXPECT_LT(at_at, kernel_at) << src;
    std::string args = std::string(dialect.function_hidden_args);
    EXPECT_NE(src.find("simt_func_gid_0(" + args + ")"), std::string::npos) << src;
  }
}

TEST(DeviceFunctionCodegen, FunctionSymbol) {
  EXPECT_EQ(simt::codegen::function_symbol("clamp", 0), "simt_func_clamp_0");
  EXPECT_EQ(simt::codegen::function_symbol("_f2", 3), "simt_func__f2_3");
}

TEST(DeviceFunctionCodegen, EachCallIsEvaluatedOnce) {
  Program p;
  p.func("def f(x):\n    return x * 3\n");
  p.func("def g(x):\n    return x, x + 1\n");
  p.kernel(
      "def k(out, x):\n"
      "    out[0] = max(f(x), 0) + abs(f(x + 1))\n"
      "    out[1] = g(x)[1]\n"
      "    a, b = g(x)\n"
      "    out[2] = min(a, b, f(2))\n",
      "int64[::1], int64");
  std::string src = p.emit();
  // One definition each plus one call per call site.
  EXPECT_EQ(count(src, "simt_func_f_0("), 1u + 3u) << src;
  EXPECT_EQ(count(src, "simt_func_g_0("), 1u + 2u) << src;
}

TEST(DeviceFunctionCodegen, ConditionalCallsStayConditional) {
  Program p;
  p.func("def ok(a, i):\n    return a[i] > 0\n");
  p.func("def val(a, i):\n    return a[i]\n");
  p.kernel(
      "def k(out, n):\n"
      "    i = cuda.grid(1)\n"
      "    if i < n and ok(out, i):\n"
      "        out[i] = val(out, i) if i > 0 else 0\n"
      "    while i < n and ok(out, i):\n"
      "        i += 1\n"
      "    if 0 <= i < val(out, 0) < n:\n"
      "        out[0] = 1\n",
      "int64[::1], int64");
  std::string src = p.emit();
  // `and` becomes an if around the call; the while test is re-evaluated
  // at the top of every iteration; the chained comparison's second part
  // runs only when the first held.
  EXPECT_NE(src.find("if (simt_tmp"), std::string::npos) << src;
  EXPECT_NE(src.find("while (1) {"), std::string::npos) << src;
  EXPECT_EQ(src.find("bool simt_tmp0 = simt_func_ok_0"), std::string::npos) << src;
}

TEST(DeviceFunctionCodegen, ElifWithCallIsNested) {
  Program p;
  p.func("def pos(x):\n    return x > 0\n");
  p.kernel(
      "def k(out, x):\n"
      "    if x == 0:\n"
      "        out[0] = 0\n"
      "    elif pos(x):\n"
      "        out[0] = 1\n"
      "    else:\n"
      "        out[0] = 2\n",
      "int64[::1], int64");
  std::string src = p.emit();
  EXPECT_EQ(src.find("} else if ("), std::string::npos) << src;
  size_t else_at = src.find("} else {");
  size_t call_at = src.find("= simt_func_pos_0(");
  EXPECT_LT(else_at, call_at) << src;
}

TEST(DeviceFunctionCodegen, TupleReturnIsAStruct) {
  Program p;
  p.func("def dm(a, b):\n    return a // b, a % b\n");
  p.kernel("def k(out, x):\n    q, r = dm(x, 7)\n    out[0] = q + r\n", "int64[::1], int64");
  for (simt::abi::Language d : kDialects) {
    std::string src = p.emit(d);
    EXPECT_NE(src.find("} simt_tuple_i64_i64;"), std::string::npos) << src;
    EXPECT_NE(src.find("simt_tuple_i64_i64 simt_func_dm_0("), std::string::npos) << src;
    EXPECT_NE(src.find(".v1;"), std::string::npos) << src;
  }
}

// Programs exercising every emitted form, compiled by each compiler.
struct CompileProgram {
  const char* name;
  std::vector<const char*> functions;
  const char* kernel;
  const char* signature;
};

const CompileProgram kCompilePrograms[] = {
    {"defaults_keywords",
     {"def clamp(x, lo=0.0, hi=1.0):\n    return min(max(x, lo), hi)\n",
      "def scale(x: float32, f: float32 = 2.0):\n    return x * f\n"},
     "def k(out, x):\n"
     "    i = cuda.grid(1)\n"
     "    if i < out.size:\n"
     "        out[i] = clamp(x[i], hi=4.0) + scale(x[i]) + clamp(lo=-1.0, x=x[i])\n",
     "float32[::1], float32[::1]"},
    {"tuples",
     {"def dm(a, b):\n    if b == 0:\n        return 0, 0\n    return a // b, a % b\n",
      "def dot(u, v):\n    return u[0] * v[0] + u[1] * v[1]\n",
      "def swap(t):\n    return t[1], t[0]\n",
      "def shift(p, d=(1, -2)):\n    return p[0] + d[0], p[1] + d[1]\n"},
     "def k(out, t, x):\n"
     "    q, r = dm(x, 7)\n"
     "    u, v = shift(shift(t), d=(x, 3))\n"
     "    out[1] = u + v\n"
     "    s = swap(dm(x, 3))\n"
     "    out[0] = q + r + s[0] + dot(t, (x, 2)) + dot(swap(t), t)\n",
     "int64[::1], (int32, int32), int64"},
    {"control",
     {"def ok(a, i):\n    return a[i] > 0\n", "def val(a, i):\n    return a[i]\n",
      "def store(a, i, v):\n    if i >= len(a):\n        return\n    a[i] = v\n",
      "def gid():\n    return cuda.grid(1)\n",
      "def sign(x):\n    if x > 0:\n        return 1\n    elif x < 0:\n        return -1\n"
      "    else:\n        return 0\n"},
     "def k(out, n):\n"
     "    i = gid()\n"
     "    if i < n and ok(out, i):\n"
     "        out[i] = val(out, i) if i > 0 else 0\n"
     "    elif sign(i) < 0:\n"
     "        store(out, 0, 1)\n"
     "    while i < n and ok(out, i):\n"
     "        i += sign(val(out, i))\n"
     "    if 0 <= i < val(out, 0) < n:\n"
     "        out[0] = max(val(out, 1), 0) or val(out, 2)\n"
     "    for v in (sign(i), val(out, 0)):\n"
     "        store(out, v, i)\n"
     "    print(store(out, 1, 2), sign(3))\n",
     "int64[::1], int64"},
    {"constants_and_shared",
     {"def mirrored(v, n, dt):\n    sm = cuda.shared.array(n, dt)\n    t = cuda.threadIdx.x\n"
      "    sm[t] = v\n    cuda.syncthreads()\n    return sm[n - 1 - t]\n",
      "def twice(v, shape):\n    loc = cuda.local.array(shape, float32)\n"
      "    loc[0, 0] = mirrored(v, shape[1], float32)\n    return loc[0, 0] + mirrored(v, 32, "
      "float32)\n",
      "def flag(v, wrap):\n    i = (1, v)\n    if wrap:\n        i = (2, 0.5)\n    return i[1]\n"},
     "def k(out):\n"
     "    n = 32\n"
     "    i = cuda.grid(1)\n"
     "    out[i] = twice(out[i], (2, n)) + mirrored(out[i], n, float32) + flag(out[i], False)\n",
     "float32[::1]"},
    {"complex_and_half",
     {"def mag2(z):\n    return z.real * z.real + z.imag * z.imag\n",
      "def h(x):\n    return x * 2, x\n"},
     "def k(out, z, x):\n"
     "    a, b = h(x)\n"
     "    out[0] = mag2(z) + a + b\n",
     "float32[::1], complex64, float16"},
};

class DeviceFunctionCompiles : public ::testing::TestWithParam<CompileProgram> {
 protected:
  std::string source(simt::abi::Language d) {
    const CompileProgram& c = GetParam();
    Program p;
    for (const char* f : c.functions) p.func(f);
    p.kernel(c.kernel, c.signature);
    return p.emit(d);
  }
};

TEST_P(DeviceFunctionCompiles, Nvrtc) {
  std::string src = source(simt::abi::Language::Cuda);
  auto r = simt::testing::check_cuda(src, GetParam().name);
  if (!r.ran) GTEST_SKIP() << r.log;
  EXPECT_TRUE(r.ok) << r.log << "\n---- source ----\n" << src;
}

TEST_P(DeviceFunctionCompiles, OpenCL) {
  std::string src = source(simt::abi::Language::OpenCL);
  auto r = simt::testing::check_opencl(src, src.find("double") != std::string::npos);
  if (!r.ran) GTEST_SKIP() << r.log;
  EXPECT_TRUE(r.ok) << r.log << "\n---- source ----\n" << src;
}

TEST_P(DeviceFunctionCompiles, Cpp) {
  std::string src = source(simt::abi::Language::Cpp);
  auto r = simt::testing::check_cpp(src, GetParam().name);
  if (!r.ran) GTEST_SKIP() << r.log;
  EXPECT_TRUE(r.ok) << r.log << "\n---- source ----\n" << src;
}

INSTANTIATE_TEST_SUITE_P(Programs, DeviceFunctionCompiles, ::testing::ValuesIn(kCompilePrograms),
                         [](const ::testing::TestParamInfo<CompileProgram>& info) {
                           return std::string(info.param.name);
                         });

}  // namespace
