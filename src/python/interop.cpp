// Zero-copy exchange of arrays with other libraries: DLPack capsules both
// ways, and foreign pointers (__cuda_array_interface__) in. The policy of the
// Python protocols (streams, devices, copies) lives in python/simt/_interop.py;
// this file builds and reads the C structures and owns the lifetimes.
//
// An imported array views memory simt did not allocate: its runtime::Buffer
// is foreign, and instead of going back to the pool it calls a release
// function when the last simt array viewing it goes. Buffers can be dropped on
// any thread, with or without the GIL (a kernel launch releases the GIL while
// it holds the arguments), so every release that touches Python takes the GIL
// itself (release_with_gil).
#include <nanobind/stl/optional.h>
#include <nanobind/stl/string.h>
#include <nanobind/stl/vector.h>

#include <algorithm>
#include <cstdint>
#include <functional>
#include <memory>
#include <optional>
#include <string>
#include <type_traits>
#include <vector>

#include "python/bindings.h"
#include "python/dlpack.h"
#include "python/foreign_arrays.h"

namespace simt::python {

namespace {

using sema::Scalar;

constexpr const char* kCapsule = "dltensor";
constexpr const char* kCapsuleVersioned = "dltensor_versioned";
constexpr const char* kCapsuleUsed = "used_dltensor";
constexpr const char* kCapsuleVersionedUsed = "used_dltensor_versioned";

// A release that drops one reference to a Python object (the producer of a
// __cuda_array_interface__, which must outlive the view).
runtime::Buffer::Release keep_alive(nb::handle owner) {
  PyObject* o = owner.ptr();
  Py_INCREF(o);
  return [o] { release_with_gil([o] { Py_DECREF(o); }); };
}

std::optional<Scalar> scalar_from_dlpack(const dlpack::DataType& t) {
  if (t.lanes != 1) return std::nullopt;
  switch (t.code) {
    case dlpack::kDLBool:
      return t.bits == 8 ? std::optional(Scalar::Bool) : std::nullopt;
    case dlpack::kDLInt:
      return t.bits == 8    ? Scalar::Int8
             : t.bits == 16 ? Scalar::Int16
             : t.bits == 32 ? Scalar::Int32
             : t.bits == 64 ? std::optional(Scalar::Int64)
                            : std::nullopt;
    case dlpack::kDLUInt:
      return t.bits == 8    ? Scalar::UInt8
             : t.bits == 16 ? Scalar::UInt16
             : t.bits == 32 ? Scalar::UInt32
             : t.bits == 64 ? std::optional(Scalar::UInt64)
                            : std::nullopt;
    case dlpack::kDLFloat:
      return t.bits == 16   ? Scalar::Float16
             : t.bits == 32 ? Scalar::Float32
             : t.bits == 64 ? std::optional(Scalar::Float64)
                            : std::nullopt;
    case dlpack::kDLComplex:
      return t.bits == 64    ? Scalar::Complex64
             : t.bits == 128 ? std::optional(Scalar::Complex128)
                             : std::nullopt;
    default:
      return std::nullopt;
  }
}

dlpack::DataType dlpack_type(Scalar s) {
  dlpack::DataType t;
  t.bits = static_cast<uint8_t>(sema::bit_width(s));
  if (sema::is_bool(s))
    t.code = dlpack::kDLBool;
  else if (sema::is_signed(s))
    t.code = dlpack::kDLInt;
  else if (sema::is_unsigned(s))
    t.code = dlpack::kDLUInt;
  else if (sema::is_complex(s))
    t.code = dlpack::kDLComplex;
  else
    t.code = dlpack::kDLFloat;
  return t;
}

std::string describe_dlpack_type(const dlpack::DataType& t) {
  static constexpr const char* kCodes[] = {"int",    "uint",    "float", "opaque handle",
                                           "bfloat", "complex", "bool"};
  std::string code = t.code < 7 ? kCodes[t.code] : "type code " + std::to_string(t.code);
  std::string text = code + std::to_string(t.bits);
  if (t.lanes != 1) text += " x" + std::to_string(t.lanes) + " lanes";
  return text;
}

[[noreturn]] void fail(const std::string& what, const std::string& message) {
  throw nb::value_error((what + ": " + message).c_str());
}

// A DeviceArray over foreign memory at `pointer` with `byte_strides`; the
// buffer spans exactly the bytes the array touches (negative strides reach
// below `pointer`). Checks the geometry; `what` names the source in errors.
DeviceArray foreign_array(const std::shared_ptr<runtime::Device>& device, char* pointer,
                          Scalar dtype, std::vector<int64_t> shape,
                          std::vector<int64_t> byte_strides, bool readonly,
                          runtime::Buffer::Release release, const std::string& what) {
  if (shape.size() > 32) fail(what, "arrays have at most 32 dimensions");
  const int64_t itemsize = sema::bit_width(dtype) / 8;
  // Kernels index in elements, and the backends' loads assume each element
  // is aligned as its type (a complex number as its parts).
  const int64_t alignment = sema::is_complex(dtype) ? itemsize / 2 : itemsize;
  int64_t count = 1;
  for (size_t k = 0; k < shape.size(); ++k) {
    if (shape[k] < 0)
      fail(what,
           "dimension " + std::to_string(k) + " is negative (" + std::to_string(shape[k]) + ")");
    if (__builtin_mul_overflow(count, shape[k], &count)) fail(what, "the array is too big");
  }
  int64_t low = 0, high = 0;
  if (count > 0) {
    for (size_t k = 0; k < shape.size(); ++k) {
      if (byte_strides[k] % itemsize != 0)
        fail(what, "stride " + std::to_string(byte_strides[k]) + " of dimension " +
                       std::to_string(k) + " is not a multiple of the item size (" +
                       std::to_string(itemsize) + " bytes)");
      int64_t reach = 0;
      if (__builtin_mul_overflow(shape[k] - 1, byte_strides[k], &reach) ||
          __builtin_add_overflow(reach < 0 ? low : high, reach, reach < 0 ? &low : &high))
        fail(what, "the strides reach beyond the address space");
    }
    if (__builtin_add_overflow(high, itemsize, &high))
      fail(what, "the strides reach beyond the address space");
    if (pointer == nullptr) fail(what, "the data pointer is null but the array has elements");
    if (reinterpret_cast<uintptr_t>(pointer) % static_cast<uintptr_t>(alignment) != 0)
      fail(what, "the data pointer is not aligned to " + std::to_string(alignment) + " bytes, as " +
                     sema::scalar_name(dtype) + " elements must be");
  }
  DeviceArray a;
  a.dtype = dtype;
  a.shape = std::move(shape);
  a.strides = std::move(byte_strides);
  a.readonly = readonly;
  a.offset = -low;
  a.buffer = std::make_shared<runtime::Buffer>(device, pointer + low,
                                               static_cast<size_t>(high - low), std::move(release));
  return a;
}

// Whether DLPack memory of `device_type` can be used by `device` in place.
bool dlpack_device_matches(const dlpack::Device& d, const runtime::Device& device) {
  switch (d.device_type) {
    case dlpack::kDLCPU:
    case dlpack::kDLCUDAHost:
      return device.host_accessible();
    case dlpack::kDLCUDA:
    case dlpack::kDLCUDAManaged:
      return device.info().backend == runtime::BackendKind::Cuda &&
             device.info().index == d.device_id;
    default:
      return false;
  }
}

DeviceArray import_dlpack(const nb::capsule& capsule, const PyDevice& target) {
  PyObject* cap = capsule.ptr();
  const auto& device = target.device;
  const std::string what = "from_dlpack onto " + device->info().id;
  if (device->info().backend == runtime::BackendKind::OpenCL)
    fail(what,
         "OpenCL devices cannot view another library's memory (an OpenCL buffer is not a "
         "pointer); copy the data with simt.to_device");
  const bool versioned = PyCapsule_IsValid(cap, kCapsuleVersioned) != 0;
  if (!versioned && PyCapsule_IsValid(cap, kCapsule) == 0)
    fail(what, "not a DLPack capsule, or one already consumed (a capsule can be imported once)");
  dlpack::ManagedTensor* legacy = nullptr;
  dlpack::ManagedTensorVersioned* managed = nullptr;
  const dlpack::Tensor* t = nullptr;
  uint64_t flags = 0;
  if (versioned) {
    managed =
        static_cast<dlpack::ManagedTensorVersioned*>(PyCapsule_GetPointer(cap, kCapsuleVersioned));
    if (managed == nullptr) throw nb::python_error();
    // A newer major version may lay the structure out differently: the
    // capsule stays unconsumed, so its own destructor frees it.
    if (managed->version.major != dlpack::kMajorVersion)
      fail(what, "the producer gave DLPack " + std::to_string(managed->version.major) + "." +
                     std::to_string(managed->version.minor) + "; simt reads DLPack 1.x");
    t = &managed->dl_tensor;
    flags = managed->flags;
  } else {
    legacy = static_cast<dlpack::ManagedTensor*>(PyCapsule_GetPointer(cap, kCapsule));
    if (legacy == nullptr) throw nb::python_error();
    t = &legacy->dl_tensor;
  }
  if (!dlpack_device_matches(t->device, *device))
    fail(what, "the data is in DLPack device (" + std::to_string(t->device.device_type) + ", " +
                   std::to_string(t->device.device_id) + "), memory " + device->info().id +
                   " cannot use in place");
  auto dtype = scalar_from_dlpack(t->dtype);
  if (!dtype) fail(what, "element type " + describe_dlpack_type(t->dtype) + " is not a simt dtype");
  if (t->ndim < 0 || t->ndim > 32)
    fail(what, "ndim " + std::to_string(t->ndim) + " (simt arrays have 0 to 32 dimensions)");
  const int64_t itemsize = sema::bit_width(*dtype) / 8;
  std::vector<int64_t> shape(t->shape, t->shape + t->ndim), strides(static_cast<size_t>(t->ndim));
  if (t->ndim > 0 && t->shape == nullptr) fail(what, "the shape is null");
  if (t->strides == nullptr) {
    int64_t stride = itemsize;
    for (size_t k = shape.size(); k-- > 0;) {
      strides[k] = stride;
      stride *= std::max<int64_t>(shape[k], 1);
    }
  } else {
    for (size_t k = 0; k < strides.size(); ++k)
      if (__builtin_mul_overflow(t->strides[k], itemsize, &strides[k]))
        fail(what, "stride " + std::to_string(t->strides[k]) + " is too big");
  }
  char* pointer = static_cast<char*>(t->data) + t->byte_offset;
  // The consumer now owns the managed tensor: its deleter runs when the last
  // view goes (with the GIL: producers' deleters drop Python references).
  runtime::Buffer::Release release;
  if (versioned) {
    release = [managed] {
      if (managed->deleter) release_with_gil([managed] { managed->deleter(managed); });
    };
  } else {
    release = [legacy] {
      if (legacy->deleter) release_with_gil([legacy] { legacy->deleter(legacy); });
    };
  }
  // foreign_array checks before it makes the buffer: a rejected import drops
  // the release unrun and leaves the capsule, unconsumed, to free the tensor.
  DeviceArray a = foreign_array(device, pointer, *dtype, std::move(shape), std::move(strides),
                                (flags & dlpack::kFlagReadOnly) != 0, std::move(release), what);
  PyCapsule_SetName(cap, versioned ? kCapsuleVersionedUsed : kCapsuleUsed);
  return a;
}

// What a capsule simt exports holds: the array (keeping its buffer alive) and
// the shape and strides the DLTensor points into.
template <typename Managed>
struct Export {
  DeviceArray array;
  std::vector<int64_t> shape, strides;
  Managed managed;

  static void deleter(Managed* self) { delete static_cast<Export*>(self->manager_ctx); }
};

// A capsule destructor as the DLPack specification prescribes: a capsule
// nobody consumed still owns the tensor, so its deleter runs here.
template <typename Managed>
void capsule_destructor(PyObject* capsule) noexcept {
  const char* name = std::is_same_v<Managed, dlpack::ManagedTensor> ? kCapsule : kCapsuleVersioned;
  if (PyCapsule_IsValid(capsule, name) == 0) return;  // consumed ("used_...")
    // The destructor may run while an exception is being raised: keep it.
#if PY_VERSION_HEX >= 0x030C0000
  PyObject* raised = PyErr_GetRaisedException();
#else
  PyObject *type, *value, *traceback;
  PyErr_Fetch(&type, &value, &traceback);
#endif
  auto* managed = static_cast<Managed*>(PyCapsule_GetPointer(capsule, name));
  if (managed == nullptr)
    PyErr_WriteUnraisable(capsule);
  else if (managed->deleter)
    managed->deleter(managed);
#if PY_VERSION_HEX >= 0x030C0000
  PyErr_SetRaisedException(raised);
#else
  PyErr_Restore(type, value, traceback);
#endif
}

template <typename Managed>
nb::object make_capsule(const DeviceArray& a, const dlpack::Device& device, uint64_t flags) {
  if (a.record)
    throw nb::buffer_error(
        "DLPack has no record (structured) dtypes: this array cannot be "
        "exported; copy it to the host with .get()");
  auto owned = std::make_unique<Export<Managed>>();
  Export<Managed>& e = *owned;
  e.array = a;
  e.shape = a.shape;
  e.strides.resize(a.strides.size());
  for (size_t k = 0; k < a.strides.size(); ++k) {
    if (a.strides[k] % a.itemsize() != 0)
      throw nb::buffer_error(
          "the array's strides are not whole elements, which DLPack "
          "cannot express");
    e.strides[k] = a.strides[k] / a.itemsize();
  }
  dlpack::Tensor& t = e.managed.dl_tensor;
  t.data = a.data();
  t.device = device;
  t.ndim = static_cast<int32_t>(a.shape.size());
  t.dtype = dlpack_type(a.dtype);
  t.shape = e.shape.data();
  t.strides = e.strides.data();
  t.byte_offset = 0;
  e.managed.manager_ctx = &e;
  e.managed.deleter = &Export<Managed>::deleter;
  if constexpr (std::is_same_v<Managed, dlpack::ManagedTensorVersioned>) {
    e.managed.version = {dlpack::kMajorVersion, dlpack::kMinorVersion};
    e.managed.flags = flags;
  }
  const char* name = std::is_same_v<Managed, dlpack::ManagedTensor> ? kCapsule : kCapsuleVersioned;
  PyObject* capsule = PyCapsule_New(&e.managed, name, &capsule_destructor<Managed>);
  if (capsule == nullptr) throw nb::python_error();
  owned.release();  // the capsule (or its consumer) owns it now
  return nb::steal(capsule);
}

nb::object export_dlpack(const DeviceArray& a, bool versioned, bool copied) {
  const runtime::Device& device = *a.buffer->device();
  dlpack::Device d;
  d.device_id = device.info().index;
  if (device.info().backend == runtime::BackendKind::Cuda)
    d.device_type = dlpack::kDLCUDA;
  else if (device.host_accessible())
    d.device_type = dlpack::kDLCPU, d.device_id = 0;
  else
    throw nb::buffer_error(
        ("an array on " + device.info().id +
         " cannot be exported through DLPack: OpenCL memory has no DLPack device pointer "
         "(an OpenCL buffer is not an address); copy it to the host with .get()")
            .c_str());
  if (!versioned) {
    if (a.readonly)
      throw nb::buffer_error(
          "a read-only array can only be exported as DLPack 1.0 or "
          "later (max_version=(1, 0)), which can mark it read-only");
    return make_capsule<dlpack::ManagedTensor>(a, d, 0);
  }
  uint64_t flags = (a.readonly ? dlpack::kFlagReadOnly : 0) | (copied ? dlpack::kFlagIsCopied : 0);
  return make_capsule<dlpack::ManagedTensorVersioned>(a, d, flags);
}

// A __cuda_array_interface__ (or any raw pointer) array: `owner` stays alive
// while simt views its memory.
DeviceArray import_pointer(uintptr_t pointer, const std::vector<int64_t>& shape,
                           const std::vector<int64_t>& byte_strides, const std::string& dtype,
                           bool readonly, const PyDevice& target, nb::handle owner,
                           const std::string& what) {
  const auto& device = target.device;
  if (device->info().backend == runtime::BackendKind::OpenCL)
    fail(what,
         "OpenCL devices cannot view another library's memory (an OpenCL buffer is not a "
         "pointer); copy the data with simt.to_device");
  if (shape.size() != byte_strides.size()) fail(what, "shape and strides differ in length");
  auto scalar = sema::scalar_from_name(dtype);
  if (!scalar) fail(what, "element type " + dtype + " is not a simt dtype");
  return foreign_array(device, reinterpret_cast<char*>(pointer), *scalar, shape, byte_strides,
                       readonly, keep_alive(owner), what);
}

bool holds_pointer(const PyDevice& device, uintptr_t pointer) {
  nb::gil_scoped_release release;
  return device.device->holds_pointer(reinterpret_cast<const void*>(pointer));
}

}  // namespace

// Runs `f` holding the GIL, from any thread. Once the interpreter is
// finalizing, a thread that does not hold the GIL cannot take it safely (it
// would hang or be terminated), so the release is skipped there: the owner's
// memory goes with the process.
void release_with_gil(const std::function<void()>& f) noexcept {
  if (!Py_IsInitialized()) return;
  if (PyGILState_Check()) {
    f();
    return;
  }
#if PY_VERSION_HEX >= 0x030D0000
  if (Py_IsFinalizing()) return;
#else
  if (_Py_IsFinalizing()) return;
#endif
  PyGILState_STATE state = PyGILState_Ensure();
  f();
  PyGILState_Release(state);
}

// simt.asarray's reading of a __cuda_array_interface__ (the reader kernel
// arguments use): (pointer, shape, byte strides, dtype name, read-only, the
// stream the producer's writes are pending on or 0). `what` names the
// interface in errors.
nb::tuple read_interface(nb::handle cai, const std::string& what) {
  ForeignArray a;
  read_cuda_array_interface(cai.ptr(), a, [&](FaultKind kind, const std::string& message) {
    const std::string text = what + " " + message;
    if (kind == FaultKind::Type) throw nb::type_error(text.c_str());
    if (kind == FaultKind::Unsupported) {
      PyErr_SetString(PyExc_NotImplementedError, text.c_str());
      throw nb::python_error();
    }
    throw nb::value_error(text.c_str());
  });
  if (a.ndim > abi::kMaxDims)
    throw nb::value_error((what + " has " + std::to_string(a.ndim) +
                           " dimensions; simt arrays have at most " + std::to_string(abi::kMaxDims))
                              .c_str());
  const auto n = static_cast<size_t>(a.ndim);
  std::vector<int64_t> shape(a.shape.begin(), a.shape.begin() + n);
  std::vector<int64_t> strides(a.byte_strides.begin(), a.byte_strides.begin() + n);
  return nb::make_tuple(reinterpret_cast<uintptr_t>(a.data), nb::tuple(nb::cast(shape)), strides,
                        abi::scalar_name(a.scalar), a.readonly, a.pending_stream);
}

void bind_interop(nb::module_& m) {
  m.def("export_dlpack", &export_dlpack, nb::arg("array"), nb::arg("versioned"),
        nb::arg("copied") = false,
        "A DLPack capsule viewing the array ('dltensor_versioned' when versioned, else "
        "'dltensor'); it keeps the array's memory alive until its consumer lets go.");
  m.def("import_dlpack", &import_dlpack, nb::arg("capsule"), nb::arg("device"),
        "A DeviceArray on `device` viewing a DLPack capsule's memory; consumes the capsule.");
  m.def("import_pointer", &import_pointer, nb::arg("pointer"), nb::arg("shape"), nb::arg("strides"),
        nb::arg("dtype"), nb::arg("readonly"), nb::arg("device"), nb::arg("owner"), nb::arg("what"),
        "A DeviceArray viewing foreign memory at `pointer` (byte strides), keeping `owner` alive.");
  m.def("read_cuda_array_interface", &read_interface, nb::arg("cai"), nb::arg("what"));
  m.def("device_holds_pointer", &holds_pointer, nb::arg("device"), nb::arg("pointer"));
  m.def("buffer_is_foreign", [](const DeviceArray& a) { return a.buffer->foreign(); });
}

}  // namespace simt::python
