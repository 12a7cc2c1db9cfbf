#include "backends/cpu/race_recorder.h"

#include <algorithm>
#include <cstring>
#include <mutex>
#include <stdexcept>
#include <string>
#include <tuple>

namespace simt::cpu {

namespace {

using Kind = abi::RaceSite::Kind;
using Hazard = abi::RaceHazard::Kind;

// Cells per page: 4-byte granules of 16 KiB, or the bytes of 4 KiB for 1- and
// 2-byte elements (whose neighbours are other threads' elements).
constexpr int kCellsPerPage = 4096;
constexpr uintptr_t kBytePageTag = uintptr_t{1} << 63;
// A launch reports the first hazards of distinct sites; later ones are counted.
constexpr size_t kMostHazards = 64;
// An access's 16-bit epoch: the thread's barriers (10 bits) and syncwarps (6
// bits), each modulo its width (an access 1024 barriers or 64 syncwarps old
// may look current).
constexpr int kWarpEpochBits = 6;
constexpr uint32_t kWarpEpochMask = (1u << kWarpEpochBits) - 1;
// The pool keeps at most this many pages (256 KiB each, the shadow of 16 KiB
// of 4-byte elements): 256 MiB for later launches, the rest freed.
constexpr size_t kMostPooledPages = 1024;

std::mutex g_pool_mutex;

}  // namespace

RaceRecorder::PagePtr RaceRecorder::take_page() {
  {
    std::lock_guard lock(g_pool_mutex);
    auto& pool = pooled_pages();
    if (!pool.empty()) {
      PagePtr page = std::move(pool.back());
      pool.pop_back();
      std::memset(static_cast<void*>(page.get()), 0, sizeof(Cell) * kCellsPerPage);
      return page;
    }
  }
  return PagePtr(new Cell[kCellsPerPage]());  // zeroed: empty
}

void RaceRecorder::give_back(std::vector<PagePtr>& pages) {
  std::lock_guard lock(g_pool_mutex);
  auto& pool = pooled_pages();
  for (PagePtr& page : pages)
    if (pool.size() < kMostPooledPages) pool.push_back(std::move(page));
  pages.clear();
}

std::vector<RaceRecorder::PagePtr>& RaceRecorder::pooled_pages() {
  static auto* pool = new std::vector<PagePtr>();  // never destroyed: used at exit
  return *pool;
}

RaceRecorder::RaceRecorder(const int64_t grid[3], const int64_t block[3]) {
  int64_t threads = 1;
  for (int d = 0; d < 3; ++d) {
    grid_[d] = grid[d];
    block_dim_[d] = block[d];
    threads *= block[d];
  }
  // The shadow numbers a launch's threads in 32 bits (the product checked as it
  // grows: a wrapped one could pass).
  int64_t total = threads;
  bool too_many = false;
  for (int d = 0; d < 3; ++d) too_many |= __builtin_mul_overflow(total, grid[d], &total);
  if (too_many || total > 0xffffffffLL)
    throw std::invalid_argument(
        "racecheck=True checks launches of fewer than 2**32 threads; this one has " +
        (too_many ? std::string("more than 2**63") : std::to_string(total)));
  threads_ = static_cast<uint32_t>(threads);
  epoch_.assign(threads_, 0);
  warp_epoch_.assign(threads_, 0);
  exited_.assign(threads_, 0);
  last_site_.assign(threads_, -1);
}

RaceRecorder::~RaceRecorder() { give_back(owned_); }

abi::RaceThread RaceRecorder::who(uint32_t launch_thread) const {
  const uint32_t block = launch_thread / threads_, thread = launch_thread % threads_;
  abi::RaceThread out;
  out.thread[0] = thread % block_dim_[0];
  out.thread[1] = (thread / block_dim_[0]) % block_dim_[1];
  out.thread[2] = thread / (block_dim_[0] * block_dim_[1]);
  out.block[0] = block % grid_[0];
  out.block[1] = (block / grid_[0]) % grid_[1];
  out.block[2] = block / (grid_[0] * grid_[1]);
  return out;
}

RaceRecorder::Access RaceRecorder::at(uint32_t thread, int site) const {
  Access a;
  a.thread = block_base_ + thread;
  a.epoch = 0;
  a.site = site < 0 || site >= 0xffff ? 0 : static_cast<uint16_t>(site + 1);
  return a;
}

void RaceRecorder::enter(uint32_t block, const int64_t*) {
  if (in_block_) end_block();
  in_block_ = true;
  block_ = block;
  block_base_ = block * threads_;
  std::fill(epoch_.begin(), epoch_.end(), 0);
  std::fill(warp_epoch_.begin(), warp_epoch_.end(), 0);
  std::fill(exited_.begin(), exited_.end(), 0);
  std::fill(last_site_.begin(), last_site_.end(), -1);
  barriers_.clear();
  warp_calls_.clear();
  warp_groups_.clear();
}

void RaceRecorder::hazard(Hazard kind, const Access& first, const Access& second, int64_t element,
                          uint32_t mask) {
  ++findings_.total;
  const int a = first.site - 1;
  const int b = second.site - 1;
  if (findings_.hazards.size() >= kMostHazards) return;
  // One report per pair of places: the same bug seen from another thread, or
  // as another kind (a `+=` both reads and writes), adds nothing.
  if (!seen_.insert({std::min(a, b), std::max(a, b)}).second) return;
  abi::RaceHazard h;
  h.kind = kind;
  h.site_a = a;
  h.site_b = b;
  h.element = element;
  h.mask = mask;
  h.first = who(first.thread);
  h.second = who(second.thread);
  findings_.hazards.push_back(h);
}

RaceRecorder::Cell* RaceRecorder::cell(const void* p, int64_t bytes) {
  const auto address = reinterpret_cast<uintptr_t>(p);
  const bool small = bytes < 4;
  const uintptr_t key = small ? (address >> 12) | kBytePageTag : address >> 14;
  const size_t index = small ? address & 4095 : (address >> 2) & 4095;
  CacheEntry& entry = cache_[(key ^ (key >> 8)) & 255];
  if (entry.key != key) {
    Cell*& page = pages_[key];
    if (!page) {
      owned_.push_back(take_page());
      page = owned_.back().get();
    }
    entry.key = key;
    entry.cells = page;
  }
  return entry.cells + index;
}

void RaceRecorder::access(const void* base, const void* p, int64_t bytes, int kind, int site,
                          const int64_t* t, const int64_t* b) {
  const uint32_t block = block_of(b);
  if (!in_block_ || block != block_) enter(block, b);
  const uint32_t thread = thread_of(t);
  if (thread >= threads_) return;  // not a thread of this launch's blocks
  last_site_[thread] = site;
  const bool shared = (kind & abi::kRaceSharedBit) != 0;
  const auto what = static_cast<Kind>(kind & ~abi::kRaceSharedBit);
  const Access now{block_base_ + thread,
                   static_cast<uint16_t>((epoch_[thread] << kWarpEpochBits) |
                                         (warp_epoch_[thread] & kWarpEpochMask)),
                   static_cast<uint16_t>(site >= 0 && site < 0xffff ? site + 1 : 0)};
  // Two accesses may race: another thread, in the same barrier interval of
  // this block, or (global memory) in another block. Shared memory of an
  // earlier block is that block's (the CPU reuses the bytes).
  auto concurrent = [&](const Access& before) {
    if (before.site == 0) return false;
    const uint32_t in_block = before.thread - block_base_;
    if (in_block < threads_) {
      if (in_block == thread || before.epoch >> kWarpEpochBits != now.epoch >> kWarpEpochBits)
        return false;  // the same thread, or a barrier between
      // Lanes of one warp: a syncwarp() between orders them too.
      return in_block / 32 != thread / 32 ||
             (before.epoch & kWarpEpochMask) == (now.epoch & kWarpEpochMask);
    }
    return !shared;
  };
  Cell& c = *cell(p, bytes);
  // Only a hazard needs the element's index (a division per access cost 8%).
  auto hazard = [&](Hazard kind, const Access& first) {
    const int64_t element =
        bytes > 0 ? (static_cast<const char*>(p) - static_cast<const char*>(base)) / bytes : 0;
    this->hazard(kind, first, now, element);
  };
  switch (what) {
    case Kind::Read: {
      if (concurrent(c.write)) hazard(Hazard::WriteRead, c.write);
      // Keep two readers of distinct threads: whichever thread writes next,
      // one of them is another thread. A reader no later access can race
      // with (an earlier interval of this block; shared memory of an earlier
      // block) gives its place first.
      auto spent = [&](const Access& r) {
        if (r.site == 0) return true;
        const uint32_t in_block = r.thread - block_base_;
        return in_block < threads_ ? r.epoch != now.epoch : shared;
      };
      if (spent(c.read[0]) || c.read[0].thread == now.thread)
        c.read[0] = now;
      else
        c.read[1] = now;
      break;
    }
    case Kind::Write:
      if (concurrent(c.write)) hazard(Hazard::WriteWrite, c.write);
      for (const Access& r : c.read)
        if (concurrent(r)) {
          hazard(Hazard::ReadWrite, r);
          break;
        }
      if (concurrent(c.atomic)) hazard(Hazard::AtomicWrite, c.atomic);
      c.write = now;
      break;
    case Kind::Atomic:
      if (concurrent(c.write)) hazard(Hazard::WriteAtomic, c.write);
      c.atomic = now;
      break;
    default:
      break;
  }
}

void RaceRecorder::barrier(int site, const int64_t* t, const int64_t* b) {
  const uint32_t block = block_of(b);
  if (!in_block_ || block != block_) enter(block, b);
  const uint32_t thread = thread_of(t);
  if (thread >= threads_) return;
  last_site_[thread] = site;
  const uint32_t k = epoch_[thread]++;
  if (k == barriers_.size()) {
    barriers_.push_back({site, thread});
  } else if (k < barriers_.size() && barriers_[k].site != site) {
    hazard(Hazard::BarrierMismatch, at(barriers_[k].thread, barriers_[k].site), at(thread, site),
           0);
  }
}

void RaceRecorder::block_barrier(int site, const int64_t* b) {
  const uint32_t block = block_of(b);
  if (!in_block_ || block != block_) enter(block, b);
  // Regions: every thread still running passes it together.
  for (uint32_t t = 0; t < threads_; ++t)
    if (!exited_[t]) {
      ++epoch_[t];
      last_site_[t] = site;
    }
  barriers_.push_back({site, 0});
}

void RaceRecorder::warp(int site, uint32_t mask, const int64_t* t, const int64_t* b) {
  const uint32_t block = block_of(b);
  if (!in_block_ || block != block_) enter(block, b);
  const uint32_t thread = thread_of(t);
  if (thread >= threads_) return;
  last_site_[thread] = site;
  // The lanes calling one site for the n-th time make one warp operation.
  const uint32_t n = warp_calls_[(uint64_t{thread} << 32) | static_cast<uint32_t>(site)]++;
  const uint32_t warp = thread / 32;
  const uint64_t key = (uint64_t{warp} << 40) ^ (uint64_t{n} << 20) ^ static_cast<uint32_t>(site);
  WarpGroup& g = warp_groups_[key];
  g.site = site;
  g.warp = warp;
  g.callers |= 1u << (thread & 31);
  g.masks[thread & 31] = mask;
}

void RaceRecorder::syncwarp(int site, uint32_t mask, const int64_t* t, const int64_t* b) {
  warp(site, mask, t, b);
  const uint32_t thread = thread_of(t);
  if (thread < threads_) ++warp_epoch_[thread];
}

void RaceRecorder::block_syncwarp(int site, const int64_t* b) {
  const uint32_t block = block_of(b);
  if (!in_block_ || block != block_) enter(block, b);
  for (uint32_t t = 0; t < threads_; ++t)
    if (!exited_[t]) {
      ++warp_epoch_[t];
      last_site_[t] = site;
    }
}

void RaceRecorder::exit(const int64_t* t, const int64_t* b) {
  const uint32_t block = block_of(b);
  if (!in_block_ || block != block_) enter(block, b);
  const uint32_t thread = thread_of(t);
  if (thread < threads_) exited_[thread] = 1;
}

void RaceRecorder::end_block() {
  auto access_of = [&](uint32_t thread, int site) { return at(thread, site); };
  // Barriers: a thread that ended the kernel having passed fewer than another.
  uint32_t most = 0, ahead = 0;
  for (uint32_t t = 0; t < threads_; ++t)
    if (epoch_[t] > most) most = epoch_[t], ahead = t;
  for (uint32_t t = 0; t < threads_ && most > 0; ++t) {
    if (exited_[t] || epoch_[t] == most) continue;
    const uint32_t k = epoch_[t];
    const int site = k < barriers_.size() ? barriers_[k].site : -1;
    hazard(Hazard::DivergentBarrier, access_of(ahead, site), access_of(t, last_site_[t]), 0);
    break;  // one per block: the others are the same bug
  }
  // Warp operations, in a fixed order (the map's is not).
  std::vector<const WarpGroup*> groups;
  for (const auto& entry : warp_groups_) groups.push_back(&entry.second);
  std::sort(groups.begin(), groups.end(), [](const WarpGroup* a, const WarpGroup* b) {
    return std::tie(a->warp, a->site) < std::tie(b->warp, b->site);
  });
  for (const WarpGroup* g : groups) {
    const uint32_t first_thread = g->warp * 32;
    const uint32_t lanes = std::min<uint32_t>(32, threads_ - first_thread);
    const uint32_t present = lanes >= 32 ? 0xffffffffu : (1u << lanes) - 1u;
    for (uint32_t lane = 0; lane < 32; ++lane) {
      if (!(g->callers >> lane & 1)) continue;
      const uint32_t mask = g->masks[lane];
      const Access caller = access_of(first_thread + lane, g->site);
      if (!(mask >> lane & 1)) {
        hazard(Hazard::WarpMaskSelf, caller, caller, 0, mask);
        continue;
      }
      const uint32_t left_out = g->callers & ~mask;
      const uint32_t absent = mask & present & ~g->callers;
      if (left_out) {
        const uint32_t other = static_cast<uint32_t>(__builtin_ctz(left_out));
        hazard(Hazard::WarpMaskMissing, caller, access_of(first_thread + other, g->site), 0, mask);
      } else if (absent) {
        const uint32_t other = first_thread + static_cast<uint32_t>(__builtin_ctz(absent));
        hazard(Hazard::WarpMaskExtra, caller, access_of(other, last_site_[other]), 0, mask);
      }
    }
  }
  in_block_ = false;
}

abi::RaceFindings RaceRecorder::finish() {
  if (in_block_) end_block();
  return std::move(findings_);
}

}  // namespace simt::cpu

extern "C" {

void simt_race_access(void* r, const void* base, const void* p, int64_t bytes, int kind, int site,
                      int64_t tx, int64_t ty, int64_t tz, int64_t bx, int64_t by, int64_t bz) {
  const int64_t t[3] = {tx, ty, tz}, b[3] = {bx, by, bz};
  static_cast<simt::cpu::RaceRecorder*>(r)->access(base, p, bytes, kind, site, t, b);
}

void simt_race_barrier(void* r, int site, int64_t tx, int64_t ty, int64_t tz, int64_t bx,
                       int64_t by, int64_t bz) {
  const int64_t t[3] = {tx, ty, tz}, b[3] = {bx, by, bz};
  static_cast<simt::cpu::RaceRecorder*>(r)->barrier(site, t, b);
}

void simt_race_block_barrier(void* r, int site, int64_t bx, int64_t by, int64_t bz) {
  const int64_t b[3] = {bx, by, bz};
  static_cast<simt::cpu::RaceRecorder*>(r)->block_barrier(site, b);
}

void simt_race_warp(void* r, int site, unsigned int mask, int64_t tx, int64_t ty, int64_t tz,
                    int64_t bx, int64_t by, int64_t bz) {
  const int64_t t[3] = {tx, ty, tz}, b[3] = {bx, by, bz};
  static_cast<simt::cpu::RaceRecorder*>(r)->warp(site, mask, t, b);
}

void simt_race_syncwarp(void* r, int site, unsigned int mask, int64_t tx, int64_t ty, int64_t tz,
                        int64_t bx, int64_t by, int64_t bz) {
  const int64_t t[3] = {tx, ty, tz}, b[3] = {bx, by, bz};
  static_cast<simt::cpu::RaceRecorder*>(r)->syncwarp(site, mask, t, b);
}

void simt_race_block_syncwarp(void* r, int site, int64_t bx, int64_t by, int64_t bz) {
  const int64_t b[3] = {bx, by, bz};
  static_cast<simt::cpu::RaceRecorder*>(r)->block_syncwarp(site, b);
}

int simt_race_reads_all(void* r) {
  return static_cast<simt::cpu::RaceRecorder*>(r)->all_reads() ? 1 : 0;
}

void simt_race_exit(void* r, int64_t tx, int64_t ty, int64_t tz, int64_t bx, int64_t by,
                    int64_t bz) {
  const int64_t t[3] = {tx, ty, tz}, b[3] = {bx, by, bz};
  static_cast<simt::cpu::RaceRecorder*>(r)->exit(t, b);
}
}
