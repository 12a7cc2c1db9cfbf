// The fork guard: a child forked after a GPU device opened refuses GPU work with an error
// naming fork() and spawn; the parent is unaffected.
#include <gtest/gtest.h>
#include <sys/wait.h>
#include <unistd.h>

#include <string>

#include "runtime/device.h"
#include "runtime/fork_guard.h"

namespace {

using simt::runtime::DeviceError;

// 0 when, in the child, the state is inherited and the guard names fork() and spawn.
int child_outcome() {
  if (!simt::runtime::inherited_gpu_devices()) return 1;
  try {
    simt::runtime::require_not_forked("opencl:7");
  } catch (const DeviceError& error) {
    const std::string what = error.what();
    return what.find("opencl:7") != std::string::npos && what.find("fork()") != std::string::npos &&
                   what.find("'spawn'") != std::string::npos
               ? 0
               : 2;
  }
  return 3;
}

TEST(ForkGuard, AChildOfAProcessThatOpenedAGpuDeviceRefusesIt) {
  simt::runtime::note_gpu_device_opened();
  simt::runtime::note_gpu_device_opened();  // once is enough: registered a single time
  const pid_t child = ::fork();
  ASSERT_GE(child, 0);
  if (child == 0) ::_exit(child_outcome());
  int status = 0;
  ASSERT_EQ(::waitpid(child, &status, 0), child);
  ASSERT_TRUE(WIFEXITED(status));
  EXPECT_EQ(WEXITSTATUS(status), 0);
  EXPECT_FALSE(simt::runtime::inherited_gpu_devices());
  EXPECT_NO_THROW(simt::runtime::require_not_forked("opencl:7"));
}

}  // namespace
