// Which devices exist: each backend's devices, discovered once per process, the
// first time something asks for that backend (never at import): a program
// pays only for the backends it uses.
#pragma once

#include <memory>
#include <string>
#include <string_view>
#include <vector>

#include "runtime/device.h"

namespace simt::backends {

struct BackendStatus {
  std::string name;  // "cpu", "cuda", "opencl"
  bool available = false;
  std::string detail;  // versions when available, the reason when not
};

// CUDA devices, then OpenCL devices (GPUs or not), the native CPU last: every
// backend starts.
const std::vector<std::shared_ptr<runtime::Device>>& devices();
const std::vector<BackendStatus>& backend_status();

// One backend's devices ("cuda", "opencl", "cpu"), starting only it; empty
// for an unknown name.
std::vector<std::shared_ptr<runtime::Device>> backend_devices(std::string_view name);

// The backends discovered so far ("cuda", "opencl", "cpu"), in that order.
std::vector<std::string> started_backends();

// Waits for the work queued on every device, ignoring failures: called when
// the interpreter exits, because a process that ends while a driver thread
// still compiles or runs a kernel (PoCL compiles at the first enqueue) can
// crash as the program objects are released under that thread.
void finish_queued_work() noexcept;

// The device with this id ("cpu", "cuda:0", "opencl:1"; "cuda" means
// "cuda:0"); nullptr when there is none. Starts only the backend it names.
std::shared_ptr<runtime::Device> find_device(std::string_view id);

// $SIMT_DEVICE when set, else the first GPU, else the native CPU, starting
// backends in that order only as far as needed (docs/architecture.md). Throws
// runtime::DeviceError naming the variable when $SIMT_DEVICE names no device.
std::shared_ptr<runtime::Device> default_device();

}  // namespace simt::backends
