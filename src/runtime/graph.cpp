#include "runtime/graph.h"

#include <utility>

namespace simt::runtime {

namespace {

// Replays a command list by queuing each command, from C++: no Python runs
// between two kernels of a replay.
class ReplayExec : public GraphExec {
 public:
  ReplayExec(Device& device, std::shared_ptr<const GraphCommands> commands)
      : device_(device), commands_(std::move(commands)) {
    // Each launch's parameter pointers, made once: a replay only walks them.
    pointers_.reserve(commands_->size());
    for (const GraphCommand& command : *commands_) {
      std::vector<void*> pointers;
      for (const ArgSlot& slot : command.args)
        pointers.push_back(const_cast<ArgSlot&>(slot).data());
      pointers_.push_back(std::move(pointers));
    }
  }

  void launch(Stream& stream) override {
    // Queued work may run after this returns (a CPU stream's worker, an
    // OpenCL queue, the default one too): it holds the commands, and so their
    // buffers, until then.
    for (size_t k = 0; k < commands_->size(); ++k) {
      const GraphCommand& command = (*commands_)[k];
      KeepAlive keep;
      keep.buffers.push_back(commands_);
      if (command.kind == GraphCommand::Kind::Launch)
        device_.queue_launch(*command.kernel, command.dims, pointers_[k].data(), stream,
                             std::move(keep));
      else
        device_.queue_copy_on_device(command.dst, command.src, command.bytes, stream,
                                     std::move(keep));
    }
  }

 private:
  Device& device_;
  std::shared_ptr<const GraphCommands> commands_;
  std::vector<std::vector<void*>> pointers_;
};

}  // namespace

std::unique_ptr<GraphExec> replay_commands(Device& device,
                                           std::shared_ptr<const GraphCommands> commands) {
  return std::make_unique<ReplayExec>(device, std::move(commands));
}

std::unique_ptr<GraphExec> Device::instantiate(std::shared_ptr<const GraphCommands> commands) {
  return replay_commands(*this, std::move(commands));
}

Graph::~Graph() {
  if (capturing()) end_capture(false);
}

void Graph::begin_capture(Stream& stream) {
  std::lock_guard lock(mutex_);
  if (capturing_) throw GraphError("the graph is capturing already: end that capture first");
  Graph* none = nullptr;
  if (!stream.capture_.compare_exchange_strong(none, this))
    throw GraphError("the stream is being captured into another graph already");
  capturing_ = &stream;
  recording_.clear();
  ++device_->captures_;
}

void Graph::end_capture(bool keep) {
  std::unique_lock lock(mutex_);
  if (!capturing_) throw GraphError("the graph is not capturing");
  capturing_->capture_.store(nullptr, std::memory_order_release);
  capturing_ = nullptr;
  --device_->captures_;
  GraphCommands recorded = std::exchange(recording_, {});
  if (!keep) return;
  recorded_ = std::make_shared<const GraphCommands>(std::move(recorded));
  // The old instantiation may hold device resources; dropped without the lock.
  std::unique_ptr<GraphExec> old = std::move(exec_);
  lock.unlock();
}

bool Graph::capturing() const {
  std::lock_guard lock(mutex_);
  return capturing_ != nullptr;
}

void Graph::record_launch(std::shared_ptr<const CompiledKernel> kernel, std::string name,
                          const LaunchDims& dims, void* const* args, size_t count, KeepAlive keep) {
  GraphCommand command;
  command.kind = GraphCommand::Kind::Launch;
  command.kernel = std::move(kernel);
  command.dims = dims;
  command.args.resize(count);
  for (size_t k = 0; k < count; ++k) command.args[k] = *static_cast<const ArgSlot*>(args[k]);
  command.keep = std::move(keep);
  command.name = std::move(name);
  std::lock_guard lock(mutex_);
  if (!capturing_) throw GraphError("recording into a graph that is not capturing");
  recording_.push_back(std::move(command));
}

void Graph::record_copy(void* dst, const void* src, size_t bytes, KeepAlive keep) {
  if (bytes == 0 || dst == src) return;
  const auto* d = static_cast<const char*>(dst);
  const auto* s = static_cast<const char*>(src);
  // A backend copies overlapping ranges through a temporary allocation, which
  // a replay could not own.
  if (d < s + bytes && s < d + bytes)
    throw GraphError(
        "a copy between overlapping ranges of one array cannot be captured into a "
        "graph: copy through a separate array");
  GraphCommand command;
  command.kind = GraphCommand::Kind::Copy;
  command.dst = dst;
  command.src = src;
  command.bytes = bytes;
  command.keep = std::move(keep);
  command.name = "copy";
  std::lock_guard lock(mutex_);
  if (!capturing_) throw GraphError("recording into a graph that is not capturing");
  recording_.push_back(std::move(command));
}

void Graph::append(const GraphCommands& commands) {
  std::lock_guard lock(mutex_);
  if (!capturing_) throw GraphError("recording into a graph that is not capturing");
  recording_.insert(recording_.end(), commands.begin(), commands.end());
}

void Graph::launch(Stream& stream) {
  std::unique_lock lock(mutex_);
  if (capturing_)
    throw GraphError("the graph is capturing: a graph launches after its capture ends");
  std::shared_ptr<const GraphCommands> commands = recorded_;
  if (Graph* outer = stream.capture(); outer && outer != this) {
    // Launched inside another capture: that graph records these commands.
    lock.unlock();
    outer->append(*commands);
    return;
  }
  if (!exec_) exec_ = device_->instantiate(commands);
  // Held across the launch: a capture ending on another thread may not
  // replace the instantiation while it queues work.
  exec_->launch(stream);
}

void Graph::replace(size_t index, const Graph& source) {
  std::shared_ptr<const GraphCommands> replacement;
  {
    std::lock_guard lock(source.mutex_);
    replacement = source.recorded_;
  }
  if (replacement->size() != 1)
    throw GraphError("an update must record exactly one command (a launch or a copy), not " +
                     std::to_string(replacement->size()));
  std::unique_lock lock(mutex_);
  if (capturing_) throw GraphError("the graph is capturing: update it after the capture ends");
  if (index >= recorded_->size())
    throw std::out_of_range("the graph has " + std::to_string(recorded_->size()) +
                            " commands; there is no command " + std::to_string(index));
  auto commands = std::make_shared<GraphCommands>(*recorded_);
  (*commands)[index] = replacement->front();
  recorded_ = std::move(commands);
  std::unique_ptr<GraphExec> old = std::move(exec_);  // dropped without the lock
  lock.unlock();
}

size_t Graph::size() const {
  std::lock_guard lock(mutex_);
  return recorded_->size();
}

std::vector<std::string> Graph::describe() const {
  std::lock_guard lock(mutex_);
  std::vector<std::string> names;
  for (const GraphCommand& command : *recorded_) names.push_back(command.name);
  return names;
}

}  // namespace simt::runtime
