// The caching allocator every device's arrays come from (the model of CuPy's
// and PyTorch's pools): freed blocks are kept and reused instead of going
// back to the driver, whose allocations cost tens of microseconds and may
// synchronize. A device allocation (a segment) serves several smaller
// requests, split off it, and its free neighbours merge again when blocks
// are freed. Held memory goes back to the device on release(), and when an
// allocation fails (then the allocation is retried once).
//
// A freed block is reusable at once: the default stream waits for every
// other stream (legacy semantics, stream.h), so work that reuses a block on
// the default stream, or on the stream that last used it, comes after that
// use. Unlike CuPy's pool, blocks are not kept per stream: an array freed
// while a kernel on user stream A may still use it, then reused by work on
// user stream B, races; order A and B with an event first. (The CPU's
// queued work holds its buffers, so there it cannot happen.) Held memory
// goes back to the device only after the device's queued work finished.
#pragma once

#include <cstddef>
#include <cstdint>
#include <map>
#include <mutex>
#include <set>
#include <utility>

namespace simt::runtime {

class Device;

class MemoryPool {
 public:
  struct Stats {
    size_t in_use = 0;       // bytes of live blocks (as rounded)
    size_t held = 0;         // bytes the pool holds from the device (in use and free)
    size_t peak_in_use = 0;  // most bytes in use at once
    size_t segments = 0;     // device allocations held
  };

  // Requests are rounded up to this; blocks start on its multiples.
  static constexpr size_t kGranule = 512;
  // Requests below this share segments of this size; larger ones get a
  // segment of their own size (split later for smaller requests).
  static constexpr size_t kSmallSegment = size_t{2} << 20;

  explicit MemoryPool(Device& device) : device_(device) {}
  // The pool cannot free here: it is a member of its device's base class, so
  // the backend that frees memory is gone by then. Each backend's destructor
  // calls Device::release_pool() (release_all) first.
  ~MemoryPool() = default;
  MemoryPool(const MemoryPool&) = delete;
  MemoryPool& operator=(const MemoryPool&) = delete;

  // At least `bytes` (0 counts as 1) on the device; throws OutOfMemory after
  // releasing what the pool holds and retrying.
  void* allocate(size_t bytes);
  // A pointer allocate() returned. Unknown pointers are ignored.
  void deallocate(void* pointer) noexcept;
  // Gives every entirely free segment back to the device; returns the bytes
  // given back.
  size_t release();
  // Gives every segment back, blocks in use or not: only for the device's
  // destructor, when no array (each holds its device) and no queued work
  // can use them.
  void release_all() noexcept;
  Stats stats() const;

 private:
  struct Block {
    size_t size = 0;
    bool free = false;
    uint64_t segment = 0;
  };
  struct Segment {
    uintptr_t base = 0;
    size_t size = 0;
  };

  std::uintptr_t take_free(size_t size);  // 0: no free block fits
  std::uintptr_t new_segment(size_t size);
  size_t release_locked();

  Device& device_;
  mutable std::mutex mutex_;
  std::map<uintptr_t, Block> blocks_;            // every block, by address
  std::set<std::pair<size_t, uintptr_t>> free_;  // free blocks, by size (best fit)
  std::map<uint64_t, Segment> segments_;
  uint64_t next_segment_ = 1;
  Stats stats_;
};

}  // namespace simt::runtime
