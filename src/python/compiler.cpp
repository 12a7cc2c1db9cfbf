// Bindings of the compiler: parse once, infer and emit per signature, and
// check generated code with the vendor compilers (usable without a GPU).
#include <nanobind/stl/pair.h>
#include <nanobind/stl/string.h>
#include <nanobind/stl/vector.h>

#include <array>
#include <optional>
#include <utility>

#include "abi/scalar.h"
#include "abi/signature.h"
#include "backends/cuda/nvrtc.h"
#include "backends/opencl/opencl_api.h"
#include "codegen/dialect.h"
#include "compiler/pipeline.h"
#include "lang/parser.h"
#include "python/bindings.h"
#include "sema/libdevice.h"

namespace simt::python {

namespace {

// Whether `filename` is a file of simt's own package (its device functions: random
// numbers, the array library's helpers).
bool in_simt_package(const std::string& filename) {
  static const std::string folder = [] {
    nb::object path = nb::module_::import_("os.path");
    return nb::cast<std::string>(
               path.attr("dirname")(nb::module_::import_("simt").attr("__file__"))) +
           "/";
  }();
  return filename.compare(0, folder.size(), folder) == 0;
}

}  // namespace

void set_diagnostic_error(const lang::CompileError& error) {
  const lang::Diagnostic& inner = error.diagnostic();
  // An error inside one of simt's own device functions is told at the user's call of it
  // (the error's attributes too), where there is one.
  std::optional<lang::Diagnostic> outer;
  if (in_simt_package(inner.filename)) {
    for (std::size_t k = 0; k < inner.calls.size() && !outer; ++k)
      if (!in_simt_package(inner.calls[k].filename)) outer = inner.seen_from(k);
  }
  const lang::Diagnostic& d = outer ? *outer : inner;
  nb::object errors = nb::module_::import_("simt.errors");
  nb::object cls =
      errors.attr(d.kind == lang::DiagnosticKind::Typing ? "TypingError" : "CompileError");
  nb::object exc = cls(d.message, d.filename, d.span.line, d.span.col, d.source_line,
                       outer ? outer->format() : std::string(error.what()));
  PyErr_SetObject(cls.ptr(), exc.ptr());
}

[[noreturn]] void raise_diagnostic(const lang::CompileError& error) {
  set_diagnostic_error(error);
  throw nb::python_error();
}

sema::Type type_from_text(const std::string& text) {
  auto t = sema::parse_type(text);
  if (!t) throw nb::value_error(("not a simt type: '" + text + "'").c_str());
  return *t;
}

abi::ArgType argument_type_from_text(const std::string& text) {
  auto t = abi::ArgType::parse(text);
  if (!t) throw nb::value_error(("not a simt type: '" + text + "'").c_str());
  return *t;
}

std::vector<sema::LinkedSource> linked_sources(const nb::handle& sources) {
  std::vector<sema::LinkedSource> out;
  for (nb::handle item : nb::cast<nb::list>(sources)) {
    nb::tuple t = nb::cast<nb::tuple>(item);
    sema::LinkedSource s;
    s.origin = nb::cast<std::string>(t[0]);
    s.text = nb::cast<std::string>(t[1]);
    for (nb::handle language : nb::cast<nb::list>(t[2])) {
      auto dialect = codegen::dialect_from_name(nb::cast<std::string>(language));
      if (!dialect) throw nb::value_error("unknown language of a linked source");
      s.languages.push_back(*dialect);
    }
    if (t.size() > 3) s.translated = nb::cast<bool>(t[3]);
    out.push_back(std::move(s));
  }
  return out;
}

Function::Function(std::string source, std::string filename, uint32_t first_line)
    : source_(
          std::make_shared<lang::SourceText>(std::move(source), std::move(filename), first_line)) {
  try {
    parsed_ = std::make_shared<lang::ParsedFunction>(lang::parse_function(*source_));
  } catch (const lang::CompileError& e) {
    raise_diagnostic(e);
  }
}

std::vector<std::string> Function::param_names() const {
  std::vector<std::string> names;
  for (const auto& p : parsed_->def.params) names.push_back(p.name);
  return names;
}

std::vector<std::string> Function::free_names() const {
  std::vector<std::string> names;
  for (const auto& n : parsed_->free_names) names.push_back(n.name);
  return names;
}

sema::TypedFunction Function::infer(const std::vector<sema::Type>& arg_types,
                                    const sema::Globals& globals) const {
  try {
    return sema::infer_types(*parsed_, *source_, arg_types, globals);
  } catch (const lang::CompileError& e) {
    raise_diagnostic(e);
  }
}

abi::GeneratedKernel Function::generate(const std::vector<sema::Type>& arg_types,
                                        const sema::Globals& globals, abi::Language language,
                                        const codegen::EmitOptions& options) const {
  try {
    return compiler::generate(*parsed_, *source_, arg_types, globals, language, options);
  } catch (const lang::CompileError& e) {
    raise_diagnostic(e);
  }
}

namespace {

std::vector<sema::Type> types_from_text(const std::vector<std::string>& texts) {
  std::vector<sema::Type> types;
  for (const auto& text : texts) types.push_back(type_from_text(text));
  return types;
}

// {local name: type} of one specialization, for tests and inspection.
nb::dict local_types(const Function& fn, const std::vector<std::string>& arg_types,
                     const nb::dict& globals) {
  GlobalsReader reader;
  sema::TypedFunction typed = fn.infer(types_from_text(arg_types), reader.read(globals));
  nb::dict out;
  for (const auto& local : typed.locals) out[local.name.c_str()] = local.type.str();
  return out;
}

nb::dict generate(const Function& fn, const std::vector<std::string>& arg_types,
                  const nb::dict& globals, const std::string& dialect_name, bool debug,
                  bool boundscheck, const nb::list& link, int max_registers, bool racecheck) {
  auto dialect = codegen::dialect_from_name(dialect_name);
  if (!dialect)
    throw nb::value_error(
        ("unknown dialect '" + dialect_name + "' (expected 'cuda', 'opencl' or 'cpp')").c_str());
  GlobalsReader reader;
  codegen::EmitOptions options;
  options.debug = debug;
  options.boundscheck = boundscheck || racecheck;  // as a race-checked launch compiles it
  options.racecheck = racecheck;
  options.link = linked_sources(link);
  options.max_registers = max_registers;
  abi::GeneratedKernel kernel =
      fn.generate(types_from_text(arg_types), reader.read(globals), *dialect, options);
  nb::dict out;
  out["source"] = kernel.source;
  out["entry"] = kernel.entry;
  nb::list params;
  for (const auto& p : kernel.params) params.append(p.c_type);
  out["param_types"] = params;
  return out;
}

// NVRTC on CUDA C++ for <arch> (a cubin for sm_<arch>, else PTX for
// compute_<arch>), usable without a GPU: {available, reason | version, ok, log}.
// NVRTC, loaded on first use, with out["available"] (and out["reason"] when it is not).
const cuda::Nvrtc* nvrtc_into(nb::dict& out) {
  std::string why;
  const cuda::Nvrtc* nvrtc = cuda::Nvrtc::get(&why);
  out["available"] = nvrtc != nullptr;
  if (!nvrtc) out["reason"] = why;
  return nvrtc;
}

nb::dict nvrtc_run(const std::string& source, int arch, const std::vector<std::string>& options,
                   bool want_cubin, cuda::CompileResult* result) {
  nb::dict out;
  const cuda::Nvrtc* nvrtc = nvrtc_into(out);
  if (!nvrtc) return out;
  {
    nb::gil_scoped_release release;
    *result = nvrtc->compile(source, "simt_kernel.cu", arch / 10, arch % 10, options, want_cubin);
  }
  auto [major, minor] = nvrtc->version();
  out["version"] = std::to_string(major) + "." + std::to_string(minor);
  out["ok"] = result->ok;
  out["log"] = result->log;
  return out;
}

// Which NVRTC the CUDA backend uses (python -m simt info), without a GPU or a compile:
// {available, reason | version, path, include_dir (None when there are no headers)}.
nb::dict nvrtc_status() {
  nb::dict out;
  const cuda::Nvrtc* nvrtc = nvrtc_into(out);
  if (!nvrtc) return out;
  auto [major, minor] = nvrtc->version();
  out["version"] = std::to_string(major) + "." + std::to_string(minor);
  out["path"] = nvrtc->library_path();
  std::optional<std::string> include = nvrtc->toolkit_include_dir();
  out["include_dir"] = include ? nb::cast(*include) : nb::none();
  return out;
}

// What the CUDA backend will do before loading.
nb::dict nvrtc_compile(const std::string& source, int arch) {
  cuda::CompileResult r;
  nb::dict out = nvrtc_run(source, arch, {}, true, &r);
  if (out.contains("ok")) out["cubin_bytes"] = r.cubin.size();
  return out;
}

// PTX (cuda.compile_ptx, Kernel.inspect_asm), with NVRTC options such as
// --use_fast_math.
nb::dict nvrtc_ptx(const std::string& source, int arch, const std::vector<std::string>& options) {
  cuda::CompileResult r;
  nb::dict out = nvrtc_run(source, arch, options, false, &r);
  if (out.contains("ok")) out["ptx"] = r.ptx;
  return out;
}

// The OpenCL libraries the backend opened (OpenCLApi::libraries()), for `simt info`: the
// ICD loader's file or why there is none, and each library in use with its kind.
nb::dict opencl_libraries() {
  const opencl::OpenCLApi::Libraries& libraries = opencl::OpenCLApi::libraries();
  nb::list in_use;
  for (const opencl::OpenCLApi* api : libraries.apis) {
    nb::dict library;
    library["path"] = api->library_path();
    library["kind"] = api->kind() == opencl::OpenCLApi::Kind::loader ? "loader" : "driver";
    in_use.append(library);
  }
  nb::dict out;
  out["loader"] = libraries.loader_path;
  out["loader_reason"] = libraries.loader_reason;
  out["libraries"] = in_use;
  out["driver_problems"] = libraries.driver_problems;
  return out;
}

// Builds OpenCL C for the first OpenCL device (PoCL in CI).
nb::dict opencl_build(const std::string& source) {
  std::string why;
  std::vector<opencl::DeviceInfo> devices = opencl::list_devices(&why);
  nb::dict out;
  out["available"] = !devices.empty();
  if (devices.empty()) {
    out["reason"] = why;
    return out;
  }
  opencl::BuildResult r;
  {
    nb::gil_scoped_release release;
    r = opencl::build_program(devices[0], source, "");
  }
  out["device"] = devices[0].name;
  out["ok"] = r.ok;
  out["log"] = r.log;
  return out;
}

// What the snippet kernels (ElementwiseKernel, ReductionKernel), which
// generate their source in Python, spell as the emitter does: read from the
// dialect's row, so the two generators cannot drift apart.
nb::dict dialect_spellings(const std::string& name) {
  auto id = codegen::dialect_from_name(name);
  if (!id)
    throw nb::value_error(
        ("unknown dialect '" + name + "' (expected 'cuda', 'opencl' or 'cpp')").c_str());
  const codegen::Dialect& d = codegen::dialect(*id);
  auto text = [](std::string_view s) { return nb::str(s.data(), s.size()); };
  nb::dict out;
  out["name"] = text(d.name);
  out["kernel_prefix"] = text(d.kernel_prefix);
  out["function_prefix"] = text(d.function_prefix);
  out["global_space"] = text(d.global_space);
  out["shared_decl"] = text(d.shared_decl);
  out["barrier"] = text(d.barrier);
  out["cuda_qualifiers"] = text(d.cuda_qualifiers);
  nb::dict value_types, storage_types;
  for (int k = 0; k < abi::kScalarCount; ++k) {
    const auto s = static_cast<abi::Scalar>(k);
    value_types[abi::scalar_name(s)] = text(d.value_type(s));
    storage_types[abi::scalar_name(s)] = text(d.storage_type(s));
  }
  out["value_types"] = value_types;
  out["storage_types"] = storage_types;
  constexpr std::array<std::pair<codegen::IndexObject, const char*>, 4> kObjects{
      {{codegen::IndexObject::ThreadIdx, "thread_idx"},
       {codegen::IndexObject::BlockIdx, "block_idx"},
       {codegen::IndexObject::BlockDim, "block_dim"},
       {codegen::IndexObject::GridDim, "grid_dim"}}};
  nb::dict index_objects;
  for (const auto& [object, object_name] : kObjects) {
    index_objects[object_name] =
        nb::make_tuple(text(d.index_expr(object, 0)), text(d.index_expr(object, 1)),
                       text(d.index_expr(object, 2)));
  }
  out["index_objects"] = index_objects;
  return out;
}

}  // namespace

void bind_compiler(nb::module_& m) {
  nb::class_<Function>(m, "Function")
      .def(nb::init<std::string, std::string, uint32_t>(), nb::arg("source"), nb::arg("filename"),
           nb::arg("first_line") = 1)
      .def_prop_ro("name", &Function::name)
      .def_prop_ro("param_names", &Function::param_names)
      .def_prop_ro("free_names", &Function::free_names)
      .def("local_types", &local_types, nb::arg("arg_types"), nb::arg("globals"))
      .def("generate", &generate, nb::arg("arg_types"), nb::arg("globals"), nb::arg("dialect"),
           nb::arg("debug") = false, nb::arg("boundscheck") = false, nb::arg("link") = nb::list(),
           nb::arg("max_registers") = 0, nb::arg("racecheck") = false);

  m.def("nvrtc_status", &nvrtc_status,
        "The NVRTC the CUDA backend loads: {available, reason | version, path, include_dir}.");
  m.def("nvrtc_compile", &nvrtc_compile, nb::arg("source"), nb::arg("arch") = 90,
        "Compiles CUDA C++ with NVRTC to a cubin: {available, reason | version, ok, log, "
        "cubin_bytes}.");
  m.def("nvrtc_ptx", &nvrtc_ptx, nb::arg("source"), nb::arg("arch") = 75,
        nb::arg("options") = std::vector<std::string>(),
        "Compiles CUDA C++ with NVRTC to PTX for compute_<arch>: {available, reason | ok, log, "
        "ptx}.");
  m.def("opencl_libraries", &opencl_libraries,
        "The OpenCL libraries in use: {'loader', 'loader_reason', 'libraries': [{'path', "
        "'kind'}], 'driver_problems'} (opens them on first use).");
  m.def("opencl_build", &opencl_build, nb::arg("source"),
        "Builds OpenCL C on the first OpenCL device: {available, reason | device, ok, log}.");
  m.def("dialect_spellings", &dialect_spellings, nb::arg("name"),
        "How a dialect ('cuda', 'opencl', 'cpp') spells what generated source needs: "
        "{name, kernel_prefix, function_prefix, global_space, shared_decl, barrier, "
        "cuda_qualifiers, "
        "value_types and storage_types ({NumPy scalar name: C type}), index_objects "
        "({'thread_idx' | 'block_idx' | 'block_dim' | 'grid_dim': (x, y, z)})}, from the "
        "emitter's dialect table.");
  m.def(
      "normalize_type", [](const std::string& text) { return argument_type_from_text(text).str(); },
      "The canonical spelling of an argument type ('float32[:, ::1]', 'readonly int8[:]').");
  m.def(
      "parse_signature",
      [](const std::string& text) {
        std::string why;
        std::optional<abi::Signature> signature = abi::parse_signature(text, &why);
        if (!signature) throw nb::value_error(why.c_str());
        nb::list params;
        for (const abi::SignatureParam& param : signature->params) params.append(param.str());
        nb::object result = signature->result ? nb::cast(signature->result->str()) : nb::none();
        return nb::make_tuple(result, params);
      },
      nb::arg("text"),
      "(result type or None, [argument types]) of a signature in Numba's vocabulary: "
      "'void(float32[:], int64)', '(f4[::1], f4)', 'float32(float32, CPointer(int32))', "
      "'none(...)' or the bare 'float32[:], int64'; each type in normalize_type's spelling, a "
      "pointer as 'CPointer(int32)'. ValueError names the text and what is wrong.");
  m.def(
      "scalar_aliases",
      [](bool numba) {
        nb::dict out;
        for (const abi::ScalarAlias& alias :
             abi::scalar_aliases(numba ? abi::Spelling::Numba : abi::Spelling::NumPy))
          out[nb::str(alias.name.data(), alias.name.size())] = abi::scalar_name(alias.scalar);
        return out;
      },
      nb::arg("numba") = false,
      "{alias: NumPy name} of every other name a scalar type is read by, in NumPy's "
      "vocabulary (normalize_type) or Numba's (parse_signature).");
  m.def(
      "promote",
      [](const std::string& a, bool a_weak, const std::string& b, bool b_weak) {
        sema::Type ta = type_from_text(a), tb = type_from_text(b);
        ta.weak = a_weak;
        tb.weak = b_weak;
        return sema::promote(ta, tb).strong().str();
      },
      nb::arg("a"), nb::arg("a_weak"), nb::arg("b"), nb::arg("b_weak"),
      "NumPy's result type of two scalar types; a weak type is a Python literal (NEP 50).");
  m.def(
      "libdevice_functions",
      [] {
        std::vector<std::pair<std::string, bool>> out;
        for (const auto& row : sema::libdevice_table())
          out.emplace_back(row.name, row.implemented());
        return out;
      },
      "Numba's cuda.libdevice names (without __nv_), each with whether simt implements it.");
}

}  // namespace simt::python
