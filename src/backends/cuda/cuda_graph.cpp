// CUDA's replay of a recorded graph (runtime/graph.h): the commands are
// queued once on a private stream under stream capture, which gives a CUDA
// graph; the driver instantiates it, and each replay is one cuGraphLaunch.
// The commands are queued by the same calls as eager work (queue_launch,
// queue_copy_on_device), so a captured launch is exactly the eager one.
#include <memory>
#include <utility>

#include "backends/cuda/cuda_device.h"
#include "runtime/graph.h"

namespace simt::cuda {

namespace {

// The driver's objects of one instantiated graph, destroyed in reverse order
// of creation with the context current.
class CudaGraphExec : public runtime::GraphExec {
 public:
  CudaGraphExec(CudaDevice& device, std::shared_ptr<const runtime::GraphCommands> commands)
      : device_(device), commands_(std::move(commands)) {}

  ~CudaGraphExec() override {
    const DriverFunctions& fn = device_.driver().fn();
    device_.context()->make_current_noexcept();
    if (exec_) fn.cuGraphExecDestroy(exec_);
    if (graph_) fn.cuGraphDestroy(graph_);
  }

  CudaGraphExec(const CudaGraphExec&) = delete;
  CudaGraphExec& operator=(const CudaGraphExec&) = delete;

  void build() {
    const DriverFunctions& fn = device_.driver().fn();
    const PrimaryContext& context = *device_.context();
    context.make_current();
    // Not blocking on the legacy default stream, which cannot be captured.
    CUstream handle = nullptr;
    context.check(fn.cuStreamCreate(&handle, CU_STREAM_NON_BLOCKING), "cuStreamCreate");
    // Owns the handle; lives as long as the graph, which uses its cooperative
    // launches' barrier words.
    capture_stream_ = std::make_unique<CudaStream>(device_.context(), handle, true, nullptr);
    context.check(fn.cuStreamBeginCapture_v2(handle, CU_STREAM_CAPTURE_MODE_RELAXED),
                  "cuStreamBeginCapture");
    try {
      for (const runtime::GraphCommand& command : *commands_) {
        if (command.kind == runtime::GraphCommand::Kind::Launch) {
          std::vector<void*> args;
          for (const runtime::ArgSlot& slot : command.args)
            args.push_back(const_cast<runtime::ArgSlot&>(slot).data());
          device_.queue_launch(*command.kernel, command.dims, args.data(), *capture_stream_, {});
        } else {
          device_.queue_copy_on_device(command.dst, command.src, command.bytes, *capture_stream_,
                                       {});
        }
      }
    } catch (...) {
      CUgraph partial = nullptr;
      fn.cuStreamEndCapture(handle, &partial);  // leaves the stream usable
      if (partial) fn.cuGraphDestroy(partial);
      throw;
    }
    context.check(fn.cuStreamEndCapture(handle, &graph_), "cuStreamEndCapture");
    context.check(fn.cuGraphInstantiateWithFlags(&exec_, graph_, 0), "cuGraphInstantiate");
  }

  void launch(runtime::Stream& stream) override {
    auto& cuda_stream = static_cast<CudaStream&>(stream);
    device_.context()->make_current();
    device_.context()->check(device_.driver().fn().cuGraphLaunch(exec_, cuda_stream.handle()),
                             "cuGraphLaunch");
    // The replay's buffers (arrays made in the capture are the graph's alone) stay
    // until it ran, whatever becomes of the graph meanwhile.
    runtime::KeepAlive keep;
    keep.buffers.push_back(commands_);
    device_.release_after(cuda_stream, std::move(keep));
  }

 private:
  CudaDevice& device_;
  // Hold the buffers and kernels the graph's nodes use.
  std::shared_ptr<const runtime::GraphCommands> commands_;
  std::unique_ptr<CudaStream> capture_stream_;
  CUgraph graph_ = nullptr;
  CUgraphExec exec_ = nullptr;
};

}  // namespace

std::unique_ptr<runtime::GraphExec> CudaDevice::instantiate(
    std::shared_ptr<const runtime::GraphCommands> commands) {
  const DriverFunctions& fn = driver_.fn();
  if (!fn.cuStreamBeginCapture_v2 || !fn.cuStreamEndCapture || !fn.cuGraphInstantiateWithFlags ||
      !fn.cuGraphLaunch || !fn.cuGraphExecDestroy || !fn.cuGraphDestroy)
    throw runtime::DeviceError("graphs on " + info_.id + " need a CUDA driver of 11.4 or later (" +
                               driver_.library_path() + " is " +
                               driver_version_string(driver_.version()) + ")");
  auto exec = std::make_unique<CudaGraphExec>(*this, std::move(commands));
  exec->build();
  return exec;
}

}  // namespace simt::cuda
