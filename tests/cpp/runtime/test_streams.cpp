// The host side of streams: WorkQueue order and errors, HostEvent
// recordings, and the CPU device's streams (when it is built).
#include <gtest/gtest.h>

#include <atomic>
#include <chrono>
#include <stdexcept>
#include <thread>
#include <vector>

#include "runtime/device.h"
#include "runtime/stream.h"

namespace {

using simt::runtime::HostEvent;
using simt::runtime::WorkQueue;

TEST(WorkQueue, RunsTasksInOrderOnOneThread) {
  WorkQueue queue;
  std::vector<int> order;
  std::thread::id worker;
  for (int k = 0; k < 100; ++k)
    queue.push([&, k] {
      if (k == 0) worker = std::this_thread::get_id();
      EXPECT_EQ(worker, std::this_thread::get_id());
      order.push_back(k);
    });
  queue.drain();
  ASSERT_EQ(order.size(), 100u);
  for (int k = 0; k < 100; ++k) EXPECT_EQ(order[k], k);
  EXPECT_NE(worker, std::this_thread::get_id());
  EXPECT_TRUE(queue.idle());
}

TEST(WorkQueue, DrainRethrowsTheFirstErrorOnceAndKeepsRunning) {
  WorkQueue queue;
  std::atomic<int> ran{0};
  queue.push([] { throw std::runtime_error("first"); });
  queue.push([] { throw std::runtime_error("second"); });
  queue.push([&] { ++ran; });
  try {
    queue.drain();
    FAIL() << "drain() did not rethrow";
  } catch (const std::runtime_error& e) {
    EXPECT_STREQ(e.what(), "first");
  }
  EXPECT_EQ(ran, 1);
  EXPECT_NO_THROW(queue.drain());
}

TEST(WorkQueue, DestructionRunsWhatIsQueued) {
  std::atomic<int> ran{0};
  {
    WorkQueue queue;
    for (int k = 0; k < 10; ++k)
      queue.push([&] {
        std::this_thread::sleep_for(std::chrono::milliseconds(1));
        ++ran;
      });
  }
  EXPECT_EQ(ran, 10);
}

TEST(HostEvent, OnlyTheLatestRecordingCompletesIt) {
  HostEvent event;
  EXPECT_TRUE(event.done());  // never recorded
  uint64_t first = event.arm();
  uint64_t second = event.arm();
  EXPECT_FALSE(event.done());
  event.complete(first);
  EXPECT_FALSE(event.done());
  event.complete(second);
  EXPECT_TRUE(event.done());
  event.wait();
  event.wait_for(first);
}

TEST(HostEvent, WaitReturnsWhenAnotherThreadCompletes) {
  HostEvent event;
  uint64_t recording = event.arm();
  WorkQueue queue;
  queue.push([&] {
    std::this_thread::sleep_for(std::chrono::milliseconds(5));
    event.complete(recording);
  });
  event.wait();
  EXPECT_TRUE(event.done());
  queue.drain();
}

TEST(HostAllocation, FindsLiveAllocationsByAddressRange) {
  static char memory[256];
  auto allocation =
      simt::runtime::HostAllocation::registered(std::make_shared<simt::runtime::HostAllocation>(
          simt::runtime::HostMemoryKind::Pinned, memory, nullptr, sizeof memory, nullptr));
  EXPECT_EQ(simt::runtime::HostAllocation::find(memory + 10, 100), allocation);
  EXPECT_EQ(simt::runtime::HostAllocation::find(memory + 200, 100), nullptr);  // runs past the end
  allocation.reset();
  EXPECT_EQ(simt::runtime::HostAllocation::find(memory, 1), nullptr);
}

}  // namespace
