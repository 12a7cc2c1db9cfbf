// Graphs (runtime/graph.h) over a device that logs what it is asked to queue:
// a capture records without queuing, a replay queues the recorded commands in
// order with the recorded values, and misuse is refused.
#include <gtest/gtest.h>

#include <cstring>
#include <memory>
#include <stdexcept>
#include <string>
#include <vector>

#include "runtime/device.h"
#include "runtime/graph.h"

namespace {

using simt::runtime::ArgSlot;
using simt::runtime::Graph;
using simt::runtime::GraphError;
using simt::runtime::KeepAlive;
using simt::runtime::LaunchDims;

class LoggedStream : public simt::runtime::Stream {
 public:
  explicit LoggedStream(bool is_default) : default_(is_default) {}
  void synchronize() override {}
  bool done() override { return true; }
  void wait_event(simt::runtime::Event&) override {}
  void add_callback(std::function<void()> callback) override { callback(); }
  bool is_default() const override { return default_; }

 private:
  bool default_;
};

struct FakeKernel : simt::runtime::CompiledKernel {};

// Logs each launch as "launch <first argument as int64>" and each copy as
// "copy <bytes>"; what a launch keeps alive is counted.
class LoggingDevice : public simt::runtime::Device {
 public:
  LoggingDevice() : Device(simt::runtime::DeviceInfo{}) {}
  ~LoggingDevice() override { release_pool(); }

  simt::abi::Language language() const override { return simt::abi::Language::Cpp; }
  bool host_accessible() const override { return true; }
  void* allocate(size_t bytes) override { return ::operator new(bytes); }
  void deallocate(void* pointer, size_t) noexcept override { ::operator delete(pointer); }
  void queue_copy_from_host(void*, const void*, size_t, simt::runtime::Stream&,
                            KeepAlive) override {
    log.push_back("from host");
  }
  void queue_copy_to_host(void*, const void*, size_t, simt::runtime::Stream&, KeepAlive) override {
    log.push_back("to host");
  }
  void queue_copy_on_device(void*, const void*, size_t bytes, simt::runtime::Stream&,
                            KeepAlive keep) override {
    log.push_back("copy " + std::to_string(bytes));
    kept += keep.buffers.size();
  }
  void fill_bytes(void*, const void*, size_t, size_t) override { log.push_back("fill"); }
  void queue_launch(const simt::runtime::CompiledKernel&, const LaunchDims& dims, void* const* args,
                    simt::runtime::Stream&, KeepAlive keep) override {
    int64_t first = 0;
    std::memcpy(&first, args[0], sizeof first);
    log.push_back("launch " + std::to_string(first) + " grid " + std::to_string(dims.grid[0]));
    kept += keep.buffers.size();
  }
  void synchronize() override {}
  simt::runtime::Stream& default_stream() override { return default_stream_; }
  std::shared_ptr<simt::runtime::Stream> create_stream() override {
    return std::make_shared<LoggedStream>(false);
  }
  std::shared_ptr<simt::runtime::Event> create_event() override { return nullptr; }
  std::shared_ptr<simt::runtime::HostAllocation> allocate_host(
      size_t, simt::runtime::HostMemoryKind) override {
    return nullptr;
  }
  std::shared_ptr<simt::runtime::HostAllocation> register_host(
      void*, size_t, simt::runtime::HostMemoryKind) override {
    return nullptr;
  }

  std::vector<std::string> log;
  size_t kept = 0;

 protected:
  std::unique_ptr<simt::runtime::CompiledKernel> build(
      const simt::abi::GeneratedKernel&, const simt::runtime::CompileOptions&) override {
    return std::make_unique<FakeKernel>();
  }

 private:
  LoggedStream default_stream_{true};
};

// Records a launch whose first parameter is `value` (with a second, unused).
void record(Graph& graph, const std::shared_ptr<FakeKernel>& kernel, int64_t value,
            int64_t grid = 1, KeepAlive keep = {}) {
  ArgSlot slots[2] = {};
  std::memcpy(slots[0].data(), &value, sizeof value);
  void* args[2] = {slots[0].data(), slots[1].data()};
  LaunchDims dims;
  dims.grid[0] = grid;
  graph.record_launch(kernel, "k", dims, args, 2, std::move(keep));
}

TEST(Graph, RecordsWithoutQueuingAndReplaysInOrder) {
  auto device = std::make_shared<LoggingDevice>();
  auto kernel = std::make_shared<FakeKernel>();
  Graph graph(device);
  simt::runtime::Stream& stream = device->default_stream();
  graph.begin_capture(stream);
  EXPECT_EQ(stream.capture(), &graph);
  EXPECT_EQ(device->captures(), 1);
  record(graph, kernel, 7, 3);
  char a[16], b[16];
  graph.record_copy(a, b, sizeof a, {});
  record(graph, kernel, 8);
  graph.end_capture();
  EXPECT_EQ(stream.capture(), nullptr);
  EXPECT_EQ(device->captures(), 0);
  EXPECT_TRUE(device->log.empty());  // nothing ran while capturing
  ASSERT_EQ(graph.size(), 3u);
  EXPECT_EQ(graph.describe(), (std::vector<std::string>{"k", "copy", "k"}));

  graph.launch(stream);
  graph.launch(stream);
  const std::vector<std::string> once = {"launch 7 grid 3", "copy 16", "launch 8 grid 1"};
  std::vector<std::string> twice = once;
  twice.insert(twice.end(), once.begin(), once.end());
  EXPECT_EQ(device->log, twice);
  // Each queued command holds the commands until it ran: a device may run even its
  // default stream's work after the call returns (OpenCL).
  EXPECT_EQ(device->kept, 6u);
}

TEST(Graph, HoldsWhatItUsesAndLendsItToLaterWork) {
  auto device = std::make_shared<LoggingDevice>();
  auto kernel = std::make_shared<FakeKernel>();
  auto buffer = std::make_shared<int>(0);
  std::weak_ptr<int> watch = buffer;
  auto graph = std::make_unique<Graph>(device);
  auto stream = device->create_stream();
  graph->begin_capture(*stream);
  record(*graph, kernel, 1, 1, KeepAlive{nullptr, {buffer}});
  graph->end_capture();
  buffer.reset();
  EXPECT_FALSE(watch.expired());  // the graph holds it
  graph->launch(*stream);         // queued on a stream that may run later
  EXPECT_EQ(device->kept, 1u);
  graph.reset();
  EXPECT_TRUE(watch.expired());
}

TEST(Graph, CapturingAgainReplacesTheCommands) {
  auto device = std::make_shared<LoggingDevice>();
  auto kernel = std::make_shared<FakeKernel>();
  Graph graph(device);
  simt::runtime::Stream& stream = device->default_stream();
  graph.begin_capture(stream);
  record(graph, kernel, 1);
  graph.end_capture();
  graph.launch(stream);
  graph.begin_capture(stream);
  record(graph, kernel, 2);
  graph.end_capture();
  graph.launch(stream);
  graph.begin_capture(stream);
  record(graph, kernel, 3);
  graph.end_capture(false);  // dropped: the graph keeps the last recording
  graph.launch(stream);
  EXPECT_EQ(device->log,
            (std::vector<std::string>{"launch 1 grid 1", "launch 2 grid 1", "launch 2 grid 1"}));
}

TEST(Graph, ReplaceSwapsOneCommand) {
  auto device = std::make_shared<LoggingDevice>();
  auto kernel = std::make_shared<FakeKernel>();
  Graph graph(device), update(device), two(device);
  simt::runtime::Stream& stream = device->default_stream();
  graph.begin_capture(stream);
  record(graph, kernel, 1);
  record(graph, kernel, 2);
  graph.end_capture();
  graph.launch(stream);
  update.begin_capture(stream);
  record(update, kernel, 9, 4);
  update.end_capture();
  graph.replace(1, update);
  EXPECT_THROW(graph.replace(2, update), std::out_of_range);
  two.begin_capture(stream);
  record(two, kernel, 5);
  record(two, kernel, 6);
  two.end_capture();
  EXPECT_THROW(graph.replace(0, two), GraphError);
  graph.launch(stream);
  EXPECT_EQ(device->log, (std::vector<std::string>{"launch 1 grid 1", "launch 2 grid 1",
                                                   "launch 1 grid 1", "launch 9 grid 4"}));
}

TEST(Graph, ALaunchInsideACaptureIsRecordedThere) {
  auto device = std::make_shared<LoggingDevice>();
  auto kernel = std::make_shared<FakeKernel>();
  Graph inner(device), outer(device);
  simt::runtime::Stream& stream = device->default_stream();
  inner.begin_capture(stream);
  record(inner, kernel, 5);
  inner.end_capture();
  outer.begin_capture(stream);
  inner.launch(stream);
  inner.launch(stream);
  outer.end_capture();
  EXPECT_TRUE(device->log.empty());
  EXPECT_EQ(outer.size(), 2u);
  outer.launch(stream);
  EXPECT_EQ(device->log, (std::vector<std::string>{"launch 5 grid 1", "launch 5 grid 1"}));
}

TEST(Graph, RefusesMisuse) {
  auto device = std::make_shared<LoggingDevice>();
  Graph graph(device), other(device);
  simt::runtime::Stream& stream = device->default_stream();
  EXPECT_THROW(graph.end_capture(), GraphError);
  graph.begin_capture(stream);
  EXPECT_THROW(graph.begin_capture(*device->create_stream()), GraphError);
  EXPECT_THROW(other.begin_capture(stream), GraphError);  // one graph per stream
  EXPECT_THROW(graph.launch(stream), GraphError);
  char bytes[32];
  EXPECT_THROW(graph.record_copy(bytes + 8, bytes, 16, {}), GraphError);  // overlapping
  graph.record_copy(bytes, bytes, 16, {});  // a copy onto itself records nothing
  graph.end_capture();
  EXPECT_EQ(graph.size(), 0u);
  {
    Graph dropped(device);
    dropped.begin_capture(stream);
  }  // destroyed while capturing: the stream is free again
  EXPECT_EQ(stream.capture(), nullptr);
  EXPECT_EQ(device->captures(), 0);
}

}  // namespace
