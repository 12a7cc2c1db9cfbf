// GPU arrays of other libraries (CuPy, PyTorch, Numba, JAX: anything with a
// __cuda_array_interface__) as kernel arguments, used in place. The interface
// builds a dict on every access (PyTorch's in Python: ~8 µs a tensor), so the
// types whose attributes say the same thing directly (cupy.ndarray,
// torch.Tensor) are read through those; every other producer goes through
// the interface, read once per argument.
#pragma once

#include <Python.h>

#include <array>
#include <cstdint>
#include <functional>
#include <optional>
#include <string>

#include "abi/arg_type.h"
#include "abi/scalar.h"

namespace simt::python {

struct ForeignArray {
  void* data = nullptr;
  abi::Scalar scalar = abi::Scalar::Float32;
  int ndim = 0;  // may exceed kMaxDims: then shape and strides hold the first kMaxDims
  std::array<int64_t, abi::kMaxDims> shape{};
  std::array<int64_t, abi::kMaxDims> byte_strides{};
  bool readonly = false;
  // A stream the producer's writes may be pending on, which a consumer waits
  // for: the interface's version-3 'stream', CuPy's or PyTorch's current
  // stream; 0 for none or the legacy default stream.
  uintptr_t pending_stream = 0;
  int64_t itemsize() const;
};

// Reads `o` as a foreign GPU array into `out`; false when `o` is none (it has
// no __cuda_array_interface__: a NumPy array, a CPU tensor). An interface
// simt cannot take (another typestr, a producer's own refusal such as
// PyTorch's for tensors that require grad) raises TypeError naming `name`.
bool read_foreign_array(PyObject* o, const std::string& name, ForeignArray& out);

// Reads `o` when it is a CuPy array or a PyTorch tensor on a CUDA device that
// the producer's own attributes describe (no interface dict), with the CUDA
// ordinal of its device; false for anything else, never raising, and false
// while the producer's current stream is not its legacy default one (a first
// call orders that stream's writes): the warm-call keys of snippet kernels
// (snippet_keys.cpp) take such arrays as they are.
bool read_known_producer(PyObject* o, ForeignArray& out, int& cuda_ordinal);

// How the reader below reports what is wrong with an interface: the kind of
// Python exception it calls for, and a message whose subject is the interface
// ("has a mask: ..."). It must throw.
// Unsupported: a valid interface simt cannot take (NotImplementedError, as Numba's).
enum class FaultKind { Type, Value, Unsupported };
using InterfaceFault = std::function<void(FaultKind, const std::string&)>;

// Reads a __cuda_array_interface__ dict (versions 0 to 3) into `out`: the one
// reader of the protocol, for kernel arguments and for simt.asarray alike.
void read_cuda_array_interface(PyObject* cai, ForeignArray& out, const InterfaceFault& fault);

// A typestr of the array interfaces ("<f4", "|b1") as a scalar type.
std::optional<abi::Scalar> scalar_from_typestr(const std::string& typestr);

}  // namespace simt::python
