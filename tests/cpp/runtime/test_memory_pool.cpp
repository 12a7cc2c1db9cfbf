// runtime/memory_pool.h: reuse, splitting and merging, release, accounting,
// and the retry after an out-of-memory, on a fake device of host memory with
// a budget.

#include <gtest/gtest.h>

#include <cstdint>
#include <cstdlib>
#include <cstring>
#include <map>
#include <memory>
#include <random>
#include <stdexcept>
#include <vector>

#include "runtime/device.h"
#include "runtime/memory_pool.h"

namespace {

using simt::runtime::MemoryPool;
using simt::runtime::OutOfMemory;

// Host memory with a byte budget; counts the device calls the pool makes.
class BudgetDevice : public simt::runtime::Device {
 public:
  explicit BudgetDevice(size_t budget, int* live_allocations = nullptr)
      : Device(info()), budget_(budget), live_(live_allocations) {}
  // As every backend does: the pool's segments go while deallocate() works.
  ~BudgetDevice() override { release_pool(); }

  simt::abi::Language language() const override { return simt::abi::Language::Cpp; }
  bool host_accessible() const override { return true; }
  void* allocate(size_t bytes) override {
    if (used_ + bytes > budget_) throw OutOfMemory("fake device: out of memory");
    void* p = std::aligned_alloc(512, (bytes + 511) / 512 * 512);
    used_ += bytes;
    ++allocations;
    sizes_[p] = bytes;
    if (live_) ++*live_;
    return p;
  }
  void deallocate(void* pointer, size_t bytes) noexcept override {
    EXPECT_EQ(sizes_.at(pointer), bytes);
    sizes_.erase(pointer);
    used_ -= bytes;
    ++deallocations;
    if (live_) --*live_;
    std::free(pointer);
  }
  void queue_copy_from_host(void*, const void*, size_t, simt::runtime::Stream&,
                            simt::runtime::KeepAlive) override {
    unused();
  }
  void queue_copy_to_host(void*, const void*, size_t, simt::runtime::Stream&,
                          simt::runtime::KeepAlive) override {
    unused();
  }
  void queue_copy_on_device(void*, const void*, size_t, simt::runtime::Stream&,
                            simt::runtime::KeepAlive) override {
    unused();
  }
  void fill_bytes(void*, const void*, size_t, size_t) override { unused(); }
  std::unique_ptr<simt::runtime::CompiledKernel> build(
      const simt::abi::GeneratedKernel&, const simt::runtime::CompileOptions&) override {
    unused();
    return nullptr;
  }
  void queue_launch(const simt::runtime::CompiledKernel&, const simt::runtime::LaunchDims&,
                    void* const*, simt::runtime::Stream&, simt::runtime::KeepAlive) override {
    unused();
  }
  void synchronize() override {}
  simt::runtime::Stream& default_stream() override { unused(); }
  std::shared_ptr<simt::runtime::Stream> create_stream() override { unused(); }
  std::shared_ptr<simt::runtime::Event> create_event() override { unused(); }
  std::shared_ptr<simt::runtime::HostAllocation> allocate_host(
      size_t, simt::runtime::HostMemoryKind) override {
    unused();
  }
  std::shared_ptr<simt::runtime::HostAllocation> register_host(
      void*, size_t, simt::runtime::HostMemoryKind) override {
    unused();
  }

  size_t used() const { return used_; }
  int allocations = 0;
  int deallocations = 0;

 private:
  static simt::runtime::DeviceInfo info() {
    simt::runtime::DeviceInfo i;
    i.id = "fake";
    return i;
  }
  [[noreturn]] static void unused() { throw std::logic_error("not used by the pool"); }

  size_t budget_;
  int* live_;
  size_t used_ = 0;
  std::map<void*, size_t> sizes_;
};

constexpr size_t kMiB = size_t{1} << 20;

TEST(MemoryPool, FreedBlocksAreReusedWithoutDeviceCalls) {
  BudgetDevice device(64 * kMiB);
  MemoryPool& pool = device.pool();
  void* a = pool.allocate(1000);
  EXPECT_EQ(device.allocations, 1);  // one small segment
  pool.deallocate(a);
  void* b = pool.allocate(1000);
  EXPECT_EQ(b, a);
  EXPECT_EQ(device.allocations, 1);
  // Small requests share the segment.
  std::vector<void*> small;
  for (int k = 0; k < 100; ++k) small.push_back(pool.allocate(4000));
  EXPECT_EQ(device.allocations, 1);
  EXPECT_EQ(pool.stats().in_use, 1024u + 100u * 4096u);
  for (void* p : small) pool.deallocate(p);
  pool.deallocate(b);
  EXPECT_EQ(pool.stats().in_use, 0u);
  EXPECT_EQ(pool.stats().held, MemoryPool::kSmallSegment);
  EXPECT_EQ(pool.release(), MemoryPool::kSmallSegment);
  EXPECT_EQ(device.used(), 0u);
  EXPECT_EQ(pool.stats().held, 0u);
  EXPECT_EQ(pool.stats().peak_in_use, 1024u + 100u * 4096u);
}

TEST(MemoryPool, ADestroyedDeviceGivesBackItsPoolsSegments) {
  int live = 0;
  {
    BudgetDevice device(64 * kMiB, &live);
    MemoryPool& pool = device.pool();
    pool.deallocate(pool.allocate(1000));  // a free segment, kept for reuse
    pool.allocate(8 * kMiB);               // a block still in use when the device goes
    EXPECT_EQ(live, 2);
    EXPECT_EQ(pool.stats().segments, 2u);
  }
  EXPECT_EQ(live, 0);
}

TEST(MemoryPool, BlocksSplitAndMergeBack) {
  BudgetDevice device(64 * kMiB);
  MemoryPool& pool = device.pool();
  void* big = pool.allocate(8 * kMiB);
  pool.deallocate(big);
  // Four quarter-size requests come out of the freed segment, side by side.
  std::vector<void*> parts;
  for (int k = 0; k < 4; ++k) parts.push_back(pool.allocate(2 * kMiB));
  EXPECT_EQ(device.allocations, 1);
  for (int k = 0; k < 4; ++k)
    EXPECT_EQ(static_cast<char*>(parts[k]), static_cast<char*>(big) + k * 2 * kMiB);
  // Freed out of order, they merge into the whole segment again.
  for (int k : {2, 0, 3, 1}) pool.deallocate(parts[k]);
  EXPECT_EQ(pool.allocate(8 * kMiB), big);
  EXPECT_EQ(device.allocations, 1);
}

TEST(MemoryPool, OutOfMemoryReleasesHeldSegmentsAndRetries) {
  BudgetDevice device(10 * kMiB);
  MemoryPool& pool = device.pool();
  void* a = pool.allocate(6 * kMiB);
  pool.deallocate(a);                 // held, not used
  void* b = pool.allocate(7 * kMiB);  // does not fit in a; the device is full until a goes
  EXPECT_NE(b, nullptr);
  EXPECT_EQ(pool.stats().segments, 1u);
  EXPECT_EQ(device.deallocations, 1);
  EXPECT_THROW(pool.allocate(5 * kMiB), OutOfMemory);  // really too much
  EXPECT_EQ(pool.stats().in_use, 7 * kMiB);
}

TEST(MemoryPool, RandomAllocationsNeverOverlapAndAccountExactly) {
  BudgetDevice device(512 * kMiB);
  MemoryPool& pool = device.pool();
  std::mt19937 gen(7);
  std::map<uintptr_t, size_t> live;  // address -> rounded size
  size_t in_use = 0;
  for (int step = 0; step < 4000; ++step) {
    if (live.empty() || (live.size() < 200 && gen() % 2 == 0)) {
      size_t bytes = gen() % 3 == 0 ? gen() % (3 * kMiB) : gen() % 20000;
      auto p = reinterpret_cast<uintptr_t>(pool.allocate(bytes));
      size_t size = (std::max<size_t>(bytes, 1) + 511) / 512 * 512;
      auto next = live.lower_bound(p);
      ASSERT_TRUE(next == live.end() || p + size <= next->first) << "overlaps the next block";
      if (next != live.begin()) {
        auto previous = std::prev(next);
        ASSERT_LE(previous->first + previous->second, p) << "overlaps the previous block";
      }
      live[p] = size;
      in_use += size;
    } else {
      auto victim = live.begin();
      std::advance(victim, gen() % live.size());
      pool.deallocate(reinterpret_cast<void*>(victim->first));
      in_use -= victim->second;
      live.erase(victim);
    }
    ASSERT_EQ(pool.stats().in_use, in_use);
  }
  for (const auto& [p, size] : live) pool.deallocate(reinterpret_cast<void*>(p));
  pool.release();
  EXPECT_EQ(device.used(), 0u);
  EXPECT_EQ(device.allocations, device.deallocations);
}

// Foreign memory (DLPack, __cuda_array_interface__) never touches the pool:
// the buffer calls its owner's release once, when it goes.
TEST(Buffer, ForeignMemoryIsReleasedToItsOwnerNotThePool) {
  auto device = std::make_shared<BudgetDevice>(64 * kMiB);
  std::vector<float> owner(100);
  int releases = 0;
  {
    auto buffer = std::make_shared<simt::runtime::Buffer>(device, owner.data(), 400,
                                                          [&releases] { ++releases; });
    EXPECT_TRUE(buffer->foreign());
    EXPECT_EQ(buffer->data(), owner.data());
    EXPECT_EQ(buffer->bytes(), 400u);
    auto view = buffer;  // arrays share the buffer
    buffer.reset();
    EXPECT_EQ(releases, 0);
  }
  EXPECT_EQ(releases, 1);
  EXPECT_EQ(device->allocations, 0);
  EXPECT_EQ(device->pool().stats().in_use, 0u);
}

TEST(Buffer, ForeignReleaseThatThrowsIsContained) {
  auto device = std::make_shared<BudgetDevice>(64 * kMiB);
  EXPECT_NO_THROW({
    simt::runtime::Buffer buffer(device, nullptr, 0, [] { throw std::runtime_error("owner"); });
  });
  // No release callback at all is allowed too.
  EXPECT_NO_THROW({ simt::runtime::Buffer buffer(device, nullptr, 0, nullptr); });
}

TEST(Buffer, PoolBufferGoesBackToThePool) {
  auto device = std::make_shared<BudgetDevice>(64 * kMiB);
  {
    simt::runtime::Buffer buffer(device, 1000);
    EXPECT_FALSE(buffer.foreign());
    EXPECT_EQ(device->pool().stats().in_use, 1024u);
  }
  EXPECT_EQ(device->pool().stats().in_use, 0u);
}

}  // namespace
