// The resolved globals of a kernel, as the Python side describes them
// (python/simt/_resolve.py): `_core.Global`'s named constructors build each description
// in C++ when Python resolves a name, so a malformed one fails there, and GlobalsReader
// reads them into the compiler's Globals. This file is their only reader and writer.
#include <nanobind/stl/pair.h>
#include <nanobind/stl/string.h>
#include <nanobind/stl/vector.h>

#include <string>
#include <utility>
#include <vector>

#include "python/bindings.h"

namespace simt::python {

using Kind = sema::GlobalValue::Kind;

// One description. A device function's globals resolve only when a kernel using it
// compiles, through the reader (which stops at recursion), so a device function, and a
// tuple that may hold one, keep what the reader needs instead of a finished value.
struct Global {
  sema::GlobalValue value;
  nb::object function;        // Kind::DeviceFunction: the simt.func
  std::vector<Global> items;  // Kind::Tuple: the items; Kind::TupleClass: the defaults
};

namespace {

Global of_kind(Kind kind, std::string name = {}) {
  Global g;
  g.value.kind = kind;
  g.value.name = std::move(name);
  return g;
}

// A Python number: a weak constant (NEP 50), as a literal in the kernel would be; a bool
// is strong.
Global number_constant(sema::Scalar scalar) {
  Global g = of_kind(Kind::Constant);
  g.value.constant.type = sema::Type::scalar_of(scalar, scalar != sema::Scalar::Bool);
  return g;
}

Global number(const nb::handle& value) {
  PyObject* object = value.ptr();
  if (PyBool_Check(object) || PyLong_Check(object)) {
    int overflow = 0;
    long long v = PyLong_AsLongLongAndOverflow(object, &overflow);
    if (overflow != 0)
      return of_kind(Kind::Unsupported, "the int " + nb::cast<std::string>(nb::str(value)) +
                                            ", which does not fit in int64");
    if (v == -1 && PyErr_Occurred()) throw nb::python_error();
    Global g = number_constant(PyBool_Check(object) ? sema::Scalar::Bool : sema::Scalar::Int64);
    g.value.constant.int_value = v;
    g.value.constant.real = static_cast<double>(v);
    return g;
  }
  if (PyFloat_Check(object)) {
    Global g = number_constant(sema::Scalar::Float64);
    g.value.constant.real = PyFloat_AsDouble(object);
    return g;
  }
  if (PyComplex_Check(object)) {
    Global g = number_constant(sema::Scalar::Complex128);
    g.value.constant.real = PyComplex_RealAsDouble(object);
    g.value.constant.imag = PyComplex_ImagAsDouble(object);
    return g;
  }
  throw nb::type_error(("Global.number takes a bool, int, float or complex, not " +
                        nb::cast<std::string>(nb::str(value.type().attr("__name__"))))
                           .c_str());
}

// A number's name or a record dtype's text (records.cpp) into `g`'s dtype or record.
void set_dtype(Global& g, const std::string& text) {
  sema::Type type = type_from_text(text);
  if (type.is_record())
    g.value.record = type.record;
  else
    g.value.dtype = type.scalar;
}

Global dtype(const std::string& text) {
  Global g = of_kind(Kind::DType);
  set_dtype(g, text);
  return g;
}

// A NumPy scalar: a constant of its own (strong) type.
Global scalar(const std::string& type, int64_t int_value, double real, double imag) {
  Global g = of_kind(Kind::Constant);
  g.value.constant.type = type_from_text(type);
  g.value.constant.int_value = int_value;
  g.value.constant.real = real;
  g.value.constant.imag = imag;
  return g;
}

Global member(std::string owner, std::string attribute) {
  Global g = of_kind(Kind::Member, std::move(owner));
  g.value.attribute = std::move(attribute);
  return g;
}

// A class `raise` statements can raise; `key` is what the host finds it by after a launch.
Global exception(std::string name, int64_t key) {
  Global g = of_kind(Kind::Exception, std::move(name));
  g.value.constant.int_value = key;
  return g;
}

Global device_function(nb::object func) {
  Global g = of_kind(Kind::DeviceFunction);
  g.function = std::move(func);
  return g;
}

// Numbers or records, C-ordered.
Global constant_array(const std::string& type, std::vector<int64_t> shape, const nb::bytes& data) {
  Global g = of_kind(Kind::ConstArray);
  set_dtype(g, type);
  g.value.shape = std::move(shape);
  g.value.bytes = std::make_shared<const std::string>(data.c_str(), data.size());
  return g;
}

// simt.cuda.declare_device's function: types as text ("float32", "none"; a pointer
// parameter "float32*").
Global foreign(std::string name, std::string symbol, const std::string& result,
               const std::vector<std::string>& params, const nb::list& sources, bool c_abi) {
  auto fn = std::make_shared<sema::ForeignFunction>();
  fn->c_abi = c_abi;
  fn->name = std::move(name);
  fn->symbol = std::move(symbol);
  fn->result = result == "none" ? sema::Type::none() : type_from_text(result);
  for (std::string text : params) {
    sema::ForeignFunction::Param p;
    p.pointer = !text.empty() && text.back() == '*';
    if (p.pointer) text.pop_back();
    p.scalar = type_from_text(text).scalar;
    fn->params.push_back(p);
  }
  fn->sources = linked_sources(sources);
  Global g = of_kind(Kind::Foreign);
  g.value.foreign = std::move(fn);
  return g;
}

// The fields only for a named tuple.
Global tuple(std::vector<Global> items, std::vector<std::string> fields) {
  Global g = of_kind(Kind::Tuple);
  g.items = std::move(items);
  g.value.fields = std::move(fields);
  return g;
}

// A class kernels call to make named tuples; `defaults` fill its last fields.
Global named_tuple_class(std::string name, std::vector<std::string> fields,
                         std::vector<Global> defaults) {
  Global g = of_kind(Kind::TupleClass, std::move(name));
  g.value.fields = std::move(fields);
  g.items = std::move(defaults);
  return g;
}

const char* kind_name(Kind kind) {
  switch (kind) {
    case Kind::Module:
      return "module";
    case Kind::Function:
      return "function";
    case Kind::DType:
      return "dtype";
    case Kind::Constant:
      return "constant";
    case Kind::Tuple:
      return "tuple";
    case Kind::Member:
      return "member";
    case Kind::Unsupported:
      return "unsupported";
    case Kind::DeviceFunction:
      return "device_function";
    case Kind::ConstArray:
      return "constant_array";
    case Kind::Foreign:
      return "foreign";
    case Kind::Exception:
      return "exception";
    case Kind::TupleClass:
      return "named_tuple_class";
  }
  return "?";
}

std::string repr(const Global& g) {
  std::string out = std::string("<simt global ") + kind_name(g.value.kind);
  if (!g.value.name.empty()) out += " " + g.value.name;
  if (g.value.kind == Kind::Member) out += "." + g.value.attribute;
  if (g.value.kind == Kind::Constant) out += " " + g.value.constant.type.str();
  return out + ">";
}

}  // namespace

sema::GlobalValue GlobalsReader::value(const nb::handle& description) {
  if (!nb::isinstance<Global>(description))
    throw nb::type_error(("a resolved global is described by simt._core.Global, not " +
                          nb::cast<std::string>(nb::str(description.type().attr("__name__"))))
                             .c_str());
  return value(nb::cast<const Global&>(description));
}

sema::GlobalValue GlobalsReader::value(const Global& description) {
  sema::GlobalValue g = description.value;
  for (const Global& item : description.items) g.items.push_back(value(item));
  if (g.kind != Kind::DeviceFunction) return g;
  // Its source is parsed already; its globals are resolved now, through the object's own
  // resolver.
  nb::handle func = description.function;
  auto found = functions_.find(func.ptr());
  if (found != functions_.end()) {
    g.function = found->second;
    return g;
  }
  const Function& fn = nb::cast<const Function&>(func.attr("_function"));
  auto source = std::make_shared<sema::DeviceFunctionSource>();
  source->name = fn.name();
  source->source = fn.source();
  source->parsed = fn.parsed();
  // [(result text or None, [parameter texts])]: the signatures it was declared with.
  for (nb::handle declared : nb::cast<nb::list>(func.attr("_declared"))) {
    auto [result, params] = nb::cast<std::pair<nb::object, std::vector<std::string>>>(declared);
    sema::DeclaredSignature d;
    if (!result.is_none()) d.result = type_from_text(nb::cast<std::string>(result));
    for (const std::string& p : params) d.params.push_back(type_from_text(p));
    source->declared.push_back(std::move(d));
  }
  functions_.emplace(func.ptr(), source);
  source->globals = read(nb::cast<nb::dict>(func.attr("_resolve_globals")()));
  g.function = source;
  return g;
}

sema::Globals GlobalsReader::read(const nb::dict& globals) {
  sema::Globals resolved;
  for (auto [key, value] : globals)
    resolved.emplace(nb::cast<std::string>(key), this->value(value));
  return resolved;
}

GlobalsReader::~GlobalsReader() {
  for (auto& [object, source] : functions_) source->globals.clear();
}

void bind_globals(nb::module_& m) {
  nb::class_<Global>(m, "Global",
                     "What a name a kernel reads but does not define is, as the compiler "
                     "reads it (python/simt/_resolve.py builds them; an object describing "
                     "itself returns one from `_simt_describe_()`).")
      .def_static(
          "module", [](std::string name) { return of_kind(Kind::Module, std::move(name)); },
          nb::arg("name"), "A module kernels use: 'math', 'cmath', 'numpy', 'simt', ...")
      .def_static(
          "function", [](std::string name) { return of_kind(Kind::Function, std::move(name)); },
          nb::arg("name"), "An intrinsic function by qualified name: 'math.sin', 'simt.grid'.")
      .def_static("member", &member, nb::arg("owner"), nb::arg("attribute"),
                  "An attribute of a module bound to a name (`from simt import thread_idx`).")
      .def_static("dtype", &dtype, nb::arg("type"),
                  "A dtype: a number's name ('float32') or a record dtype's text.")
      .def_static("number", &number, nb::arg("value"),
                  "A Python bool, int, float or complex: a constant (weak but for bool); an "
                  "int outside int64 is unsupported.")
      .def_static("scalar", &scalar, nb::arg("type"), nb::arg("int_value"), nb::arg("real"),
                  nb::arg("imag"),
                  "A NumPy scalar: a constant of its type; int_value holds integers (as "
                  "int64's bits), real and imag the value as floats.")
      .def_static("exception", &exception, nb::arg("name"), nb::arg("key"),
                  "An exception class `raise` raises; the host finds it by key.")
      .def_static(
          "unsupported",
          [](std::string what) { return of_kind(Kind::Unsupported, std::move(what)); },
          nb::arg("what"), "A value kernels cannot use; `what` names it in the error.")
      .def_static("device_function", &device_function, nb::arg("func"),
                  "A simt.func: its globals resolve (`func._resolve_globals()`) when a "
                  "kernel calling it compiles.")
      .def_static("constant_array", &constant_array, nb::arg("type"), nb::arg("shape"),
                  nb::arg("data"),
                  "A NumPy array read at compile time: its dtype's text, shape and C-ordered "
                  "bytes.")
      .def_static("foreign", &foreign, nb::arg("name"), nb::arg("symbol"), nb::arg("result"),
                  nb::arg("params"), nb::arg("sources"), nb::arg("c_abi") = false,
                  "A function written in C (cuda.declare_device): types as text ('none', "
                  "'float32', a pointer parameter 'float32*'), sources as [(origin, text, "
                  "[language])]; c_abi: it returns its result (abi='c'), else Numba's ABI.")
      .def_static("tuple", &tuple, nb::arg("items"), nb::arg("fields") = std::vector<std::string>(),
                  "A tuple of descriptions; `fields` names a named tuple's items.")
      .def_static("named_tuple_class", &named_tuple_class, nb::arg("name"), nb::arg("fields"),
                  nb::arg("defaults"),
                  "A named tuple class kernels call; `defaults` describe its last fields'.")
      .def_prop_ro(
          "kind", [](const Global& g) { return kind_name(g.value.kind); },
          "Which constructor made it ('module', 'constant', 'unsupported', ...).")
      .def("__repr__", &repr);
}

}  // namespace simt::python
