#include "runtime/raw_program_cache.h"

#include <utility>

#include "runtime/disk_cache.h"

namespace simt::runtime {

namespace {

std::string key_of(std::string_view device_id, const RawSource& source) {
  std::string options, expressions;
  for (const auto& o : source.options) options += std::to_string(o.size()) + ":" + o;
  for (const auto& e : source.name_expressions) expressions += std::to_string(e.size()) + ":" + e;
  return cache_key("raw", {device_id, options, expressions, source.source});
}

}  // namespace

std::shared_ptr<RawProgram> RawProgramCache::get(
    std::string_view device_id, const RawSource& source,
    const std::function<std::shared_ptr<RawProgram>()>& compile) {
  const std::string key = key_of(device_id, source);
  // Declared before the locks: released after them.
  std::shared_ptr<RawProgram> evicted;
  {
    std::lock_guard<std::mutex> lock(mutex_);
    if (auto found = find(key, &evicted)) return found;
  }
  std::shared_ptr<RawProgram> compiled = compile();
  std::lock_guard<std::mutex> lock(mutex_);
  if (auto found = find(key, &evicted)) return found;  // another thread's, stored first
  // What the kernels hold: the last of them to go takes the entry out with the program.
  std::shared_ptr<RawProgram> program(compiled.get(), [this, key, compiled](RawProgram*) mutable {
    forget(key);
    compiled.reset();
  });
  programs_[key] = program;
  touch(program, &evicted);
  return program;
}

std::shared_ptr<RawProgram> RawProgramCache::find(const std::string& key,
                                                  std::shared_ptr<RawProgram>* evicted) {
  auto found = programs_.find(key);
  if (found == programs_.end()) return nullptr;
  std::shared_ptr<RawProgram> program = found->second.lock();
  if (program) touch(program, evicted);
  return program;
}

void RawProgramCache::touch(const std::shared_ptr<RawProgram>& program,
                            std::shared_ptr<RawProgram>* evicted) {
  for (auto it = recent_.begin(); it != recent_.end(); ++it) {
    if (*it == program) {
      recent_.splice(recent_.begin(), recent_, it);
      return;
    }
  }
  recent_.push_front(program);
  if (recent_.size() > recent_limit_) {
    *evicted = std::move(recent_.back());
    recent_.pop_back();
  }
}

void RawProgramCache::forget(const std::string& key) {
  std::lock_guard<std::mutex> lock(mutex_);
  auto found = programs_.find(key);
  if (found != programs_.end() && found->second.expired()) programs_.erase(found);
}

std::size_t RawProgramCache::owned() const {
  std::lock_guard<std::mutex> lock(mutex_);
  return recent_.size();
}

std::size_t RawProgramCache::entries() const {
  std::lock_guard<std::mutex> lock(mutex_);
  return programs_.size();
}

}  // namespace simt::runtime
