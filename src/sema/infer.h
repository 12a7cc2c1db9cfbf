// Type inference: one typed view of a parsed function per argument-type
// signature, kept beside the tree (the tree itself is shared).
#pragma once

#include <map>
#include <optional>
#include <string>
#include <unordered_map>
#include <vector>

#include "lang/ast.h"
#include "lang/source.h"
#include "sema/intrinsics.h"
#include "sema/types.h"

namespace simt::sema {

// A compile-time value: a literal, a resolved global constant, or an
// integer expression folded from those.
struct Constant {
  Type type;               // a Scalar type (weak for Python numbers)
  int64_t int_value = 0;   // integers and bool (uint64 values above 2**63 wrap)
  double real = 0;         // floats; complex real part
  double imag = 0;         // complex imaginary part
  std::vector<Constant> items;  // a tuple of constants (type is then a Tuple)
};

// What a free name resolved to on the Python side: the value of a global,
// closure variable or builtin the kernel reads.
struct GlobalValue {
  // Member: an attribute of a module bound to a name (`from simt import
  // threadIdx`). Unsupported: a value kernels cannot use; `name` says what
  // it is, for the error at its use.
  enum class Kind { Module, Function, DType, Constant, Tuple, Member, Unsupported };
  Kind kind = Kind::Constant;
  std::string name;            // Module: "math"/"numpy"/"simt"; Function: qualified name;
                               // Member: the module; Unsupported: a description
  std::string attribute;       // Member
  Scalar dtype = Scalar::Int64;  // DType
  Constant constant;           // Constant
  std::vector<GlobalValue> items;  // Tuple (of constants)
};
using Globals = std::map<std::string, GlobalValue, std::less<>>;

struct ExprInfo {
  Type type;
  int local = -1;                     // Name: index into TypedFunction::locals
  std::optional<Constant> constant;   // known at compile time
  // Unary/Binary: the type operands are converted to before the operation
  // (int / int computes in float64; comparisons in the promoted type).
  Type operand;
  std::vector<Type> pair_operands;    // Compare: one per comparison in the chain
  const Intrinsic* intrinsic = nullptr;  // Call of an intrinsic
  bool nonnegative = false;           // provably >= 0: indexing skips wraparound
};

struct LocalVar {
  std::string name;
  Type type;             // concrete (never weak) once inference ends
  lang::Span first;      // first binding (the parameter for parameters)
  bool is_param = false;
  bool annotated = false;  // its type was declared (`x: float32`), not inferred
};

struct TypedFunction {
  const lang::ParsedFunction* parsed = nullptr;
  const lang::SourceText* source = nullptr;
  std::vector<LocalVar> locals;  // parameters first, in order
  std::vector<Type> param_types;  // the C parameters' types, one per parameter
  std::unordered_map<const lang::Expr*, ExprInfo> exprs;
  // AugAssign statements: the operation `target op value` (operand and
  // result types), as an ExprInfo of the implied binary expression.
  std::unordered_map<const lang::Stmt*, ExprInfo> stmts;

  size_t param_count() const { return parsed->def.params.size(); }
  const ExprInfo& at(const lang::Expr& e) const { return exprs.at(&e); }
  const ExprInfo& at(const lang::Stmt& s) const { return stmts.at(&s); }
};

// Types `fn` for parameters of `arg_types` (one per parameter, after
// defaults; a parameter annotated with a scalar type takes that type).
// Throws lang::CompileError (DiagnosticKind::Typing) naming the expression
// and the types involved.
TypedFunction infer_types(const lang::ParsedFunction& fn, const lang::SourceText& src,
                          const std::vector<Type>& arg_types, const Globals& globals);

}  // namespace simt::sema
