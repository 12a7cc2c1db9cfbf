// Sets (or unsets) an environment variable for one test and restores the previous value after it.
#pragma once

#include <cstdlib>
#include <optional>
#include <string>

namespace simt::test_support {

class ScopedEnv {
 public:
  // A null `value` unsets the variable for the test.
  ScopedEnv(const char* name, const char* value) : name_(name) {
    if (const char* old = std::getenv(name)) previous_ = old;
    if (value != nullptr) {
      setenv(name, value, 1);
    } else {
      unsetenv(name);
    }
  }
  ScopedEnv(const ScopedEnv&) = delete;
  ScopedEnv& operator=(const ScopedEnv&) = delete;
  ~ScopedEnv() {
    if (previous_) {
      setenv(name_, previous_->c_str(), 1);
    } else {
      unsetenv(name_);
    }
  }

 private:
  const char* name_;
  std::optional<std::string> previous_;
};

}  // namespace simt::test_support
