// The raw program cache: a program is shared while a kernel holds it, the cache itself
// keeps only the few used last, and a program no one holds is freed with its entry.
#include <gtest/gtest.h>

#include <memory>
#include <string>
#include <vector>

#include "runtime/raw_program_cache.h"

namespace {

using simt::runtime::RawProgram;
using simt::runtime::RawProgramCache;
using simt::runtime::RawSource;

// Counts the programs alive.
class CountedProgram : public RawProgram {
 public:
  explicit CountedProgram(int* alive) : alive_(alive) { ++*alive_; }
  ~CountedProgram() override { --*alive_; }
  simt::runtime::RawFunction function(const std::string&) override { return {}; }

 private:
  int* alive_;
};

RawSource source_of(int n) {
  RawSource source;
  source.source = "kernel " + std::to_string(n);
  return source;
}

struct Counts {
  int alive = 0;
  int compiled = 0;
};

std::shared_ptr<RawProgram> get(RawProgramCache& cache, Counts& counts, int n,
                                const std::string& device = "opencl:0") {
  return cache.get(device, source_of(n), [&] {
    ++counts.compiled;
    return std::make_shared<CountedProgram>(&counts.alive);
  });
}

TEST(RawProgramCache, TheSameSourceOnTheSameDeviceCompilesOnce) {
  RawProgramCache cache(4);
  Counts counts;
  auto first = get(cache, counts, 1);
  auto again = get(cache, counts, 1);
  EXPECT_EQ(first, again);
  EXPECT_EQ(counts.compiled, 1);
  auto other_device = get(cache, counts, 1, "cpu");
  EXPECT_NE(first, other_device);
  EXPECT_EQ(counts.compiled, 2);
}

TEST(RawProgramCache, KeepsOnlyTheProgramsUsedLast) {
  RawProgramCache cache(4);
  Counts counts;
  for (int n = 0; n < 100; ++n) get(cache, counts, n);
  EXPECT_EQ(counts.alive, 4);
  EXPECT_EQ(cache.owned(), 4u);
  EXPECT_EQ(cache.entries(), 4u);  // the others' entries went with their programs
  get(cache, counts, 99);          // still there
  EXPECT_EQ(counts.compiled, 100);
  get(cache, counts, 0);  // gone: compiled again
  EXPECT_EQ(counts.compiled, 101);
}

TEST(RawProgramCache, AProgramAKernelHoldsIsSharedAfterItLeftTheRecentOnes) {
  RawProgramCache cache(2);
  Counts counts;
  auto held = get(cache, counts, 1);
  for (int n = 2; n < 10; ++n) get(cache, counts, n);
  EXPECT_EQ(get(cache, counts, 1), held);
  EXPECT_EQ(counts.compiled, 9);
  EXPECT_EQ(counts.alive, 2);  // the two recent: `held` again, and 9
}

TEST(RawProgramCache, ProgramsGoWithTheirLastHolder) {
  RawProgramCache cache(0);  // owns none
  Counts counts;
  std::vector<std::shared_ptr<RawProgram>> held;
  for (int n = 0; n < 10; ++n) held.push_back(get(cache, counts, n));
  EXPECT_EQ(counts.alive, 10);
  EXPECT_EQ(cache.entries(), 10u);
  held.clear();
  EXPECT_EQ(counts.alive, 0);
  EXPECT_EQ(cache.entries(), 0u);
}

TEST(RawProgramCache, ACompileErrorLeavesNoEntry) {
  RawProgramCache cache(4);
  EXPECT_THROW(cache.get("cpu", source_of(1),
                         []() -> std::shared_ptr<RawProgram> { throw std::runtime_error("no"); }),
               std::runtime_error);
  EXPECT_EQ(cache.entries(), 0u);
}

}  // namespace
