// Compiled raw programs by (device, source, options, name expressions), shared so that a
// RawKernel made again from the same source (a RawModule's functions, a loop building
// kernels, as CuPy users write) compiles once per device.
//
// The cache owns only the few programs used last. Any other program is held by the
// kernels made from it alone, and goes (its cl_program, CUmodule or JIT code with it, and
// its entry here) when the last of them does. A cache that owned every program made a
// process compiling many distinct kernels grow without bound (issue 40: 187 MB for 1,000
// raw kernels on PoCL).
#pragma once

#include <cstddef>
#include <functional>
#include <list>
#include <memory>
#include <mutex>
#include <string>
#include <string_view>
#include <unordered_map>

#include "runtime/device.h"

namespace simt::runtime {

class RawProgramCache {
 public:
  // `recent`: how many programs the cache itself keeps alive, most recently used first.
  // The cache must outlive every program it hands out (the process's is never destroyed).
  explicit RawProgramCache(std::size_t recent) : recent_limit_(recent) {}
  RawProgramCache(const RawProgramCache&) = delete;
  RawProgramCache& operator=(const RawProgramCache&) = delete;

  // The program `source` compiles to on the device `device_id` names ("opencl:0"): one a
  // kernel still holds or one of the
  // recent ones, else compile()'s (called without the lock held, so another thread may
  // compile the same source meanwhile: the first stored is kept).
  std::shared_ptr<RawProgram> get(std::string_view device_id, const RawSource& source,
                                  const std::function<std::shared_ptr<RawProgram>()>& compile);

  // Programs the cache keeps alive itself (at most `recent`), and the entries it has (one
  // per live program); for tests.
  std::size_t owned() const;
  std::size_t entries() const;

 private:
  // Under mutex_: the live program under `key`, made the most recently used; the program
  // that this pushes out of the recent ones goes to *evicted, to be released unlocked (its
  // last release takes the lock, in forget()).
  std::shared_ptr<RawProgram> find(const std::string& key, std::shared_ptr<RawProgram>* evicted);
  void touch(const std::shared_ptr<RawProgram>& program, std::shared_ptr<RawProgram>* evicted);
  // The entry of a program whose last holder went, unless `key` names another by now.
  void forget(const std::string& key);

  const std::size_t recent_limit_;
  mutable std::mutex mutex_;
  std::unordered_map<std::string, std::weak_ptr<RawProgram>> programs_;
  std::list<std::shared_ptr<RawProgram>> recent_;  // newest first
};

}  // namespace simt::runtime
