// Whether OpenCL could offer a GPU, answered from the drivers' registrations
// alone: choosing the default device must not start OpenCL on a host whose
// only OpenCL driver runs on the CPU (platform discovery starts every driver:
// ~85 ms for PoCL's CPU device).
#pragma once

namespace simt::opencl {

// False only when every OpenCL driver that discovery would open is PoCL with
// CPU devices alone ($POCL_DEVICES unset, or naming only PoCL's CPU drivers),
// or when none is registered at all. Anything else (another vendor's driver,
// $SIMT_OPENCL_LIBRARY naming something other than PoCL) answers true.
bool may_have_gpu();

}  // namespace simt::opencl
