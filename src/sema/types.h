// The types of the kernel language and NumPy's promotion rules over them.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "abi/arg_type.h"
#include "abi/scalar.h"

namespace simt::sema {

// Scalars and layouts are the argument ABI's (abi/scalar.h): the type
// checker, the emitter and the launch path name them the same way.
using abi::bit_width;
using abi::complex_of;
using abi::is_bool;
using abi::is_complex;
using abi::is_float;
using abi::is_integer;
using abi::is_signed;
using abi::is_unsigned;
using abi::Layout;
using abi::real_of;
using abi::Scalar;
using abi::scalar_from_name;
using abi::scalar_name;
using abi::unsigned_of;

// Where an array's data lives; kernel parameters are Global. Shared and Local
// arrays come with the shared/local memory features.
enum class Space : uint8_t { Global, Shared, Local, Constant };

enum class TypeKind : uint8_t {
  Unknown,  // not inferred yet (only during inference)
  None,     // the value None, and the type of statements/print
  Scalar,
  Array,
  Tuple,
  String,    // string literals (print, assert messages)
  Module,    // a namespace: name = "math", "simt", "numpy", "simt.atomic"
  Function,  // an intrinsic or builtin: name = its qualified name ("math.sin")
  DType,     // a scalar type used as a value: float32, np.int8, int (cast functions)
  Dim3,      // thread_idx/block_idx/block_dim/grid_dim: name = which one
  Range,     // the value of range(...), only iterated over
  // cuda.cg.this_grid(): the launch's grid as a value with a sync() method.
  // Zero-size: it has no C storage (no leaves), so variables and device
  // function parameters may hold it for free.
  GridGroup,
  // One record of a record dtype, as Numba has it: a reference to its bytes (an element
  // of an array of records, a record argument, a nested record field). Reading a field
  // reads those bytes; writing one writes them; `r = a[i]` names the same record.
  Record,
};

struct Type {
  TypeKind kind = TypeKind::Unknown;
  Scalar scalar = Scalar::Int64;  // Scalar; Array element type; DType value
  // Record; Array and DType: a record dtype (then `scalar` means nothing).
  abi::RecordRef record;
  // A Python literal or a value computed only from literals: it takes the type
  // of the other operand in arithmetic (NEP 50). Scalar only.
  bool weak = false;
  uint8_t ndim = 0;             // Array
  Layout layout = Layout::Any;  // Array
  Space space = Space::Global;  // Array, Record
  bool readonly = false;        // Array, Record
  // Array: its elements may sit at addresses their type's alignment does not divide (a
  // fixed-size array field of a packed record): each is read and written byte by byte.
  bool packed = false;
  // Tuple: its items. Range: empty for range(...); for enumerate/zip of ranges and arrays,
  // the items of the tuple each iteration yields (name says which).
  std::vector<Type> items;
  // Tuple: a named tuple's field names, one per item (abi::ArgType::fields); else empty.
  std::vector<std::string> fields;
  std::string name;  // Module, Function, Dim3; Range: "enumerate" or "zip", else empty

  static Type unknown() { return {}; }
  static Type none();
  static Type scalar_of(Scalar s, bool weak = false);
  static Type array(Scalar dtype, int ndim, Layout layout = Layout::Any,
                    Space space = Space::Global);
  static Type tuple(std::vector<Type> items);
  static Type uniform_tuple(const Type& item, int count);
  static Type string();
  static Type module(std::string name);
  static Type function(std::string qualified_name);
  static Type dtype(Scalar s);
  static Type dim3(std::string which);
  static Type range(Scalar index);
  static Type grid_group();
  static Type record_ref(abi::RecordRef record, Space space, bool readonly);
  static Type record_array(abi::RecordRef record, int ndim, Layout layout = Layout::Any,
                           Space space = Space::Global);
  static Type record_dtype(abi::RecordRef record);

  bool is_unknown() const { return kind == TypeKind::Unknown; }
  bool is_scalar() const { return kind == TypeKind::Scalar; }
  bool is_array() const { return kind == TypeKind::Array; }
  bool is_tuple() const { return kind == TypeKind::Tuple; }
  bool is_record() const { return kind == TypeKind::Record; }
  // An array (or dtype) of records.
  bool has_records() const { return static_cast<bool>(record) && kind != TypeKind::Record; }
  // An array's element (a scalar, or a reference to a record in the array's space).
  Type element() const;
  // The bytes of an array's element: the record's itemsize, or the scalar's.
  int64_t element_bytes() const;
  bool is_number() const { return is_scalar(); }  // bool counts, as in Python
  bool is_int_like() const { return is_scalar() && (is_integer(scalar) || is_bool(scalar)); }
  // Unknown anywhere inside (tuples).
  bool contains_unknown() const;
  // 0 for a non-tuple, 1 + the deepest item's for a tuple.
  int tuple_depth() const;
  // 1 for a non-tuple (0 for a GridGroup, which has no storage), the sum of
  // the items' for a tuple.
  size_t leaf_count() const;
  // The same type, not weak.
  Type strong() const;
  // What one iteration of a Range yields: its index, or the tuple of an enumerate/zip.
  Type range_item() const;

  bool operator==(const Type& o) const;
  bool operator!=(const Type& o) const { return !(*this == o); }

  // How users write it: "float32", "float32[:, ::1]", "(int64, float32)",
  // "int literal" / "float literal" for weak scalars, "module math".
  std::string str() const;
};

// NumPy's result type of two scalars with NEP 50 weak-literal rules: a weak
// operand adopts the kind of the strong one when it fits that kind (int
// literal with int8 -> int8; float literal with int32 -> float64). Two weak
// operands give a weak result.
Type promote(const Type& a, const Type& b);

// The scalar type of a weak type when it must become concrete: int64,
// float64, complex128 (bool stays bool).
Scalar concrete(const Type& t);

// What iterating the array `a` yields, as `a[k]` does: an element of a 1-D
// array, else a view of its other axes (the rows of a C-contiguous array are
// C-contiguous).
Type array_row(const Type& a);

// Joins two types a variable is assigned: scalars promote, arrays of one
// dtype and ndim meet in layout, tuples join item by item. nullopt when the
// two cannot be one variable (array and scalar, different dtypes of arrays).
std::optional<Type> join(const Type& a, const Type& b);

// A kernel argument's type as the type checker sees it, and back (nullopt
// for types no argument has: modules, functions, shared arrays, ...).
Type type_of_argument(const abi::ArgType& arg);
std::optional<abi::ArgType> argument_type(const Type& t);

// Parses a type written as users write signatures: "float32", "int64",
// "float32[:]", "float64[:, :]", "float32[::1]" (C contiguous 1-D),
// "float32[:, ::1]" (C), "float32[::1, :]" (F), "(int32, float64)",
// "readonly float32[:]" (abi::ArgType::parse).
// nullopt when malformed.
std::optional<Type> parse_type(std::string_view text);

}  // namespace simt::sema
