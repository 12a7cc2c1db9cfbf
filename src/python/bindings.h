// Shared pieces of the simt._core bindings. Each bindings file registers one
// area: the compiler (compiler.cpp), devices and arrays (arrays.cpp), kernel
// dispatch and launch (dispatch.cpp), raw kernels (raw_kernels.cpp).
#pragma once

#include <nanobind/nanobind.h>

#include <functional>
#include <memory>
#include <optional>
#include <string>
#include <unordered_map>
#include <vector>

#include "abi/arg_type.h"
#include "codegen/emitter.h"
#include "lang/ast.h"
#include "lang/diagnostics.h"
#include "lang/source.h"
#include "python/records.h"
#include "runtime/device.h"
#include "sema/infer.h"

namespace simt::python {

namespace nb = nanobind;

// Raises simt.CompileError or simt.TypingError from a compiler diagnostic.
[[noreturn]] void raise_diagnostic(const lang::CompileError& error);
// Sets that exception as the Python error indicator (for exception translators).
void set_diagnostic_error(const lang::CompileError& error);

// A type as users write it ("float32[:, ::1]", "readonly int8[:]",
// "(int64, float32)"); ValueError naming the text when malformed.
sema::Type type_from_text(const std::string& text);
abi::ArgType argument_type_from_text(const std::string& text);
// [(origin, text, [language name])] from Python: sources linked into kernels.
std::vector<sema::LinkedSource> linked_sources(const nb::handle& sources);

// One resolved global as the Python side describes it: a `_core.Global`
// (src/python/globals.cpp, which owns the descriptions and their reading).
struct Global;

// Reads resolved globals, `{name: _core.Global}` from python/simt/_resolve.py, as the
// compiler's Globals, following each @simt.func's own globals. A function that reaches
// itself (recursion, which inference rejects) is read once; destroying the reader breaks
// the reference cycles that creates, so keep it alive until code is emitted.
class GlobalsReader {
 public:
  GlobalsReader() = default;
  GlobalsReader(const GlobalsReader&) = delete;
  GlobalsReader& operator=(const GlobalsReader&) = delete;
  ~GlobalsReader();

  sema::Globals read(const nb::dict& globals);

 private:
  sema::GlobalValue value(const nb::handle& description);
  sema::GlobalValue value(const Global& description);
  std::unordered_map<PyObject*, std::shared_ptr<sema::DeviceFunctionSource>> functions_;
};

// One parsed kernel (or device) function; specializations compile from it.
class Function {
 public:
  Function(std::string source, std::string filename, uint32_t first_line);

  const std::string& name() const { return parsed_->def.name; }
  std::vector<std::string> param_names() const;
  std::vector<std::string> free_names() const;
  const std::shared_ptr<const lang::SourceText>& source() const { return source_; }
  const std::shared_ptr<const lang::ParsedFunction>& parsed() const { return parsed_; }

  // These raise the Python exception of a diagnostic.
  sema::TypedFunction infer(const std::vector<sema::Type>& arg_types,
                            const sema::Globals& globals) const;
  // The compiler pipeline (compiler/pipeline.h) for one signature.
  abi::GeneratedKernel generate(const std::vector<sema::Type>& arg_types,
                                const sema::Globals& globals, abi::Language language,
                                const codegen::EmitOptions& options) const;

 private:
  std::shared_ptr<const lang::SourceText> source_;
  std::shared_ptr<const lang::ParsedFunction> parsed_;
};

// A device as Python sees it: a handle on the runtime's shared device.
struct PyDevice {
  std::shared_ptr<runtime::Device> device;
};

// A stream or event as Python sees it; holds its device (whose default
// stream it may be).
struct PyStream {
  std::shared_ptr<runtime::Device> device;
  std::shared_ptr<runtime::Stream> stream;

  PyStream(std::shared_ptr<runtime::Device> d, std::shared_ptr<runtime::Stream> s)
      : device(std::move(d)), stream(std::move(s)) {}
  PyStream(const PyStream&) = default;
  PyStream& operator=(const PyStream&) = default;
  // The last reference to a stream waits for its queued work (a CPU
  // stream's worker), which may need the GIL: dropped without it.
  ~PyStream() {
    if (stream && stream.use_count() == 1 && PyGILState_Check()) {
      nb::gil_scoped_release release;
      stream.reset();
    }
  }
};
struct PyEvent {
  std::shared_ptr<runtime::Device> device;
  std::shared_ptr<runtime::Event> event;
};

// The runtime stream of a Python `stream` argument: None or 0 is the
// default stream of `device`; a simt.Stream (or its _impl) must be on
// `device` (ValueError naming `what` otherwise).
runtime::Stream& stream_argument(const nb::handle& stream, const runtime::Device& device,
                                 const char* what);
// Runs `f` holding the GIL, from any thread; skipped once the interpreter
// is finalizing and the thread does not hold it (interop.cpp).
void release_with_gil(const std::function<void()>& f) noexcept;

// The simt.Stream of a Python `stream` argument; nullopt for None or 0.
// TypeError for anything else.
std::optional<PyStream> stream_object(const nb::handle& stream);
// The stream of a launch configuration's 3rd item (a tuple that
// parse_launch_config accepted); nullopt for None, 0 or no 3rd item.
std::optional<PyStream> launch_stream(const nb::handle& config);
// Whether `stream` is None or 0 (the default stream).
bool is_default_stream_argument(const nb::handle& stream);
// The stream a launch or an event record with no stream named goes to: this
// thread's current stream of `device` (CuPy's `with stream:`, Stream.use()),
// else the device's default stream.
runtime::Stream& unnamed_stream(runtime::Device& device);

// The storage and geometry of a simt.Array (the Python class wraps one).
struct DeviceArray {
  std::shared_ptr<runtime::Buffer> buffer;
  int64_t offset = 0;  // bytes from the buffer's start
  std::vector<int64_t> shape;
  std::vector<int64_t> strides;  // bytes, as NumPy's
  sema::Scalar dtype = sema::Scalar::Float64;
  // A record dtype (then `dtype` means nothing); a 0-d array of records is one record,
  // which kernels take by reference (Numba's device record).
  RecordDtypePtr record;
  // Imported from a producer that marked its memory read-only: kernels may
  // not write it (inference rejects stores) and it exports as read-only.
  bool readonly = false;

  void* data() const { return static_cast<char*>(buffer->data()) + offset; }
  int64_t itemsize() const {
    return record ? record->record->itemsize : sema::bit_width(dtype) / 8;
  }
};

// The span of bytes an array covers, for copies between contiguous arrays: its elements
// times their size.
size_t contiguous_bytes(const DeviceArray& a);

// Throw runtime::GraphError (a RuntimeError) when a graph captures `stream`
// ("<what> cannot be captured into a graph: <instead>"), or any stream of
// `device` ("<what> while a graph captures work on cuda:0: ..."): work a
// capture cannot record.
void refuse_while_capturing(const runtime::Stream& stream, const std::string& what,
                            const std::string& instead);
// The same for work outside every stream: refused while any stream of `device` is captured.
void refuse_while_capturing(const runtime::Device& device, const std::string& what,
                            const std::string& instead);
void refuse_while_device_captures(const runtime::Device& device, const std::string& what);

// The current device of this thread (simt.use_device), else the default.
std::shared_ptr<runtime::Device> current_device();

void bind_compiler(nb::module_& m);
void bind_globals(nb::module_& m);
void bind_arrays(nb::module_& m);
void bind_dispatch(nb::module_& m);
void bind_streams(nb::module_& m);
void bind_graphs(nb::module_& m);
void bind_interop(nb::module_& m);
void bind_raw_kernels(nb::module_& m);
void bind_interrupts(nb::module_& m);
void bind_vendor_libraries(nb::module_& m);
void bind_snippet_keys(nb::module_& m);
void bind_array_calls(nb::module_& m);
void bind_translate(nb::module_& m);

// Raises what interrupted a wait (runtime::Interrupted), for exception
// translators.
void raise_pending_interrupt();

}  // namespace simt::python
