#include "runtime/memory_pool.h"

#include <algorithm>
#include <string>

#include "runtime/device.h"

namespace simt::runtime {

namespace {

size_t round_up(size_t bytes, size_t to) { return (bytes + to - 1) / to * to; }

}  // namespace

std::uintptr_t MemoryPool::take_free(size_t size) {
  auto fit = free_.lower_bound({size, 0});
  if (fit == free_.end()) return 0;
  const uintptr_t address = fit->second;
  free_.erase(fit);
  Block& block = blocks_.at(address);
  // Split: the rest stays free where it is.
  if (block.size - size >= kGranule) {
    Block rest{block.size - size, true, block.segment};
    blocks_.emplace(address + size, rest);
    free_.insert({rest.size, address + size});
    block.size = size;
  }
  block.free = false;
  return address;
}

std::uintptr_t MemoryPool::new_segment(size_t size) {
  const size_t segment_size = size < kSmallSegment ? kSmallSegment : size;
  void* base = device_.allocate(segment_size);  // throws OutOfMemory
  const uint64_t id = next_segment_++;
  const auto address = reinterpret_cast<uintptr_t>(base);
  segments_.emplace(id, Segment{address, segment_size});
  blocks_.emplace(address, Block{segment_size, true, id});
  free_.insert({segment_size, address});
  stats_.held += segment_size;
  stats_.segments = segments_.size();
  return take_free(size);
}

void* MemoryPool::allocate(size_t bytes) {
  const size_t size = round_up(std::max<size_t>(bytes, 1), kGranule);
  std::unique_lock<std::mutex> lock(mutex_);
  uintptr_t address = take_free(size);
  if (address == 0) {
    try {
      address = new_segment(size);
    } catch (const OutOfMemory&) {
      // What the pool holds unused may be what the device lacks. Queued
      // work may still use freed blocks: it finishes first, without the
      // lock (finishing work frees blocks).
      lock.unlock();
      device_.synchronize();
      lock.lock();
      if (release_locked() == 0) throw;
      address = new_segment(size);
    }
  }
  stats_.in_use += size;
  stats_.peak_in_use = std::max(stats_.peak_in_use, stats_.in_use);
  return reinterpret_cast<void*>(address);
}

void MemoryPool::deallocate(void* pointer) noexcept {
  if (pointer == nullptr) return;
  std::lock_guard<std::mutex> lock(mutex_);
  auto it = blocks_.find(reinterpret_cast<uintptr_t>(pointer));
  if (it == blocks_.end() || it->second.free) return;
  stats_.in_use -= it->second.size;
  it->second.free = true;
  // Merge with free neighbours of the same segment.
  auto next = std::next(it);
  if (next != blocks_.end() && next->second.free && next->second.segment == it->second.segment &&
      it->first + it->second.size == next->first) {
    free_.erase({next->second.size, next->first});
    it->second.size += next->second.size;
    blocks_.erase(next);
  }
  if (it != blocks_.begin()) {
    auto previous = std::prev(it);
    if (previous->second.free && previous->second.segment == it->second.segment &&
        previous->first + previous->second.size == it->first) {
      free_.erase({previous->second.size, previous->first});
      previous->second.size += it->second.size;
      blocks_.erase(it);
      it = previous;
    }
  }
  free_.insert({it->second.size, it->first});
}

size_t MemoryPool::release_locked() {
  size_t released = 0;
  for (auto segment = segments_.begin(); segment != segments_.end();) {
    auto block = blocks_.find(segment->second.base);
    const bool whole_and_free =
        block != blocks_.end() && block->second.free && block->second.size == segment->second.size;
    if (!whole_and_free) {
      ++segment;
      continue;
    }
    free_.erase({block->second.size, block->first});
    blocks_.erase(block);
    device_.deallocate(reinterpret_cast<void*>(segment->second.base), segment->second.size);
    released += segment->second.size;
    stats_.held -= segment->second.size;
    segment = segments_.erase(segment);
  }
  stats_.segments = segments_.size();
  return released;
}

size_t MemoryPool::release() {
  device_.synchronize();  // as in allocate(): queued work may use freed blocks
  std::lock_guard<std::mutex> lock(mutex_);
  return release_locked();
}

void MemoryPool::release_all() noexcept {
  std::lock_guard<std::mutex> lock(mutex_);
  for (const auto& [id, segment] : segments_)
    device_.deallocate(reinterpret_cast<void*>(segment.base), segment.size);
  segments_.clear();
  blocks_.clear();
  free_.clear();
  stats_.in_use = 0;
  stats_.held = 0;
  stats_.segments = 0;
}

MemoryPool::Stats MemoryPool::stats() const {
  std::lock_guard<std::mutex> lock(mutex_);
  return stats_;
}

}  // namespace simt::runtime
