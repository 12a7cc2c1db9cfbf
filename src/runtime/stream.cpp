#include "runtime/stream.h"

#include <cxxabi.h>

#include <utility>

#include "runtime/interrupt.h"

namespace simt::runtime {

WorkQueue::WorkQueue() : state_(std::make_shared<State>()) {}

WorkQueue::~WorkQueue() {
  {
    std::lock_guard lock(state_->mutex);
    state_->stop = true;
  }
  state_->wake.notify_all();
  if (!worker_.joinable()) return;
  if (worker_.get_id() == std::this_thread::get_id())
    worker_.detach();  // a task is destroying its own queue: the worker ends by itself
  else
    worker_.join();
}

void WorkQueue::push(std::function<void()> task) {
  {
    std::lock_guard lock(state_->mutex);
    state_->tasks.push_back(std::move(task));
    if (!worker_.joinable()) worker_ = std::thread(run, state_);
  }
  state_->wake.notify_one();
}

void WorkQueue::run(const std::shared_ptr<State>& shared) {
  std::shared_ptr<State> state = shared;  // outlives the WorkQueue if a task destroys it
  std::unique_lock lock(state->mutex);
  for (;;) {
    state->wake.wait(lock, [&] { return state->stop || !state->tasks.empty(); });
    if (state->tasks.empty()) return;  // stopping, and nothing left to run
    std::function<void()> task = std::move(state->tasks.front());
    state->tasks.pop_front();
    state->busy = true;
    lock.unlock();
    try {
      task();
    } catch (const abi::__forced_unwind&) {
      throw;  // the thread is being cancelled (e.g. by Python's finalization): not an error
    } catch (...) {
      std::lock_guard error_lock(state->mutex);
      if (!state->error) state->error = std::current_exception();
    }
    task = nullptr;  // what the task held goes before the queue reads idle
    lock.lock();
    state->busy = false;
    if (state->tasks.empty()) state->finished.notify_all();
  }
}

void WorkQueue::drain() {
  // No lock is held between slices: the interrupt check takes the GIL, which
  // a thread pushing work may hold.
  wait_in_slices([&](std::chrono::milliseconds slice) {
    std::unique_lock lock(state_->mutex);
    return state_->finished.wait_for(lock, slice,
                                     [&] { return state_->tasks.empty() && !state_->busy; });
  });
  std::unique_lock lock(state_->mutex);
  if (state_->error) std::rethrow_exception(std::exchange(state_->error, nullptr));
}

bool WorkQueue::idle() {
  std::lock_guard lock(state_->mutex);
  return state_->tasks.empty() && !state_->busy;
}

uint64_t HostEvent::arm() {
  std::lock_guard lock(mutex_);
  return ++armed_;
}

void HostEvent::complete(uint64_t recording) {
  {
    std::lock_guard lock(mutex_);
    if (recording != armed_) return;
    completed_ = recording;
    at_ = Clock::now();
  }
  changed_.notify_all();
}

void HostEvent::wait() {
  wait_in_slices([&](std::chrono::milliseconds slice) {
    std::unique_lock lock(mutex_);
    return changed_.wait_for(lock, slice, [&] { return completed_ == armed_; });
  });
}

void HostEvent::wait_for(uint64_t recording) {
  wait_in_slices([&](std::chrono::milliseconds slice) {
    std::unique_lock lock(mutex_);
    return changed_.wait_for(lock, slice, [&] { return completed_ >= recording; });
  });
}

uint64_t HostEvent::armed() {
  std::lock_guard lock(mutex_);
  return armed_;
}

bool HostEvent::done() {
  std::lock_guard lock(mutex_);
  return completed_ == armed_;
}

HostEvent::Clock::time_point HostEvent::completed_at() {
  std::lock_guard lock(mutex_);
  return at_;
}

}  // namespace simt::runtime
