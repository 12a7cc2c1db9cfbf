// Fiber mode: the CPU's way of running a block whose barriers or warp
// operations the region lowering (codegen/emit_regions.cpp) cannot place.
// Each thread of the block is a fiber (its own stack, switched in user
// space by fiber_switch.h) on the OS thread running the block; a barrier or
// warp operation suspends the calling fiber. The scheduler runs the block
// warp by warp:
//
// - a thread runs until it waits at a block barrier or a warp operation, or
//   returns (exits);
// - warp operations complete once every lane of their warp that has not
//   exited waits at a warp operation or a block barrier (lanes waiting at a
//   block barrier count as inactive, as exited ones do). The lanes waiting
//   at one call site complete together, a site whose masks name only lanes
//   waiting there (or inactive) first, the lowest lane's first among those;
//   the others wait for the next round;
// - a block barrier (any syncthreads* call, wherever it is: as on Volta and
//   later GPUs) completes once every thread that has not exited waits at
//   one; syncthreads_count/and/or reduce over those threads.
//
// These rules cannot deadlock: when every thread waits, each warp with a
// lane at a warp operation completes it (its other lanes are at the block
// barrier or exited), and when only block-barrier waiters remain, the
// barrier completes. A program that would hang on a GPU (lanes at a warp
// operation while others of the warp wait at a block barrier, or at another
// warp operation its mask does not allow) completes the warp operation with
// the lanes that reached it.
#pragma once

#include "abi/cpu_entry.h"

namespace simt::cpu {

// What the block context hands to kernels in fiber mode (CpuBlockContext::fibers).
const abi::CpuFiberApi* fiber_api();

}  // namespace simt::cpu
