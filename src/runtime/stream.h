// Streams and events: the ordering model every backend implements.
//
// A stream is an ordered queue of work (kernels, copies, event records, host
// callbacks) on one device. Each device has a default stream with CUDA's
// "legacy default stream" semantics, which is what users of CUDA, CuPy and
// PyCUDA expect from code that never names a stream: work on it starts after
// all work queued before it on the device's other streams, and work queued
// on other streams afterwards starts after it. Work on two streams created
// by the user is unordered unless an event orders it (Stream::wait_event).
#pragma once

#include <atomic>
#include <chrono>
#include <condition_variable>
#include <cstddef>
#include <cstdint>
#include <deque>
#include <exception>
#include <functional>
#include <memory>
#include <mutex>
#include <thread>

namespace simt::runtime {

class Event;
class Graph;

class Stream {
 public:
  virtual ~Stream() = default;
  // The host waits until the work queued so far is done; rethrows a failure
  // of that work.
  virtual void synchronize() = 0;
  // Whether the work queued so far is done (never waits).
  virtual bool done() = 0;
  // Work queued on this stream after the call starts after `event` (as last
  // recorded) completes.
  virtual void wait_event(Event& event) = 0;
  // Runs `callback` on a host thread of the device once the work queued
  // before it is done. Later work on the stream does not wait for it, and it
  // may use the device API (it does not run inside a driver's callback).
  virtual void add_callback(std::function<void()> callback) = 0;
  virtual bool is_default() const = 0;

  // The graph recording the work queued here (runtime/graph.h), or null: the
  // launch paths record into it instead of queuing.
  Graph* capture() const { return capture_.load(std::memory_order_acquire); }

 private:
  friend class Graph;
  std::atomic<Graph*> capture_{nullptr};
};

class Event {
 public:
  virtual ~Event() = default;
  // Captures the work queued on `stream` so far: the event completes when
  // that work is done.
  virtual void record(Stream& stream) = 0;
  virtual void synchronize() = 0;
  virtual bool done() = 0;
  virtual bool recorded() const = 0;
  // Milliseconds between `start`'s completion and this event's; both must
  // be recorded (on the same device) and complete.
  virtual double elapsed_ms_since(Event& start) = 0;
};

// An ordered queue of host tasks run by one worker thread: the CPU backend's
// streams, and the host side of other backends' callbacks. The thread starts
// with the first task and ends with the queue. The queue may be destroyed by
// one of its own tasks (a callback dropping the last reference to its
// stream): the worker then finishes the remaining tasks on its own and
// exits, since it shares the queue's state rather than borrowing it.
class WorkQueue {
 public:
  WorkQueue();
  ~WorkQueue();  // runs what is queued (joins, unless called from the worker)
  WorkQueue(const WorkQueue&) = delete;
  WorkQueue& operator=(const WorkQueue&) = delete;

  void push(std::function<void()> task);
  // Waits until every task pushed so far has run; rethrows (once) the first
  // exception a task threw since the last drain.
  void drain();
  bool idle();

 private:
  struct State {
    std::mutex mutex;
    std::condition_variable wake;      // a task arrived, or stop
    std::condition_variable finished;  // the queue went idle
    std::deque<std::function<void()>> tasks;
    bool busy = false;
    bool stop = false;
    std::exception_ptr error;
  };
  static void run(const std::shared_ptr<State>& state);

  std::shared_ptr<State> state_;
  std::thread worker_;
};

// A host-side event: completes when a task on a WorkQueue (or the caller,
// for work that ran inline) marks it, and stamps the time it did. The CPU
// backend's events, and the completion flag of other backends' callbacks.
class HostEvent {
 public:
  using Clock = std::chrono::steady_clock;
  // A new recording: not complete until complete() with the number arm()
  // returned (a completion of an older recording is ignored).
  uint64_t arm();
  void complete(uint64_t recording);
  void wait();
  // Waits until recording number `recording` (or a later one) completed.
  void wait_for(uint64_t recording);
  uint64_t armed();
  bool done();
  Clock::time_point completed_at();

 private:
  std::mutex mutex_;
  std::condition_variable changed_;
  uint64_t armed_ = 0;
  uint64_t completed_ = 0;
  Clock::time_point at_{};
};

}  // namespace simt::runtime
