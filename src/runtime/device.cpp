#include "runtime/device.h"

namespace simt::runtime {

const char* backend_name(BackendKind kind) {
  switch (kind) {
    case BackendKind::Cpu:
      return "cpu";
    case BackendKind::Cuda:
      return "cuda";
    case BackendKind::OpenCL:
      return "opencl";
  }
  return "?";
}

Buffer::Buffer(std::shared_ptr<Device> device, size_t bytes)
    : device_(std::move(device)), bytes_(bytes) {
  // Zero-byte arrays still get a distinct, valid pointer.
  data_ = device_->allocate(bytes == 0 ? 1 : bytes);
}

Buffer::~Buffer() { device_->deallocate(data_, bytes_ == 0 ? 1 : bytes_); }

void validate_launch(const DeviceInfo& device, const LaunchDims& dims) {
  static constexpr const char* kAxis = "xyz";
  int64_t threads = 1;
  for (int d = 0; d < 3; ++d) {
    if (dims.grid[d] < 1)
      throw std::invalid_argument(std::string("grid dimension ") + kAxis[d] + " is " +
                                  std::to_string(dims.grid[d]) + "; it must be at least 1");
    if (dims.block[d] < 1)
      throw std::invalid_argument(std::string("block dimension ") + kAxis[d] + " is " +
                                  std::to_string(dims.block[d]) + "; it must be at least 1");
    if (dims.grid[d] > device.max_grid_dim[d])
      throw std::invalid_argument(std::string("grid dimension ") + kAxis[d] + " is " +
                                  std::to_string(dims.grid[d]) + ", more than " + device.id +
                                  " allows (" + std::to_string(device.max_grid_dim[d]) + ")");
    if (dims.block[d] > device.max_block_dim[d])
      throw std::invalid_argument(std::string("block dimension ") + kAxis[d] + " is " +
                                  std::to_string(dims.block[d]) + ", more than " + device.id +
                                  " allows (" + std::to_string(device.max_block_dim[d]) + ")");
    threads *= dims.block[d];
  }
  if (threads > device.max_threads_per_block)
    throw std::invalid_argument("a block of " + std::to_string(threads) + " threads is more than " +
                                device.id + " allows (" +
                                std::to_string(device.max_threads_per_block) + ")");
}

}  // namespace simt::runtime
