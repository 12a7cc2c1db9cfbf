// Type inference (sema::infer_types) through the parser, table driven: the
// types of locals (NumPy's promotion with NEP 50 weak literals), and every
// TypingError with its message and location. Also sema::promote and
// sema::parse_type on their own.

#include <gtest/gtest.h>

#include <cctype>
#include <memory>
#include <optional>
#include <stdexcept>
#include <string>
#include <vector>

#include "lang/diagnostics.h"
#include "lang/parser.h"
#include "sema/infer.h"
#include "sema/types.h"
#include "support/kernel_corpus.h"

namespace {

using simt::lang::CompileError;
using simt::lang::DiagnosticKind;
using simt::sema::Scalar;
using simt::sema::Type;
using simt::sema::ValueRange;

// The corpus globals plus dtypes bound to plain names, as
// `from simt import float32, int8` would give.
simt::sema::Globals test_globals() {
  simt::sema::Globals g = simt::testing::corpus_globals();
  for (const char* name : {"float16", "float32", "float64", "int8", "int16", "int32", "int64",
                           "uint8", "uint32", "complex64"}) {
    simt::sema::GlobalValue v;
    v.kind = simt::sema::GlobalValue::Kind::DType;
    v.dtype = *simt::sema::scalar_from_name(name);
    g[name] = v;
  }
  return g;
}

std::vector<Type> signature(const std::string& text) {
  std::vector<Type> sig;
  for (const auto& part : simt::testing::split_signature(text)) {
    auto t = simt::sema::parse_type(part);
    if (!t) throw std::runtime_error("bad type in test table: '" + part + "'");
    sig.push_back(*t);
  }
  return sig;
}

// A typed kernel with the source and tree it points into.
struct Typed {
  std::unique_ptr<simt::lang::SourceText> source;
  std::unique_ptr<simt::lang::ParsedFunction> parsed;
  simt::sema::TypedFunction fn;

  // The type of local `name` as users write it, or "<no local NAME>".
  std::string local(const std::string& name) const {
    for (const auto& l : fn.locals)
      if (l.name == name) return l.type.str();
    return "<no local " + name + ">";
  }
  const simt::sema::LocalVar* var(const std::string& name) const {
    for (const auto& l : fn.locals)
      if (l.name == name) return &l;
    return nullptr;
  }
};

Typed infer(const std::string& text, const std::string& sig, uint32_t first_line = 1) {
  Typed t;
  t.source = std::make_unique<simt::lang::SourceText>(text, "infer_test.py", first_line);
  t.parsed = std::make_unique<simt::lang::ParsedFunction>(simt::lang::parse_function(*t.source));
  t.fn = simt::sema::infer_types(*t.parsed, *t.source, signature(sig), test_globals());
  return t;
}

// ---- Promotion corners, through `r = <expression>` ---------------------------

struct PromotionCase {
  const char* signature;  // of (a, b)
  const char* expression;
  const char* expected;  // type of r
};

class InferPromotion : public ::testing::TestWithParam<PromotionCase> {};

TEST_P(InferPromotion, LocalHasNumPyType) {
  const PromotionCase& c = GetParam();
  std::string text = std::string("def k(a, b):\n    r = ") + c.expression + "\n";
  try {
    Typed t = infer(text, c.signature);
    EXPECT_EQ(t.local("r"), c.expected) << c.expression << " with (a, b) = (" << c.signature << ")";
  } catch (const CompileError& e) {
    FAIL() << c.expression << " with (" << c.signature << "): " << e.diagnostic().format();
  }
}

const PromotionCase kPromotionCases[] = {
    // Mixed signedness.
    {"int32, uint64", "a + b", "float64"},
    {"int8, uint8", "a + b", "int16"},
    {"uint32, int32", "a + b", "int64"},
    {"uint16, int16", "a * b", "int32"},
    {"uint64, uint8", "a - b", "uint64"},
    {"int64, uint32", "a + b", "int64"},
    // Weak literals adopt the strong operand's type within its kind.
    {"int32, int32", "a + 1.5", "float64"},  // int with float literal: float64
    {"float32, int32", "3 * a", "float32"},
    {"float32, int32", "a * 2.5", "float32"},
    {"float32, int32", "a / 2", "float32"},
    {"int8, int8", "a + 1", "int8"},
    {"uint8, uint8", "a - 200", "uint8"},
    {"int16, int16", "a // 3", "int16"},
    {"int16, int16", "a % 7", "int16"},
    {"uint64, uint64", "a + 1", "uint64"},
    {"float16, float16", "a * 2.0", "float16"},
    // A strong int64 variable with float32 is float64, unlike a literal.
    {"float32, int64", "a * b", "float64"},
    {"float32, int32", "a * b", "float64"},
    {"float32, int16", "a * b", "float32"},
    // bool
    {"bool, bool", "a + b", "int64"},
    {"bool, int8", "a + b", "int8"},
    {"bool, bool", "a & b", "bool"},
    {"bool, bool", "a | b", "bool"},
    {"bool, int32", "a | b", "int32"},
    // True division and floor division.
    {"int32, int32", "a / b", "float64"},
    {"int8, int8", "a / b", "float64"},
    {"float32, float32", "a / b", "float32"},
    {"int32, int32", "a // b", "int32"},
    {"float32, float32", "a // b", "float32"},
    {"int32, int32", "a ** 2", "int32"},
    {"int32, int32", "1 / 2", "float64"},
    // float16
    {"float16, int8", "a + b", "float16"},
    {"float16, int16", "a + b", "float32"},
    {"float16, uint8", "a + b", "float16"},
    {"float16, float32", "a + b", "float32"},
    // complex
    {"complex64, float64", "a * b", "complex128"},
    {"complex64, float32", "a * b", "complex64"},
    {"float32, int32", "a + 1j", "complex64"},
    {"float64, int32", "a + 1j", "complex128"},
    {"int32, int32", "a + 1j", "complex128"},
    {"complex64, int32", "a.real", "float32"},
    {"complex128, int32", "abs(a)", "float64"},
    // Unary, comparisons, builtins.
    {"uint8, int32", "-a", "uint8"},
    {"int32, int32", "~a", "int32"},
    {"float32, float64", "a < b", "bool"},
    {"int32, int32", "not a", "bool"},
    {"int32, uint32", "a if a > 0 else b", "int64"},
    {"int32, float32", "min(a, b)", "float64"},
    {"float32, float32", "max(a, b, 0.5)", "float32"},
    {"float32, int32", "round(a)", "int64"},
    {"float32, int32", "int(a)", "int64"},
    {"int32, int32", "float(a)", "float64"},
    {"float32, int32", "math.sin(a)", "float32"},
    {"int32, int32", "math.sin(a)", "float64"},
    {"float32, int32", "math.floor(a)", "int64"},
    {"float32, float64", "math.atan2(a, b)", "float64"},
    {"float32, int32", "float32(b)", "float32"},
    {"float32, int32", "np.int8(a)", "int8"},
    {"int16, int32", "a << 2", "int16"},
    {"float32[:, ::1], int32", "a[b, 0]", "float32"},
    {"float32[:, ::1], int32", "a.size", "int64"},
    {"float32[:, ::1], int32", "len(a)", "int64"},
};

INSTANTIATE_TEST_SUITE_P(Table, InferPromotion, ::testing::ValuesIn(kPromotionCases));

// ---- Locals: joins, annotations, loops, unpacking ------------------------

struct LocalCase {
  const char* what;
  const char* signature;
  const char* text;  // a whole kernel
  const char* local;
  const char* expected;
};

class InferLocal : public ::testing::TestWithParam<LocalCase> {};

TEST_P(InferLocal, HasType) {
  const LocalCase& c = GetParam();
  try {
    Typed t = infer(c.text, c.signature);
    EXPECT_EQ(t.local(c.local), c.expected) << c.what << "\n" << c.text;
  } catch (const CompileError& e) {
    FAIL() << c.what << ": " << e.diagnostic().format();
  }
}

const LocalCase kLocalCases[] = {
    {"an array's elements", "float32[::1]", "def k(a):\n    for v in a:\n        pass\n", "v",
     "float32"},
    {"a C array's rows stay C-contiguous", "int16[:, ::1]",
     "def k(m):\n    for row in m:\n        pass\n", "row", "int16[::1]"},
    {"enumerate of an array", "float64[:]",
     "def k(a):\n    for j, v in enumerate(a):\n        pass\n", "j", "int64"},
    {"zip of an array and a tuple", "uint8[::1]",
     "def k(a):\n    for v, w in zip(a, (1, 2.5)):\n        pass\n", "w", "float64"},
    {"literal then float32 joins to float32", "float32", "def k(x):\n    y = 0\n    y = x\n", "y",
     "float32"},
    {"float literal then float32", "float32", "def k(x):\n    acc = 0.0\n    acc += x\n", "acc",
     "float32"},
    {"only literals: int64", "float32", "def k(x):\n    n = 0\n    n += 1\n", "n", "int64"},
    {"only float literals: float64", "int32", "def k(x):\n    f = 0.5\n", "f", "float64"},
    {"int32 then int64 widens", "int32, int64", "def k(x, y):\n    v = x\n    v = y\n", "v",
     "int64"},
    {"int32 then float32 widens to float64", "int32, float32",
     "def k(x, y):\n    v = x\n    v = y\n", "v", "float64"},
    {"annotated local keeps its type", "float64", "def k(x):\n    y: float32 = 0\n    y = x\n", "y",
     "float32"},
    {"annotated int keeps its type", "float64", "def k(x):\n    y: int8 = 0\n    y += 1\n", "y",
     "int8"},
    {"annotation without value", "float64", "def k(x):\n    y: float32\n    y = x\n", "y",
     "float32"},
    {"annotated with np dtype", "int32", "def k(x):\n    y: np.float16 = x\n", "y", "float16"},
    {"range(literal) gives int64", "int32", "def k(n):\n    for i in range(10):\n        pass\n",
     "i", "int64"},
    {"range(int32) gives int32", "int32", "def k(n):\n    for i in range(n):\n        pass\n", "i",
     "int32"},
    {"range(int8, uint8) gives int16", "int8, uint8",
     "def k(a, b):\n    for i in range(a, b):\n        pass\n", "i", "int16"},
    {"range(uint64) gives uint64", "uint64", "def k(n):\n    for i in range(n):\n        pass\n",
     "i", "uint64"},
    {"range(1, n, 2) with int16", "int16",
     "def k(n):\n    for i in range(1, n, 2):\n        pass\n", "i", "int16"},
    {"loop over a literal tuple joins its items", "int32",
     "def k(n):\n    for w in (1, 2.5, 3):\n        pass\n", "w", "float64"},
    {"cuda.grid(2) unpacks into int64", "float32[:, ::1]", "def k(a):\n    i, j = cuda.grid(2)\n",
     "j", "int64"},
    {"cuda.grid(1) is int64", "float32[:, ::1]", "def k(a):\n    i = cuda.grid(1)\n", "i", "int64"},
    {"cuda.grid(3) as a tuple", "float32[:, ::1]", "def k(a):\n    t = cuda.grid(3)\n", "t",
     "(int64, int64, int64)"},
    {"a.shape unpacks into int64", "float32[:, :, ::1]", "def k(a):\n    n, m, p = a.shape\n", "p",
     "int64"},
    {"a.shape is a tuple", "float32[:, ::1]", "def k(a):\n    s = a.shape\n", "s",
     "(int64, int64)"},
    {"tuple argument unpacks", "(int32, float64)", "def k(t):\n    x, y = t\n", "y", "float64"},
    {"swap keeps types", "int32, float32", "def k(a, b):\n    x, y = a, b\n    x, y = y, x\n", "x",
     "float64"},
    {"threadIdx.x is int64", "int32", "def k(n):\n    t = cuda.threadIdx.x\n", "t", "int64"},
    {"row of a C array is a C view", "float32[:, ::1]", "def k(a):\n    r = a[0]\n", "r",
     "float32[::1]"},
    {"row of an F array is an any-layout view", "float32[::1, :]", "def k(a):\n    r = a[0]\n", "r",
     "float32[:]"},
    {"complex constructor is Python's complex", "float32, float32",
     "def k(x, y):\n    z = complex(x, y)\n", "z", "complex128"},
    {"parameter annotation converts", "float64", "def k(x: float32):\n    y = x\n", "y", "float32"},
};

std::string local_case_name(const ::testing::TestParamInfo<LocalCase>& info) {
  std::string name;
  for (const char* p = info.param.what; *p; ++p)
    name += std::isalnum(static_cast<unsigned char>(*p)) ? *p : '_';
  return name;
}

INSTANTIATE_TEST_SUITE_P(Table, InferLocal, ::testing::ValuesIn(kLocalCases), local_case_name);

TEST(InferLocals, ParametersComeFirstAndAreMarked) {
  Typed t = infer("def k(a, b):\n    c = a\n", "float32[::1], int32");
  ASSERT_GE(t.fn.locals.size(), 3u);
  EXPECT_EQ(t.fn.locals[0].name, "a");
  EXPECT_TRUE(t.fn.locals[0].is_param);
  EXPECT_EQ(t.fn.locals[1].name, "b");
  EXPECT_TRUE(t.fn.locals[1].is_param);
  EXPECT_EQ(t.fn.locals[2].name, "c");
  EXPECT_FALSE(t.fn.locals[2].is_param);
  ASSERT_EQ(t.fn.param_types.size(), 2u);
  EXPECT_EQ(t.fn.param_types[0].str(), "float32[::1]");
  EXPECT_EQ(t.fn.param_types[1].str(), "int32");
}

TEST(InferLocals, AnnotatedFlagAndNoWeakTypes) {
  Typed t = infer("def k(x):\n    y: float32 = 0\n    n = 1\n    f = 2.5\n", "float64");
  ASSERT_NE(t.var("y"), nullptr);
  EXPECT_TRUE(t.var("y")->annotated);
  ASSERT_NE(t.var("n"), nullptr);
  EXPECT_FALSE(t.var("n")->annotated);
  for (const auto& l : t.fn.locals) EXPECT_FALSE(l.type.weak) << l.name << " stayed weak";
}

TEST(InferLocals, SpansUseFileLineNumbers) {
  Typed t = infer("def k(x):\n    y = x\n", "int32", 41);
  ASSERT_NE(t.var("y"), nullptr);
  EXPECT_EQ(t.var("y")->first.line, 42u);
  EXPECT_EQ(t.var("y")->first.col, 5u);
}

// ---- Errors ----------------------------------------------------------------

struct ErrorCase {
  const char* what;
  const char* signature;
  const char* text;
  const char* message;  // the whole message
  uint32_t line;
  uint32_t col;
  DiagnosticKind kind = DiagnosticKind::Typing;
};

class InferError : public ::testing::TestWithParam<ErrorCase> {};

TEST_P(InferError, ReportsMessageAndLocation) {
  const ErrorCase& c = GetParam();
  try {
    Typed t = infer(c.text, c.signature);
    FAIL() << c.what << ": no error for\n" << c.text;
  } catch (const CompileError& e) {
    const simt::lang::Diagnostic& d = e.diagnostic();
    EXPECT_EQ(d.message, c.message) << c.what;
    EXPECT_EQ(d.span.line, c.line) << c.what << ": " << d.format();
    EXPECT_EQ(d.span.col, c.col) << c.what << ": " << d.format();
    EXPECT_EQ(d.kind, c.kind) << c.what << ": " << d.format();
    EXPECT_EQ(d.filename, "infer_test.py");
    EXPECT_FALSE(d.source_line.empty()) << c.what;
  }
}

const ErrorCase kErrorCases[] = {
    {"array then scalar", "float32[::1], float32", "def k(a, x):\n    y = a\n    y = x\n",
     "'y' is float32[::1] (line 2) but is assigned float32 here; a variable has one type", 3, 5},
    {"scalar then array", "float32[::1], float32", "def k(a, x):\n    y = x\n    y = a\n",
     "'y' is float32 (line 2) but is assigned float32[::1] here; a variable has one type", 3, 5},
    {"unknown name", "float32[::1]", "def k(a):\n    a[0] = foo\n", "name 'foo' is not defined", 2,
     12},
    {"unsupported array attribute", "float32[::1]", "def k(a):\n    a[0] = a.foo\n",
     "array attribute 'foo' is not supported in kernels (shape, size, ndim, strides, itemsize, "
     "real, imag and reshape() are)",
     2, 12},
    {"unsupported module attribute", "float32[::1]", "def k(a):\n    a[0] = math.foo(1)\n",
     "'math.foo' is not supported in kernels", 2, 12},
    {"attribute of a scalar", "float32[::1], float32", "def k(a, x):\n    a[0] = x.real\n",
     "'float32' has no attribute 'real' in kernels", 2, 12},
    {"calling a non-function", "float32[::1], int32", "def k(a, x):\n    a[0] = x(1)\n",
     "'int32' is not callable", 2, 12},
    {"too many indices", "float32[::1]", "def k(a):\n    a[0, 1] = 1\n",
     "too many indices: the array is 1-dimensional, but 2 were indexed", 2, 7},
    {"float index", "float32[::1], float32", "def k(a, x):\n    a[x] = 1\n",
     "an array index must be an integer, not float32", 2, 7},
    {"bitwise on float", "float32[::1], float32", "def k(a, x):\n    a[0] = x & 1\n",
     "unsupported operand types for &: 'float32' and 'int literal' (bitwise operations need "
     "integers)",
     2, 12},
    {"matmul", "float32[::1], float32", "def k(a, x):\n    a[0] = x @ x\n",
     "the @ operator is not supported in kernels", 2, 12},
    {"comparing arrays", "float32[::1], float32[::1]", "def k(a, b):\n    c = a < b\n",
     "cannot compare 'float32[::1]' and 'float32[::1]' with <", 2, 9},
    {"whole-array arithmetic", "float32[::1], float32[::1]", "def k(a, b):\n    c = a + b\n",
     "unsupported operand types for +: 'float32[::1]' and 'float32[::1]' (whole-array "
     "arithmetic is not supported inside kernels; index the array)",
     2, 9},
    {"kernel returning a value", "float32[::1]", "def k(a):\n    return 1\n",
     "a kernel cannot return a value (it returns int literal); write results into an array "
     "argument",
     2, 12},
    {"break outside loop (parser)", "float32[::1]", "def k(a):\n    break\n",
     "'break' outside loop", 2, 5, DiagnosticKind::Syntax},
    {"wrong argument count", "float32[::1], float32", "def k(a):\n    pass\n",
     "'k' takes 1 argument but the signature has 2", 1, 1},
    {"literal out of the operand's range", "uint8[::1]", "def k(a):\n    a[0] = a[0] - 300\n",
     "the literal 300 does not fit in uint8 (NumPy raises OverflowError); convert one operand, "
     "e.g. with np.int64(...)",
     2, 12},
    {"range with float args", "float32[::1]", "def k(a):\n    for i in range(1.5):\n        pass\n",
     "range() arguments must be integers, not float literal", 2, 20},
    {"range with a float32 stop", "float32[::1], float32",
     "def k(a, x):\n    for i in range(0, x):\n        pass\n",
     "range() arguments must be integers, not float32", 2, 23},
    {"tuple item assignment", "float32[::1], (int64, int64)", "def k(a, t):\n    t[0] = 1\n",
     "a tuple cannot be assigned to: tuples are immutable", 2, 5},
    {"assigning to an array view", "float32[:, ::1]", "def k(a):\n    a[0] = 1\n",
     "cannot assign to the array view float32[::1]; index every dimension of float32[:, ::1]", 2,
     5},
    {"augmented assignment to an array view", "float32[:, ::1]", "def k(a):\n    a[0] += 1\n",
     "cannot assign to the array view float32[::1]; index every dimension of float32[:, ::1]", 2,
     5},
    {"math function on complex", "complex64[::1]", "def k(a):\n    a[0] = math.sin(a[0])\n",
     "math.sin() needs a real number, not complex64", 2, 21},
    {"complex into a float variable", "complex64[::1], float32",
     "def k(a, x):\n    y: float32 = a[0]\n",
     "cannot store complex64 in 'y' of type float32: it would drop the imaginary part (use "
     ".real)",
     2, 5},
    {"complex floor division", "complex64[::1]", "def k(a):\n    b = a[0] // a[0]\n",
     "unsupported operand types for //: 'complex64' and 'complex64' (complex numbers)", 2, 9},
    {"complex ordering", "complex64[::1]", "def k(a):\n    b = a[0] < a[0]\n",
     "complex numbers have no order: < on 'complex64' and 'complex64'", 2, 9},
    {"truth value of an array", "float32[::1]", "def k(a):\n    if a:\n        pass\n",
     "the truth value of an array is ambiguous (in if)", 2, 8},
    {"for over a number", "float32[::1]", "def k(a):\n    for x in a[0]:\n        pass\n",
     "a for loop iterates over range(...), an array, a tuple, or enumerate(...) or zip(...) of "
     "those, not float32",
     2, 14},
    {"unpacking the wrong count", "float32[:, ::1]", "def k(a):\n    i, j, l = a.shape\n",
     "cannot unpack a tuple of 2 values into 3 variables", 2, 5},
    {"unpacking a scalar", "float32[::1], int32", "def k(a, x):\n    i, j = x\n",
     "cannot unpack int32 into 2 variables", 2, 5},
    {"tuple index out of range", "(int64, int64)", "def k(t):\n    x = t[2]\n",
     "tuple index 2 out of range for a tuple of 2", 2, 11},
    {"assigning to an attribute", "float32[::1]", "def k(a):\n    a.size = 3\n",
     "cannot assign to the attribute 'size'", 2, 5},
    {"augmented assignment to an attribute", "float32[::1]", "def k(a):\n    a.size += 3\n",
     "cannot assign to the attribute 'size'", 2, 5},
    {"a record without that field", "record(x: float32 @ 0, y: int32 @ 4; size 8, align 4)[::1]",
     "def k(a):\n    v = a[0].z\n", "the record has no field 'z' (its fields: x, y)", 2, 9},
    {"a record field by a variable",
     "record(x: float32 @ 0, y: int32 @ 4; size 8, align 4)[::1], int64",
     "def k(a, j):\n    v = a[0][j]\n",
     "a record's field is chosen by a constant: r.name, r['name'] or r[k] with k a constant "
     "integer, not int64",
     2, 14},
    {"a record field index out of range", "record(x: float32 @ 0, y: int32 @ 4; size 8, align 4)",
     "def k(r):\n    v = r[2]\n", "field index 2 out of range for a record of 2 fields", 2, 11},
    {"an opaque record field",
     "record(x: float32 @ 0, s: opaque(10, '|S10 (bytes)') @ 4; size 14, align 2)[::1]",
     "def k(a):\n    v = a[0].s\n",
     "the record field 's' holds |S10 (bytes), which kernels cannot read or write (fields of "
     "numbers, booleans, complex numbers, nested records and fixed-size arrays of numbers can "
     "be)",
     2, 9},
    {"writing a read-only record", "readonly record(x: float32 @ 0, y: int32 @ 4; size 8, align 4)",
     "def k(r):\n    r.x = 1\n",
     "the record readonly record(x: float32 @ 0, y: int32 @ 4; size 8, align 4) is read-only", 2,
     5},
    {"a number stored as a record", "record(x: float32 @ 0, y: int32 @ 4; size 8, align 4)[::1]",
     "def k(a):\n    a[0] = 1\n",
     "cannot store int literal in a record of type record(x: float32 @ 0, y: int32 @ 4; size 8, "
     "align 4): a record takes a record of the same "
     "dtype",
     2, 5},
    {"arithmetic on records", "record(x: float32 @ 0, y: int32 @ 4; size 8, align 4)[::1]",
     "def k(a):\n    v = a[0] + 1\n",
     "unsupported operand types for +: 'record(x: float32 @ 0, y: int32 @ 4; size 8, align 4)' and "
     "'int literal'",
     2, 9},
    {"a field of a whole array of records",
     "record(x: float32 @ 0, y: int32 @ 4; size 8, align 4)[::1]", "def k(a):\n    v = a.x\n",
     "'x' is a field of the array's records: index the array first (a[i].x)", 2, 9},
    {"an atomic on records", "record(x: float32 @ 0, y: int32 @ 4; size 8, align 4)[::1]",
     "def k(a):\n    cuda.atomic.add(a, 0, 1)\n",
     "simt.atomic.add() works on arrays of numbers, not on record(x: float32 @ 0, y: int32 @ 4; "
     "size 8, align 4)[::1]; pass a field's array, or "
     "update fields plainly",
     2, 21},
    {"an array field given a wrong value", "record(v: float32[3] @ 0; size 12, align 4)[::1]",
     "def k(a):\n    a[0].v = a\n",
     "cannot store record(v: float32[3] @ 0; size 12, align 4)[::1] in the record's array field "
     "float32[::1]: it takes an array of 1 dimensions (of its shape) or a number",
     2, 5},
    {"read before assignment", "float32[::1]",
     "def k(a):\n    for i in range(3):\n        y = y + 1\n",
     "local variable 'y' is used before it is assigned a value", 3, 13},
    {"a kernel argument as a shape", "float32[::1], int64",
     "def k(a, n):\n    s = cuda.local.array(n, float32)\n",
     "simt.local.array() needs a shape known at compile time: an int or a tuple of ints "
     "(literals, global or closure constants, locals assigned once, or parameters whose "
     "arguments are such constants); 'n' is an argument of the kernel, known only at launch",
     2, 26},
    {"a local assigned twice as a shape", "float32[::1]",
     "def k(a):\n    n = 4\n    n = 8\n    s = cuda.local.array(n, float32)\n",
     "simt.local.array() needs a shape known at compile time: an int or a tuple of ints "
     "(literals, global or closure constants, locals assigned once, or parameters whose "
     "arguments are such constants)",
     4, 26},
    {"a kernel argument as grid's ndim", "float32[::1], int64",
     "def k(a, n):\n    i = cuda.grid(n)\n",
     "simt.grid() takes a constant 1, 2 or 3; 'n' is an argument of the kernel, known only at "
     "launch",
     2, 19},
};

std::string error_case_name(const ::testing::TestParamInfo<ErrorCase>& info) {
  std::string name;
  for (const char* p = info.param.what; *p; ++p)
    name += std::isalnum(static_cast<unsigned char>(*p)) ? *p : '_';
  return name;
}

INSTANTIATE_TEST_SUITE_P(Table, InferError, ::testing::ValuesIn(kErrorCases), error_case_name);

TEST(InferErrors, DiagnosticFormatShowsFileLineAndSource) {
  try {
    infer("def k(a):\n    a[0] = foo\n", "float32[::1]", 20);
    FAIL() << "no error";
  } catch (const CompileError& e) {
    const auto& d = e.diagnostic();
    EXPECT_EQ(d.span.line, 21u);
    EXPECT_EQ(d.source_line, "    a[0] = foo");
    std::string text = d.format();
    EXPECT_NE(text.find("infer_test.py:21:12"), std::string::npos) << text;
    EXPECT_NE(text.find("name 'foo' is not defined"), std::string::npos) << text;
  }
}

// ---- Expression details the emitter relies on -------------------------------

TEST(InferExprs, IntDivisionOperandIsFloat64) {
  Typed t = infer("def k(a, b):\n    r = a / b\n", "int32, int32");
  const auto& assign = *t.parsed->def.body[0];
  const auto& info = t.fn.at(*assign.value);
  EXPECT_EQ(info.type.str(), "float64");
  EXPECT_EQ(info.operand.str(), "float64");
}

// A local bound once to a constant is one where a compile-time value is needed
// (sema/infer_constants.cpp): array shapes, grid's ndim; a tuple's items too.
TEST(InferExprs, LocalsAssignedOnceAreConstants) {
  Typed t = infer(
      "def k(a):\n    n = 16\n    s = (2, n)\n    x = cuda.local.array(s, float32)\n"
      "    y = cuda.shared.array(n, float32)\n    d = 2\n    i, j = cuda.grid(d)\n",
      "float32[::1]");
  const auto& body = t.parsed->def.body;
  EXPECT_EQ(t.fn.at(*body[2]->value).shape, (std::vector<int64_t>{2, 16}));
  EXPECT_EQ(t.fn.at(*body[3]->value).shape, (std::vector<int64_t>{16}));
  EXPECT_EQ(t.local("i"), "int64");
}

TEST(InferExprs, GridIndexIsNonNegative) {
  Typed t = infer("def k(a):\n    i = cuda.grid(1)\n", "float32[::1]");
  const auto& assign = *t.parsed->def.body[0];
  EXPECT_TRUE(t.fn.at(*assign.value).nonnegative);
}

// A range's values lie between its start and its stop + 1 whatever the step's sign: a
// start and a stop >= 0 (or a stop of -1) keep the loop variable >= 0, so `a[j]` needs
// no wraparound; a stop that may be below -1 with a step that may be negative does not.
TEST(InferExprs, RangeVariableNonNegativeFromItsBounds) {
  const std::pair<const char*, bool> cases[] = {
      {"i, n", true},       {"i, n, s", true},  {"i, n, -1", true}, {"i, -1, -1", true},
      {"i, -1, s", true},   {"i, m, 2", true},  {"i, m, s", false}, {"i, m, -1", false},
      {"i, -2, -1", false}, {"m, n, s", false}, {"i, m, g", true},  {"m - 1, -1, -1", false},
  };
  for (const auto& [args, nonnegative] : cases) {
    std::string text = std::string("def k(a, n, m, s):\n    i = cuda.grid(1)\n") +
                       "    g = cuda.gridsize(1)\n    for j in range(" + args +
                       "):\n        a[j] = 0\n";
    Typed t = infer(text, "float32[::1], uint32, int64, int64");
    const auto& store = *t.parsed->def.body[2]->body[0];
    EXPECT_EQ(t.fn.at(*store.targets[0]->items[1]).nonnegative, nonnegative) << args;
  }
}

// Value ranges (sema/infer_ranges.cpp): what each integer can hold, so that `+ - *` that
// cannot wrap are emitted as C's signed operators. Launch indices are below 2^62
// (dimensions of at most 2^31 - 1 on every device); a sum that could pass int64's end
// has none, and so has what a loop keeps adding to.
TEST(InferExprs, ValueRanges) {
  using R = std::optional<ValueRange>;
  const int64_t g = int64_t{1} << 62, t31 = INT32_MAX;
  const std::pair<const char*, R> cases[] = {
      {"r = i + 1", ValueRange{1, g + 1}},
      {"r = i + 9223372036854775807", std::nullopt},
      {"r = n - 1", ValueRange{-1, INT64_MAX - 1}},
      {"r = n + 1", std::nullopt},
      {"r = -i", ValueRange{-g, 0}},
      {"r = cuda.threadIdx.x + cuda.blockIdx.x * cuda.blockDim.x", ValueRange{0, t31 * t31 + t31}},
      {"r = x + y", ValueRange{INT32_MIN, t31}},  // int32's values: the sum may wrap
      {"r = x + np.int64(1)", ValueRange{INT32_MIN + int64_t{1}, t31 + int64_t{1}}},
      {"r = x", ValueRange{INT32_MIN, t31}},
      {"for d in range(-2, 3):\n        r = i + d", ValueRange{-2, g + 2}},
      {"for d in range(-2, 3):\n        r = min(max(i + d, 0), n - 1)", ValueRange{-1, g + 2}},
      {"for d in range(n - 1, -1, -1):\n        r = d", ValueRange{0, INT64_MAX - 1}},
      {"for d in range(x, 7, 3):\n        r = d", ValueRange{INT32_MIN, 6}},
      {"for d in range(5, 3):\n        r = d", std::nullopt},  // yields nothing
      {"k = 0\n    while k < 10:\n        k += 1\n    r = k + 1", std::nullopt},
      {"k = 3\n    if x > 0:\n        k = 7\n    r = k * 2", ValueRange{0, 14}},
      {"k, m = cuda.grid(2)\n    r = k - m", ValueRange{-g, g}},
      {"r = a.shape[0] * 2", std::nullopt},
      {"r = 5 if x > 0 else i", ValueRange{0, g}},
  };
  for (const auto& [snippet, want] : cases) {
    std::string text =
        std::string("def k(a, x, y):\n    i = cuda.grid(1)\n    n = a.size\n    ") + snippet + "\n";
    Typed t = infer(text, "float32[::1], int32, int32");
    // The last statement assigning r, wherever it sits.
    const simt::lang::Stmt* last = t.parsed->def.body.back().get();
    while (!last->body.empty()) last = last->body.back().get();
    const R& got = t.fn.at(*last->value).value_range;
    EXPECT_EQ(got.has_value(), want.has_value()) << snippet;
    if (got && want) {
      EXPECT_EQ(*got, *want) << snippet << ": [" << got->lo << ", " << got->hi << "]";
    }
  }
}

// Whether `a op b` can wrap in its operand type, the emitter's question.
TEST(InferExprs, ArithRangeIsNoneWhereTheOperationMayWrap) {
  using simt::lang::Op;
  const Type i32 = Type::scalar_of(Scalar::Int32), i64 = Type::scalar_of(Scalar::Int64),
             u64 = Type::scalar_of(Scalar::UInt64);
  const ValueRange int32_values{INT32_MIN, INT32_MAX}, small{-2, 2};
  EXPECT_FALSE(simt::sema::arith_range(Op::Add, int32_values, int32_values, i32));
  EXPECT_EQ(simt::sema::arith_range(Op::Add, int32_values, int32_values, i64),
            (ValueRange{2 * int64_t{INT32_MIN}, 2 * int64_t{INT32_MAX}}));
  EXPECT_EQ(simt::sema::arith_range(Op::Mul, int32_values, small, i64),
            (ValueRange{2 * int64_t{INT32_MIN}, -2 * int64_t{INT32_MIN}}));
  EXPECT_FALSE(simt::sema::arith_range(Op::Mul, int32_values, int32_values, i32));
  EXPECT_FALSE(simt::sema::arith_range(Op::Sub, ValueRange{INT64_MIN, 0}, small, i64));
  EXPECT_FALSE(simt::sema::arith_range(Op::Sub, small, ValueRange{0, 5}, u64));  // below 0
  EXPECT_FALSE(simt::sema::arith_range(Op::Add, std::nullopt, small, i64));
  EXPECT_FALSE(simt::sema::arith_range(Op::FloorDiv, small, small, i64));
}

TEST(InferExprs, LiteralArithmeticIsFolded) {
  Typed t = infer("def k(a):\n    r = 7 // -2\n", "float32[::1]");
  const auto& assign = *t.parsed->def.body[0];
  const auto& info = t.fn.at(*assign.value);
  ASSERT_TRUE(info.constant.has_value());
  EXPECT_EQ(info.constant->int_value, -4);  // Python floors
}

// Comparing a 32-bit integer with an integer literal outside its range must
// give Python's answer (NumPy 2 compares such values exactly): u > -1 is
// always True for an unsigned u.
TEST(InferExprs, ComparisonWithOutOfRangeLiteral) {
  Typed t = infer("def k(u, x):\n    p = u > -1\n    q = x < 3000000000\n", "uint32, int32");
  for (size_t s = 0; s < 2; ++s) {
    const auto& cmp = *t.parsed->def.body[s]->value;
    const auto& info = t.fn.at(cmp);
    ASSERT_EQ(info.pair_operands.size(), 1u);
    EXPECT_EQ(info.pair_operands[0].str(), "int64") << "statement " << s;
  }
}

// ---- promote, concrete, join, parse_type ------------------------------------

Type S(Scalar s) { return Type::scalar_of(s); }
Type W(Scalar s) { return Type::scalar_of(s, true); }

TEST(SemaPromote, StrongScalars) {
  EXPECT_EQ(simt::sema::promote(S(Scalar::Int32), S(Scalar::UInt64)), S(Scalar::Float64));
  EXPECT_EQ(simt::sema::promote(S(Scalar::Int8), S(Scalar::UInt8)), S(Scalar::Int16));
  EXPECT_EQ(simt::sema::promote(S(Scalar::UInt32), S(Scalar::Int32)), S(Scalar::Int64));
  EXPECT_EQ(simt::sema::promote(S(Scalar::Float16), S(Scalar::Int8)), S(Scalar::Float16));
  EXPECT_EQ(simt::sema::promote(S(Scalar::Float16), S(Scalar::Int16)), S(Scalar::Float32));
  EXPECT_EQ(simt::sema::promote(S(Scalar::Float32), S(Scalar::Int64)), S(Scalar::Float64));
  EXPECT_EQ(simt::sema::promote(S(Scalar::Complex64), S(Scalar::Float64)), S(Scalar::Complex128));
  EXPECT_EQ(simt::sema::promote(S(Scalar::Bool), S(Scalar::Bool)), S(Scalar::Bool));
  EXPECT_EQ(simt::sema::promote(S(Scalar::Bool), S(Scalar::UInt8)), S(Scalar::UInt8));
  EXPECT_EQ(simt::sema::promote(S(Scalar::UInt64), S(Scalar::Int64)), S(Scalar::Float64));
}

TEST(SemaPromote, WeakLiterals) {
  EXPECT_EQ(simt::sema::promote(W(Scalar::Int64), S(Scalar::Int8)), S(Scalar::Int8));
  EXPECT_EQ(simt::sema::promote(S(Scalar::Int8), W(Scalar::Int64)), S(Scalar::Int8));
  EXPECT_EQ(simt::sema::promote(W(Scalar::Float64), S(Scalar::Int32)), S(Scalar::Float64));
  EXPECT_EQ(simt::sema::promote(W(Scalar::Float64), S(Scalar::Float32)), S(Scalar::Float32));
  EXPECT_EQ(simt::sema::promote(W(Scalar::Float64), S(Scalar::Float16)), S(Scalar::Float16));
  EXPECT_EQ(simt::sema::promote(W(Scalar::Complex128), S(Scalar::Float32)), S(Scalar::Complex64));
  EXPECT_EQ(simt::sema::promote(W(Scalar::Int64), S(Scalar::Float32)), S(Scalar::Float32));
  // Two weak operands stay weak.
  Type both = simt::sema::promote(W(Scalar::Int64), W(Scalar::Float64));
  EXPECT_TRUE(both.weak);
  EXPECT_EQ(both.scalar, Scalar::Float64);
  EXPECT_EQ(simt::sema::concrete(W(Scalar::Int64)), Scalar::Int64);
  EXPECT_EQ(simt::sema::concrete(W(Scalar::Float64)), Scalar::Float64);
  EXPECT_EQ(simt::sema::concrete(W(Scalar::Complex128)), Scalar::Complex128);
  EXPECT_EQ(simt::sema::concrete(S(Scalar::Float32)), Scalar::Float32);
}

TEST(SemaPromote, IsSymmetric) {
  const Scalar all[] = {Scalar::Bool,      Scalar::Int8,      Scalar::Int16,   Scalar::Int32,
                        Scalar::Int64,     Scalar::UInt8,     Scalar::UInt16,  Scalar::UInt32,
                        Scalar::UInt64,    Scalar::Float16,   Scalar::Float32, Scalar::Float64,
                        Scalar::Complex64, Scalar::Complex128};
  for (Scalar a : all)
    for (Scalar b : all) {
      EXPECT_EQ(simt::sema::promote(S(a), S(b)), simt::sema::promote(S(b), S(a)))
          << simt::sema::scalar_name(a) << " " << simt::sema::scalar_name(b);
      EXPECT_EQ(simt::sema::promote(S(a), S(a)), S(a)) << simt::sema::scalar_name(a);
    }
}

TEST(SemaJoin, VariablesMeet) {
  auto c1 = Type::array(Scalar::Float32, 1, simt::sema::Layout::C);
  auto a1 = Type::array(Scalar::Float32, 1, simt::sema::Layout::Any);
  auto joined = simt::sema::join(c1, a1);
  ASSERT_TRUE(joined.has_value());
  EXPECT_EQ(joined->str(), "float32[:]");
  EXPECT_FALSE(simt::sema::join(c1, S(Scalar::Float32)).has_value());
  EXPECT_FALSE(simt::sema::join(c1, Type::array(Scalar::Float64, 1)).has_value());
  EXPECT_FALSE(simt::sema::join(c1, Type::array(Scalar::Float32, 2)).has_value());
  auto scalars = simt::sema::join(S(Scalar::Int32), S(Scalar::Float32));
  ASSERT_TRUE(scalars.has_value());
  EXPECT_EQ(scalars->str(), "float64");
}

TEST(SemaParseType, RoundTrips) {
  for (const char* text : {"bool",
                           "int8",
                           "int16",
                           "int32",
                           "int64",
                           "uint8",
                           "uint16",
                           "uint32",
                           "uint64",
                           "float16",
                           "float32",
                           "float64",
                           "complex64",
                           "complex128",
                           "float32[:]",
                           "float64[:, :]",
                           "float32[::1]",
                           "float32[:, ::1]",
                           "float32[::1, :]",
                           "complex128[:, :, ::1]",
                           "uint8[::1]",
                           "int64[:, :, :]",
                           "(int32, float64)",
                           "((int8, uint16), float16)",
                           "(int32,)",
                           "(float32[::1], int64)"}) {
    auto t = simt::sema::parse_type(text);
    ASSERT_TRUE(t.has_value()) << text;
    EXPECT_EQ(t->str(), text);
    auto again = simt::sema::parse_type(t->str());
    ASSERT_TRUE(again.has_value()) << text;
    EXPECT_EQ(*again, *t) << text;
  }
}

TEST(SemaParseType, Structure) {
  auto c2 = simt::sema::parse_type("float32[:, ::1]");
  ASSERT_TRUE(c2);
  EXPECT_TRUE(c2->is_array());
  EXPECT_EQ(c2->scalar, Scalar::Float32);
  EXPECT_EQ(c2->ndim, 2);
  EXPECT_EQ(c2->layout, simt::sema::Layout::C);
  auto f2 = simt::sema::parse_type("float64[::1, :]");
  ASSERT_TRUE(f2);
  EXPECT_EQ(f2->layout, simt::sema::Layout::F);
  auto any = simt::sema::parse_type("int8[:, :]");
  ASSERT_TRUE(any);
  EXPECT_EQ(any->layout, simt::sema::Layout::Any);
  auto tuple = simt::sema::parse_type("(int32, float64)");
  ASSERT_TRUE(tuple);
  ASSERT_EQ(tuple->items.size(), 2u);
  EXPECT_EQ(tuple->items[1], S(Scalar::Float64));
  // Aliases and spacing normalize.
  EXPECT_EQ(simt::sema::parse_type("f4")->str(), "float32");
  EXPECT_EQ(simt::sema::parse_type(" float32[:,::1] ")->str(), "float32[:, ::1]");
  EXPECT_FALSE(simt::sema::parse_type("float32")->weak);
}

TEST(SemaParseType, RejectsMalformed) {
  for (const char* text :
       {"",
        " ",
        "float33",
        "xyz",
        "float32[",
        "float32[:,",
        "float32[::2]",
        "float32[]",
        "float32[1:]",
        "float32[:]]",
        "float32[::1, ::1]",
        "float32[:, ::1, :]",
        "float32[::1][:]",
        "(int32",
        "int32)",
        "(,)",
        "(int32,,)",
        "int32 int32",
        "xyz[:]",
        "float32[:, :, :, :, :, :, :, :, :, :, :, :, :, :, :, :, :, :, :, :, :, :, :, :, :, :, :, "
        ":, :, :, :, :, :]"}) {
    EXPECT_FALSE(simt::sema::parse_type(text).has_value()) << "'" << text << "'";
  }
}

}  // namespace
