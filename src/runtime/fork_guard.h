// GPU drivers do not survive fork(): the child of a process that opened an OpenCL or CUDA
// device inherits handles whose driver threads are gone, and a wait on them never ends
// (PoCL's queues hang). A backend notes when it opens such a device; in a forked child
// every use of one then raises DeviceError naming multiprocessing's spawn start method
// (as CuPy does for CUDA), and releasing the inherited handles is skipped. The cpu device
// survives fork and is not guarded.
#pragma once

#include <string>

namespace simt::runtime {

// Called by a GPU backend as it opens a device: a child forked from now on inherits it.
void note_gpu_device_opened();

// Whether this process is a fork's child that inherited opened GPU devices.
bool inherited_gpu_devices();

// Throws DeviceError naming `device_id`, fork() and the spawn start method, in such a child.
void require_not_forked(const std::string& device_id);

}  // namespace simt::runtime
