// The race recorder (backends/cpu/race_recorder.h), driven as generated code
// drives it, one block after another: which accesses race, which barriers and
// warp masks are wrong, and the report abi::format_race_report makes of them.
#include <gtest/gtest.h>

#if SIMT_HAVE_CPU_BACKEND

#include <string>
#include <vector>

#include "abi/race_report.h"
#include "backends/cpu/race_recorder.h"

namespace {

using simt::abi::RaceHazard;
using simt::abi::RaceSite;
using simt::cpu::RaceRecorder;

constexpr int kRead = static_cast<int>(RaceSite::Kind::Read);
constexpr int kWrite = static_cast<int>(RaceSite::Kind::Write);
constexpr int kAtomic = static_cast<int>(RaceSite::Kind::Atomic);
constexpr int kShared = simt::abi::kRaceSharedBit;

struct Launch {
  explicit Launch(int64_t blocks, int64_t threads) {
    const int64_t grid[3] = {blocks, 1, 1}, block[3] = {threads, 1, 1};
    recorder = std::make_unique<RaceRecorder>(grid, block);
  }
  void access(const float* base, int64_t element, int kind, int site, int64_t t, int64_t b) {
    const int64_t tid[3] = {t, 0, 0}, bid[3] = {b, 0, 0};
    recorder->access(base, base + element, sizeof(float), kind, site, tid, bid);
  }
  std::unique_ptr<RaceRecorder> recorder;
};

std::vector<RaceSite> sites() {
  auto site = [](RaceSite::Kind kind, bool shared, int line, const char* text) {
    RaceSite s;
    s.kind = kind;
    s.shared = shared;
    s.where = {"/x/kernels.py", line, std::string("    ") + text, 5};
    s.what = "s";
    return s;
  };
  return {site(RaceSite::Kind::Write, true, 12, "s[t] = x[i]"),
          site(RaceSite::Kind::Read, true, 16, "s[t] += s[t + 1]"),
          site(RaceSite::Kind::Barrier, false, 14, "simt.syncthreads()")};
}

TEST(RaceRecorder, WriteThenReadOfAnotherThreadInOneIntervalRaces) {
  float s[64] = {};
  Launch launch(4, 32);
  for (int64_t t = 0; t < 32; ++t) launch.access(s, t, kWrite | kShared, 0, t, 3);
  for (int64_t t = 0; t < 31; ++t) launch.access(s, t + 1, kRead | kShared, 1, t, 3);
  const auto findings = launch.recorder->finish();
  ASSERT_EQ(findings.hazards.size(), 1u);
  const RaceHazard& h = findings.hazards[0];
  EXPECT_EQ(h.kind, RaceHazard::Kind::WriteRead);
  EXPECT_EQ(h.element, 1);
  EXPECT_EQ(h.first.thread[0], 1);
  EXPECT_EQ(h.second.thread[0], 0);
  EXPECT_EQ(h.first.block[0], 3);
  EXPECT_EQ(simt::abi::format_race_report(findings, sites(), "block_sums"),
            "write-read race on shared array 's' element 1 in kernel 'block_sums':\n"
            "  thread (1, 0, 0) of block (3, 0, 0) wrote it at kernels.py:12:5: s[t] = x[i]\n"
            "  thread (0, 0, 0) of block (3, 0, 0) read it at kernels.py:16:5: s[t] += s[t + 1]\n"
            "  with no syncthreads() between them");
}

TEST(RaceRecorder, ABarrierBetweenOrdersThem) {
  float s[64] = {};
  Launch launch(1, 32);
  for (int64_t t = 0; t < 32; ++t) launch.access(s, t, kWrite | kShared, 0, t, 0);
  const int64_t block[3] = {0, 0, 0};
  launch.recorder->block_barrier(2, block);
  for (int64_t t = 0; t < 31; ++t) launch.access(s, t + 1, kRead | kShared, 1, t, 0);
  EXPECT_TRUE(launch.recorder->finish().hazards.empty());
}

TEST(RaceRecorder, SharedMemoryOfEarlierBlocksIsTheirs) {
  float s[4] = {};
  Launch launch(2, 2);
  launch.access(s, 0, kWrite | kShared, 0, 0, 0);
  launch.access(s, 0, kWrite | kShared, 0, 1, 1);  // the same bytes, the next block
  EXPECT_TRUE(launch.recorder->finish().hazards.empty());
}

TEST(RaceRecorder, GlobalMemoryOfTwoBlocksRacesAndAtomicsDoNot) {
  float g[4] = {};
  Launch launch(2, 2);
  launch.access(g, 0, kAtomic, 0, 0, 0);
  launch.access(g, 0, kAtomic, 0, 1, 1);
  launch.access(g, 1, kWrite, 0, 0, 0);
  launch.access(g, 1, kWrite, 0, 0, 1);
  launch.access(g, 2, kWrite, 1, 0, 0);
  launch.access(g, 2, kAtomic, 2, 1, 0);
  const auto findings = launch.recorder->finish();
  ASSERT_EQ(findings.hazards.size(), 2u);
  EXPECT_EQ(findings.hazards[0].kind, RaceHazard::Kind::WriteWrite);
  EXPECT_EQ(findings.hazards[0].second.block[0], 1);
  EXPECT_EQ(findings.hazards[1].kind, RaceHazard::Kind::WriteAtomic);
}

TEST(RaceRecorder, ADivergentBarrierNamesTheThreadThatSkippedIt) {
  float s[32] = {};
  Launch launch(1, 32);
  for (int64_t t = 0; t < 32; ++t) {
    const int64_t tid[3] = {t, 0, 0}, bid[3] = {0, 0, 0};
    if (t < 16) launch.recorder->barrier(2, tid, bid);
    launch.access(s, t, kWrite | kShared, 0, t, 0);
  }
  const auto findings = launch.recorder->finish();
  ASSERT_EQ(findings.hazards.size(), 1u);
  const RaceHazard& h = findings.hazards[0];
  EXPECT_EQ(h.kind, RaceHazard::Kind::DivergentBarrier);
  EXPECT_EQ(h.site_a, 2);
  EXPECT_EQ(h.site_b, 0);
  EXPECT_EQ(h.second.thread[0], 16);
}

TEST(RaceRecorder, AThreadThatReturnedOwesNoBarrier) {
  Launch launch(1, 32);
  const int64_t bid[3] = {0, 0, 0};
  for (int64_t t = 20; t < 32; ++t) {
    const int64_t tid[3] = {t, 0, 0};
    launch.recorder->exit(tid, bid);
  }
  launch.recorder->block_barrier(2, bid);
  EXPECT_TRUE(launch.recorder->finish().hazards.empty());
}

TEST(RaceRecorder, WarpMasks) {
  Launch launch(1, 48);
  const int64_t bid[3] = {0, 0, 0};
  // Lanes 0-31 call with a mask of 16 lanes; the partial warp's 16 lanes with a full mask.
  for (int64_t t = 0; t < 48; ++t) {
    const int64_t tid[3] = {t, 0, 0};
    launch.recorder->warp(0, t < 32 ? 0xffffu : 0xffffffffu, tid, bid);
  }
  const auto findings = launch.recorder->finish();
  ASSERT_EQ(findings.hazards.size(), 1u);
  EXPECT_EQ(findings.hazards[0].kind, RaceHazard::Kind::WarpMaskMissing);
  EXPECT_EQ(findings.hazards[0].second.thread[0], 16);
  EXPECT_EQ(findings.hazards[0].mask, 0xffffu);
}

TEST(RaceRecorder, RefusesLaunchesItCannotNumber) {
  const int64_t grid[3] = {1 << 20, 1 << 10, 1}, block[3] = {1024, 1, 1};
  EXPECT_THROW(RaceRecorder(grid, block), std::invalid_argument);
}

}  // namespace

#endif  // SIMT_HAVE_CPU_BACKEND
