// Graphs: work recorded once on one device and replayed as often as asked
// (simt.graph(), CuPy's Stream.begin_capture()).
//
// While a graph captures a stream, the launch paths record what they would
// queue there (Graph::record_launch, record_copy) instead of queuing it:
// nothing runs while capturing, as with CUDA's stream capture. The recording
// is one description for every backend, a list of GraphCommand; a backend
// supplies only how a list replays (Device::instantiate): the CPU and OpenCL
// queue the commands from C++ (ReplayExec, graph.cpp), CUDA captures them into
// a CUDA graph once and launches that (backends/cuda/cuda_graph.cpp).
//
// A command holds the buffers it uses (KeepAlive) for as long as the graph
// lives, so replays always write memory that is still theirs; arrays made
// while capturing are allocated then, once, and every replay reuses them.
#pragma once

#include <array>
#include <cstddef>
#include <cstdint>
#include <memory>
#include <mutex>
#include <string>
#include <vector>

#include "runtime/device.h"

namespace simt::runtime {

// The value of one kernel parameter as every launch path packs it: a slot as
// wide as the widest value (complex128).
using ArgSlot = std::array<uint64_t, 2>;

struct GraphCommand {
  enum class Kind { Launch, Copy };
  Kind kind = Kind::Launch;
  // A launch: the kernel (its owner keeps it loaded), the geometry and a copy
  // of every parameter's value.
  std::shared_ptr<const CompiledKernel> kernel;
  LaunchDims dims;
  std::vector<ArgSlot> args;
  // A copy between two ranges of the device's memory.
  void* dst = nullptr;
  const void* src = nullptr;
  size_t bytes = 0;
  // What the command uses, held while the graph holds the command.
  KeepAlive keep;
  // The kernel's symbol or "copy", for messages and Graph::describe().
  std::string name;
};

using GraphCommands = std::vector<GraphCommand>;

// A graph in the form a device replays (Device::instantiate's result).
class GraphExec {
 public:
  virtual ~GraphExec() = default;
  // Queues one replay of the whole graph on `stream` (of the graph's device).
  virtual void launch(Stream& stream) = 0;
};

// A capture's misuse (capturing twice, launching while capturing, work that
// cannot be recorded): std::logic_error, a RuntimeError in Python.
class GraphError : public std::logic_error {
 public:
  using std::logic_error::logic_error;
};

class Graph {
 public:
  explicit Graph(std::shared_ptr<Device> device) : device_(std::move(device)) {}
  ~Graph();
  Graph(const Graph&) = delete;
  Graph& operator=(const Graph&) = delete;

  const std::shared_ptr<Device>& device() const { return device_; }

  // From now on, work queued on `stream` (of this graph's device) is recorded
  // here instead of running; what the graph held before is replaced once the
  // capture ends. Throws GraphError when `stream` or this graph is capturing.
  void begin_capture(Stream& stream);
  // Ends the capture; the recording becomes what launch() replays. With
  // `keep` false the recording is dropped and the graph stays as it was.
  void end_capture(bool keep = true);
  bool capturing() const;

  // The launch paths' recording calls, made while `stream.capture()` is this
  // graph. `args[k]` points to the k-th parameter's ArgSlot (`count` of them);
  // `kernel` may alias its owner (a specialization), which it keeps loaded.
  void record_launch(std::shared_ptr<const CompiledKernel> kernel, std::string name,
                     const LaunchDims& dims, void* const* args, size_t count, KeepAlive keep);
  void record_copy(void* dst, const void* src, size_t bytes, KeepAlive keep);

  // Queues one replay of what the last capture recorded on `stream` (if
  // `stream` is itself capturing, the commands are recorded into that graph).
  // The device instantiates the recording at the first launch after a capture.
  void launch(Stream& stream);

  // Replaces recorded command `index` by the one command `source` recorded
  // (g.update(): new scalar values, arrays or geometry for one launch without
  // capturing the whole sequence again); the device instantiates the graph
  // again at its next launch. Throws std::out_of_range for an index past the
  // end and GraphError when `source` holds other than one command.
  void replace(size_t index, const Graph& source);

  // The commands the last capture recorded.
  size_t size() const;
  std::vector<std::string> describe() const;

 private:
  void append(const GraphCommands& commands);

  std::shared_ptr<Device> device_;
  mutable std::mutex mutex_;
  Stream* capturing_ = nullptr;  // the stream being captured, while a capture runs
  GraphCommands recording_;      // what the running capture recorded so far
  std::shared_ptr<const GraphCommands> recorded_ = std::make_shared<GraphCommands>();
  std::unique_ptr<GraphExec> exec_;  // recorded_'s instantiation, made by the first launch
};

// The replay every backend may use: each command queued on the stream in
// order, from C++ (Device::instantiate's default).
std::unique_ptr<GraphExec> replay_commands(Device& device,
                                           std::shared_ptr<const GraphCommands> commands);

}  // namespace simt::runtime
