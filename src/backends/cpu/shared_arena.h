// A block's shared memory on the CPU device: the kernel's static shared
// arrays, then the launch's dynamic shared bytes, in memory of their own.
// Each thread that runs blocks maps one arena the first time, and reuses it
// for every block and launch after: an inaccessible guard zone, the data
// pages, another guard zone. A block's memory ends where the upper guard
// begins, so an index past the dynamic array (or one far past a static
// array) faults into the DeviceError path (fault_guard.h) rather than
// writing over the worker's stack or the heap; an overrun of a static array
// into the next stays inside the block's own shared memory, as on a GPU.
// Guard zones cost address space only (PROT_NONE, MAP_NORESERVE).
#pragma once

#include <cstddef>
#include <cstdint>

namespace simt::cpu {

// The data pages hold more than the device's limit (48 KiB,
// DeviceInfo::max_shared_bytes, checked at the launch) with the static
// arrays' 64-byte alignment; the guard zones bound an overrun of either end by
// 64 MiB (beyond that an index lands wherever it points, as one far past a
// global array does).
inline constexpr size_t kSharedArenaBytes = 128 * 1024;
inline constexpr size_t kSharedGuardBytes = size_t{64} << 20;

struct BlockShared {
  void* static_shared = nullptr;   // `static_bytes`, 64-byte aligned, then
  void* dynamic_shared = nullptr;  // `dynamic_bytes`, 16-byte aligned, ending at the upper guard
};

// This thread's arena laid out for a launch (nothing is zeroed); null
// pointers when the arena cannot be mapped, or `static_bytes` and
// `dynamic_bytes` (with 128 bytes of alignment) do not fit kSharedArenaBytes.
BlockShared shared_arena(int64_t static_bytes, size_t dynamic_bytes);

}  // namespace simt::cpu
