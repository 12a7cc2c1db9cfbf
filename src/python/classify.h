// Classifying launch arguments: each argument appends its abi::ArgType key
// bytes (abi/arg_type.h) and the values a launch passes (its leaves). The
// launch path (dispatch.cpp) and `simt.typeof` both classify here, so a
// type `typeof`, `compile` or `inspect_*` sees is the type a launch uses.
#pragma once

#include <Python.h>
#include <nanobind/nanobind.h>

#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include "python/arguments.h"
#include "runtime/device.h"

namespace simt::python {

// One scalar or array argument (tuples are flattened into their items).
struct Leaf : ScalarArg {
  bool is_array = false;
  void* data = nullptr;  // arrays
  int ndim = 0;
  size_t dims_at = 0;  // shape then strides (in elements) in Classification::dims
};

// The classification of a launch's arguments. Reused between launches (its
// vectors keep their capacity), so a warm launch allocates nothing.
struct Classification {
  std::string key;  // the arguments' ArgType key bytes, after what the caller put first
  std::vector<Leaf> leaves;
  std::vector<int64_t> dims;
  std::vector<Py_buffer> buffers;  // NumPy buffers held until the launch is queued
  // The buffers of the simt arrays passed, which a launch queued on a CPU
  // stream keeps until it ran; and whether NumPy arrays were passed (the
  // launch then waits, since their memory is not simt's to keep).
  std::vector<std::shared_ptr<const void>> holds;
  bool foreign = false;  // some of them are foreign memory (DLPack, mapped, managed)
  bool host_arrays = false;
  // Some are another library's arrays read directly (CuPy, PyTorch): no Buffer
  // holds them, so a graph cannot.
  bool unheld_arrays = false;
  // A foreign array's producer has writes pending on a stream simt's streams
  // do not wait for (its __cuda_array_interface__ names it): the launch first
  // synchronizes the device, as the protocol allows.
  bool producer_pending = false;

  void clear();
  void release_buffers();
};

// Classifies argument `obj` (named `name` in errors) for a launch on
// `device`; null `device`: for its type alone (`typeof`), without the
// checks that an array can be used on a device. Raises TypeError naming
// the argument for values kernels do not accept.
void classify_argument(const nb::handle& obj, const std::string& name, Classification& c,
                       const runtime::Device* device);

// C, F or any order of an array of these byte strides, as NumPy's flags decide (extents
// of 1 take any stride; an empty array is C).
abi::Layout layout_of(int ndim, const int64_t* shape, const int64_t* strides, int64_t itemsize);

// Specializations are per device: a launch's key starts with the device's
// address (devices live as long as the process).
void append_device_key(std::string& key, const runtime::Device& device);
inline constexpr size_t kDeviceKeyBytes = sizeof(const runtime::Device*);

}  // namespace simt::python
