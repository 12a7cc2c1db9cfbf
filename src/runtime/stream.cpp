#include "runtime/stream.h"

#include <utility>

namespace simt::runtime {

WorkQueue::~WorkQueue() {
  {
    std::lock_guard lock(mutex_);
    stop_ = true;
  }
  wake_.notify_all();
  if (worker_.joinable()) worker_.join();
}

void WorkQueue::push(std::function<void()> task) {
  {
    std::lock_guard lock(mutex_);
    tasks_.push_back(std::move(task));
    if (!worker_.joinable()) worker_ = std::thread([this] { run(); });
  }
  wake_.notify_one();
}

void WorkQueue::run() {
  std::unique_lock lock(mutex_);
  for (;;) {
    wake_.wait(lock, [&] { return stop_ || !tasks_.empty(); });
    if (tasks_.empty()) return;  // stopping, and nothing left to run
    std::function<void()> task = std::move(tasks_.front());
    tasks_.pop_front();
    busy_ = true;
    lock.unlock();
    try {
      task();
    } catch (...) {
      std::lock_guard error_lock(mutex_);
      if (!error_) error_ = std::current_exception();
    }
    task = nullptr;  // what the task held goes before the queue reads idle
    lock.lock();
    busy_ = false;
    if (tasks_.empty()) finished_.notify_all();
  }
}

void WorkQueue::drain() {
  std::unique_lock lock(mutex_);
  finished_.wait(lock, [&] { return tasks_.empty() && !busy_; });
  if (error_) std::rethrow_exception(std::exchange(error_, nullptr));
}

bool WorkQueue::idle() {
  std::lock_guard lock(mutex_);
  return tasks_.empty() && !busy_;
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
  std::unique_lock lock(mutex_);
  changed_.wait(lock, [&] { return completed_ == armed_; });
}

void HostEvent::wait_for(uint64_t recording) {
  std::unique_lock lock(mutex_);
  changed_.wait(lock, [&] { return completed_ >= recording; });
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
