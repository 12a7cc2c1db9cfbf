// The DLPack C ABI (https://dmlc.github.io/dlpack/latest/c_api.html), declared
// here as simt declares every foreign API it uses: only what simt needs, with
// the layout and values the specification fixes (version 1.x; the unversioned
// DLManagedTensor of 0.x is the same DLTensor with a shorter header).
#pragma once

#include <cstdint>

namespace simt::python::dlpack {

struct Version {
  uint32_t major = 0;
  uint32_t minor = 0;
};

// The version simt produces; it consumes any 1.x (and the unversioned 0.x).
constexpr uint32_t kMajorVersion = 1;
constexpr uint32_t kMinorVersion = 0;

// DLDeviceType values (an enum of int32 size in C).
enum DeviceType : int32_t {
  kDLCPU = 1,
  kDLCUDA = 2,
  kDLCUDAHost = 3,  // pinned host memory: host-accessible
  kDLOpenCL = 4,
  kDLCUDAManaged = 13,  // unified memory: usable by the device
};

struct Device {
  int32_t device_type = 0;  // DeviceType
  int32_t device_id = 0;
};

// DLDataTypeCode values.
enum TypeCode : uint8_t {
  kDLInt = 0,
  kDLUInt = 1,
  kDLFloat = 2,
  kDLOpaqueHandle = 3,
  kDLBfloat = 4,
  kDLComplex = 5,
  kDLBool = 6,
};

struct DataType {
  uint8_t code = 0;
  uint8_t bits = 0;
  uint16_t lanes = 1;
};

struct Tensor {
  void* data = nullptr;
  Device device;
  int32_t ndim = 0;
  DataType dtype;
  int64_t* shape = nullptr;
  int64_t* strides = nullptr;  // in elements; null means C-contiguous
  uint64_t byte_offset = 0;
};

// DLManagedTensor (0.x, capsule name "dltensor").
struct ManagedTensor {
  Tensor dl_tensor;
  void* manager_ctx = nullptr;
  void (*deleter)(ManagedTensor* self) = nullptr;
};

constexpr uint64_t kFlagReadOnly = uint64_t{1} << 0;
constexpr uint64_t kFlagIsCopied = uint64_t{1} << 1;

// DLManagedTensorVersioned (1.x, capsule name "dltensor_versioned").
struct ManagedTensorVersioned {
  Version version;
  void* manager_ctx = nullptr;
  void (*deleter)(ManagedTensorVersioned* self) = nullptr;
  uint64_t flags = 0;
  Tensor dl_tensor;
};

}  // namespace simt::python::dlpack
