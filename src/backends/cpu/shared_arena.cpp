#include "backends/cpu/shared_arena.h"

#include <sys/mman.h>
#include <unistd.h>

#include <cstdint>

namespace simt::cpu {

namespace {

size_t round_up(size_t n, size_t to) { return (n + to - 1) / to * to; }

class Arena {
 public:
  Arena() {
    const size_t page = static_cast<size_t>(sysconf(_SC_PAGESIZE));
    data_bytes_ = round_up(kSharedArenaBytes, page);
    total_ = 2 * kSharedGuardBytes + data_bytes_;
    // All of it inaccessible first, then the data pages opened: the guard
    // zones are never readable, even for a moment.
    void* memory =
        mmap(nullptr, total_, PROT_NONE, MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE, -1, 0);
    if (memory == MAP_FAILED) return;
    auto* base = static_cast<unsigned char*>(memory);
    if (mprotect(base + kSharedGuardBytes, data_bytes_, PROT_READ | PROT_WRITE) != 0) {
      munmap(memory, total_);
      return;
    }
    base_ = base;
  }
  Arena(const Arena&) = delete;
  Arena& operator=(const Arena&) = delete;
  ~Arena() {
    if (base_) munmap(base_, total_);
  }

  // The first byte past the data pages, where the upper guard begins; null
  // when mapping failed.
  unsigned char* end() const { return base_ ? base_ + kSharedGuardBytes + data_bytes_ : nullptr; }

 private:
  unsigned char* base_ = nullptr;
  size_t data_bytes_ = 0;
  size_t total_ = 0;
};

}  // namespace

BlockShared shared_arena(int64_t static_bytes, size_t dynamic_bytes) {
  thread_local Arena arena;
  unsigned char* end = arena.end();
  if (!end || static_cast<uint64_t>(static_bytes) + dynamic_bytes + 128 > kSharedArenaBytes)
    return {};
  // The dynamic bytes end at the guard, give or take the rounding down to
  // 16-byte alignment (any element's); the static arrays start 64-byte
  // aligned, as codegen aligns their offsets.
  const auto at = reinterpret_cast<uintptr_t>(end) - dynamic_bytes;
  auto* dynamic = reinterpret_cast<unsigned char*>(at & ~uintptr_t{15});
  auto* fixed = reinterpret_cast<unsigned char*>((at - static_cast<uintptr_t>(static_bytes)) &
                                                 ~uintptr_t{63});
  return {fixed, dynamic};
}

}  // namespace simt::cpu
