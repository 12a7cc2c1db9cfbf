// The recorder of a race-checked launch (racecheck=True on the cpu device).
// The instrumented kernel (codegen/emit_race.cpp) reports each access of a
// shared or global element, each barrier, each warp operation and each
// `return` of the kernel, with its site and its thread; the recorder keeps,
// per element of memory, its last write, two of its last readers and its
// last atomic (the shadow), and finds:
//
// - memory hazards: two threads touch one element, at least one writes, not
//   both atomically, and nothing orders them. Threads of one block are
//   ordered by a barrier between the accesses (each thread counts the
//   barriers it passed, its epoch; equal epochs are one interval). Threads of
//   two blocks are never ordered (global memory; shared memory is each
//   block's own). An atomic and a plain read of one element are not a hazard
//   here (a counter read while others add to it is a common, deliberate
//   pattern); an atomic and a plain write are.
// - barrier hazards: at the block's end, a thread that passed fewer barriers
//   than another without leaving by `return` (a barrier under a condition
//   that differs between threads); two threads whose k-th barrier is a
//   different syncthreads() call.
// - warp hazards: per warp, call site and occurrence, a calling lane its own
//   mask leaves out, a calling lane another caller's mask leaves out, and a
//   lane a mask names that does not call (lanes past the block's last
//   thread excepted).
//
// It is not thread-safe: a race-checked launch runs its blocks one after
// another on one thread (abi::Requirements::serial_blocks), in order, so one
// block's state is all the recorder keeps besides the shadow, and a report
// is the same on every run. The shadow is paged by address (a page of 32-byte
// cells for each 16 KiB touched, a cell per 4 bytes; 1- and 2-byte elements in
// pages of their own, a cell per byte), so views and aliases of one buffer
// share it; an element accessed through two element sizes is not compared
// across them. Pages go to a pool when the launch ends, for the next one.
#pragma once

#include <cstdint>
#include <memory>
#include <set>
#include <unordered_map>
#include <utility>
#include <vector>

#include "abi/race_report.h"

namespace simt::cpu {

class RaceRecorder {
 public:
  // The launch's grid and block extents.
  RaceRecorder(const int64_t grid[3], const int64_t block[3]);
  ~RaceRecorder();
  RaceRecorder(const RaceRecorder&) = delete;
  RaceRecorder& operator=(const RaceRecorder&) = delete;

  // The hooks (the extern "C" entry points below call these). `kind` is an
  // abi::RaceSite::Kind, plus abi::kRaceSharedBit for a shared array's element.
  void access(const void* base, const void* p, int64_t bytes, int kind, int site, const int64_t* t,
              const int64_t* b);
  void barrier(int site, const int64_t* t, const int64_t* b);
  void block_barrier(int site, const int64_t* b);
  void warp(int site, uint32_t mask, const int64_t* t, const int64_t* b);
  // syncwarp(mask): a warp operation whose lanes' earlier accesses are
  // ordered before their later ones; block_syncwarp: every lane of the block
  // at once (regions).
  void syncwarp(int site, uint32_t mask, const int64_t* t, const int64_t* b);
  void block_syncwarp(int site, const int64_t* b);
  void exit(const int64_t* t, const int64_t* b);

  // Whether reads of arrays no thread writes are reported (codegen asks once
  // per thread, simt_race_reads_all): only where the launch's arguments share
  // memory (python/race_launch.cpp decides). Until told, every read is.
  void report_all_reads(bool all) { all_reads_ = all; }
  bool all_reads() const { return all_reads_; }

  // Ends the last block and hands over what the launch found.
  abi::RaceFindings finish();

 private:
  // One access: its thread by its number in the launch (block * threads per
  // block + thread), the thread's epoch then (16 bits: an access 65536
  // barriers old may look current) and its site + 1 (0: none).
  struct Access {
    uint32_t thread;
    uint16_t epoch;
    uint16_t site;
  };
  // Zero bytes are an empty cell, so a page is cleared by memset.
  struct Cell {
    Access write;
    Access atomic;
    Access read[2];
  };
  static_assert(sizeof(Cell) == 32);
  using PagePtr = std::unique_ptr<Cell[]>;
  // Pages a launch gives back for the next one; under a mutex (launches on
  // several Python threads each have their own recorder).
  static PagePtr take_page();
  static void give_back(std::vector<PagePtr>& pages);
  static std::vector<PagePtr>& pooled_pages();
  struct WarpGroup {
    uint32_t callers = 0;
    uint32_t masks[32] = {};
    int site = -1;
    uint32_t warp = 0;
  };

  uint32_t thread_of(const int64_t* t) const {
    return static_cast<uint32_t>(t[0] + block_dim_[0] * (t[1] + block_dim_[1] * t[2]));
  }
  uint32_t block_of(const int64_t* b) const {
    return static_cast<uint32_t>(b[0] + grid_[0] * (b[1] + grid_[1] * b[2]));
  }
  // Moves on to block `block` (coordinates `b`): checks the one before.
  void enter(uint32_t block, const int64_t* b);
  void end_block();
  Cell* cell(const void* p, int64_t bytes);
  void hazard(abi::RaceHazard::Kind kind, const Access& first, const Access& second,
              int64_t element, uint32_t mask = 0);
  abi::RaceThread who(uint32_t launch_thread) const;
  // Thread `thread` of the current block at site `site` (-1: none).
  Access at(uint32_t thread, int site) const;

  bool all_reads_ = true;
  int64_t grid_[3];
  int64_t block_dim_[3];
  uint32_t threads_ = 0;  // per block

  // The block being run, and each of its threads' state.
  bool in_block_ = false;
  uint32_t block_ = 0;
  uint32_t block_base_ = 0;           // its first thread's number in the launch
  std::vector<uint32_t> epoch_;       // barriers passed
  std::vector<uint32_t> warp_epoch_;  // syncwarps passed
  std::vector<uint8_t> exited_;       // left by `return`
  std::vector<int> last_site_;        // the last site it reported
  struct BarrierAt {
    int site;
    uint32_t thread;
  };
  std::vector<BarrierAt> barriers_;  // the k-th barrier of the block: where, who first
  std::unordered_map<uint64_t, uint32_t> warp_calls_;  // (thread, site) -> calls so far
  std::unordered_map<uint64_t, WarpGroup> warp_groups_;

  // The shadow: pages by address, with a direct-mapped cache of the last ones.
  std::unordered_map<uintptr_t, Cell*> pages_;
  std::vector<PagePtr> owned_;
  struct CacheEntry {
    uintptr_t key = ~uintptr_t{0};
    Cell* cells = nullptr;
  };
  CacheEntry cache_[256];

  abi::RaceFindings findings_;
  std::set<std::pair<int, int>> seen_;  // the pairs of sites reported
};

}  // namespace simt::cpu

// The generated code's entry points (codegen/emit_race.cpp), runtime symbols
// of the JIT (clang_jit.cpp); `r` is the launch's RaceRecorder.
extern "C" {
void simt_race_access(void* r, const void* base, const void* p, int64_t bytes, int kind, int site,
                      int64_t tx, int64_t ty, int64_t tz, int64_t bx, int64_t by, int64_t bz);
void simt_race_barrier(void* r, int site, int64_t tx, int64_t ty, int64_t tz, int64_t bx,
                       int64_t by, int64_t bz);
void simt_race_block_barrier(void* r, int site, int64_t bx, int64_t by, int64_t bz);
void simt_race_warp(void* r, int site, unsigned int mask, int64_t tx, int64_t ty, int64_t tz,
                    int64_t bx, int64_t by, int64_t bz);
void simt_race_syncwarp(void* r, int site, unsigned int mask, int64_t tx, int64_t ty, int64_t tz,
                        int64_t bx, int64_t by, int64_t bz);
void simt_race_block_syncwarp(void* r, int site, int64_t bx, int64_t by, int64_t bz);
int simt_race_reads_all(void* r);
void simt_race_exit(void* r, int64_t tx, int64_t ty, int64_t tz, int64_t bx, int64_t by,
                    int64_t bz);
}
