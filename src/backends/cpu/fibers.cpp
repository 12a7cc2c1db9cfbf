#include "backends/cpu/fibers.h"

#include <signal.h>
#include <sys/mman.h>
#include <unistd.h>

#include <algorithm>
#include <bit>
#include <cstddef>
#include <cstdint>
#include <cstdio>
#include <cstring>
#include <vector>

#include "backends/cpu/fault_guard.h"
#include "backends/cpu/fiber_switch.h"

namespace simt::cpu {

namespace {

using abi::CpuBarrierKind;
using abi::CpuBlockContext;
using abi::CpuFiberKind;
using abi::CpuFiberOp;

constexpr int64_t kWarpSize = 32;

size_t page_size() {
  static const size_t size = static_cast<size_t>(sysconf(_SC_PAGESIZE));
  return size;
}

size_t round_up(size_t n, size_t to) { return (n + to - 1) / to * to; }

// The stacks of one worker thread's fibers: one mapping, each stack with an
// inaccessible guard page below it, so an overflow faults (fault_guard.h)
// rather than writing over the next stack. Kept from block to block and
// grown when a block needs more or larger stacks; pages a fiber never
// touched cost no memory (MAP_NORESERVE).
class StackPool {
 public:
  StackPool() = default;
  StackPool(const StackPool&) = delete;
  StackPool& operator=(const StackPool&) = delete;
  ~StackPool() { release(); }

  // False when the memory cannot be mapped.
  bool reserve(int64_t count, int64_t bytes) {
    const size_t page = page_size();
    const size_t want = round_up(static_cast<size_t>(bytes), page);
    if (count <= count_ && want <= stack_bytes_) return true;
    const int64_t new_count = std::max(count, count_);
    const size_t new_bytes = std::max(want, stack_bytes_);
    release();
    const size_t stride = new_bytes + page;
    const size_t total = stride * static_cast<size_t>(new_count);
    void* memory = mmap(nullptr, total, PROT_READ | PROT_WRITE,
                        MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE | MAP_STACK, -1, 0);
    if (memory == MAP_FAILED) return false;
    base_ = static_cast<unsigned char*>(memory);
    for (int64_t k = 0; k < new_count; ++k)
      if (mprotect(base_ + static_cast<size_t>(k) * stride, page, PROT_NONE) != 0) {
        munmap(base_, total);
        base_ = nullptr;
        return false;
      }
    count_ = new_count;
    stack_bytes_ = new_bytes;
    return true;
  }

  // The highest address of stack k (16-byte aligned: pages are).
  void* top(int64_t k) const {
    return base_ + static_cast<size_t>(k + 1) * (stack_bytes_ + page_size());
  }

 private:
  void release() {
    if (base_) munmap(base_, static_cast<size_t>(count_) * (stack_bytes_ + page_size()));
    base_ = nullptr;
    count_ = 0;
    stack_bytes_ = 0;
  }

  unsigned char* base_ = nullptr;
  int64_t count_ = 0;
  size_t stack_bytes_ = 0;
};

// The signal handler of a fault must not run on the stack that overflowed:
// each thread running fibers gets an alternate signal stack (the handlers
// are SA_ONSTACK), unless it has one already (Python's faulthandler, say).
class AltStack {
 public:
  AltStack() = default;
  AltStack(const AltStack&) = delete;
  AltStack& operator=(const AltStack&) = delete;
  ~AltStack() {
    if (!memory_) return;
    stack_t current{};
    if (sigaltstack(nullptr, &current) == 0 && current.ss_sp == memory_) {
      stack_t off{};
      off.ss_flags = SS_DISABLE;
      sigaltstack(&off, nullptr);
    }
    munmap(memory_, bytes_);
  }

  void ensure() {
    if (checked_) return;
    checked_ = true;
    stack_t current{};
    if (sigaltstack(nullptr, &current) == 0 && !(current.ss_flags & SS_DISABLE)) return;
    bytes_ = std::max<size_t>(64 * 1024, round_up(SIGSTKSZ, page_size()));
    void* memory =
        mmap(nullptr, bytes_, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
    if (memory == MAP_FAILED) return;  // a fault then ends the process, as before fibers
    stack_t ours{};
    ours.ss_sp = memory;
    ours.ss_size = bytes_;
    if (sigaltstack(&ours, nullptr) != 0) {
      munmap(memory, bytes_);
      return;
    }
    memory_ = memory;
  }

 private:
  bool checked_ = false;
  void* memory_ = nullptr;
  size_t bytes_ = 0;
};

enum class State : uint8_t { Ready, AtBarrier, AtWarp, Exited };

struct Fiber {
  void* sp = nullptr;
  State state = State::Ready;
  int barrier_kind = 0;
  int pred = 0;
  int result = 0;            // the barrier's reduction
  CpuFiberOp* op = nullptr;  // while waiting at a warp operation
};

// One per OS thread that runs fiber blocks, kept between blocks. Everything
// a block's run needs lives here rather than in run_block's frame: a fault
// jumps out of that frame (fault_guard.h) without running destructors.
struct Worker {
  StackPool stacks;
  AltStack alt_stack;
  std::vector<Fiber> fibers;
  CpuBlockContext block{};
  abi::CpuThreadFunction thread = nullptr;
  void* user = nullptr;
  void* main_sp = nullptr;  // the scheduler's context while a fiber runs
  int64_t current = 0;
};

thread_local Worker t_worker;
// The worker running a block on this thread; initial-exec, so the barrier
// and warp calls read it without a TLS wrapper.
thread_local Worker* t_running __attribute__((tls_model("initial-exec"))) = nullptr;

void resume(Worker& w, int64_t t) {
  w.current = t;
  simt_fiber_switch(&w.main_sp, w.fibers[static_cast<size_t>(t)].sp);
}

void suspend(Worker& w, Fiber& f) { simt_fiber_switch(&f.sp, w.main_sp); }

[[noreturn]] void fiber_main() {
  Worker& w = *t_running;
  const int64_t t = w.current;
  w.thread(&w.block, w.user, t);
  Fiber& f = w.fibers[static_cast<size_t>(t)];
  f.state = State::Exited;
  suspend(w, f);
  __builtin_unreachable();  // an exited fiber is never resumed
}

// The source lane of a shuffle for lane `lane`; `lane` itself when the
// source is outside the warp (CUDA's rule) or negative.
int64_t shuffle_source(CpuFiberKind kind, int64_t lane, int64_t arg) {
  int64_t src = lane;
  switch (kind) {
    case CpuFiberKind::ShflIdx:
      src = arg & (kWarpSize - 1);
      break;
    case CpuFiberKind::ShflUp:
      src = lane - arg;
      break;
    case CpuFiberKind::ShflDown:
      src = lane + arg;
      break;
    default:
      src = lane ^ arg;
      break;
  }
  return arg < 0 || src < 0 || src >= kWarpSize ? lane : src;
}

// Completes the warp operation at `site` for the lanes of warp [begin, end)
// waiting there. Lanes not taking part (exited, elsewhere, outside the
// warp) give a shuffle the reader's own value and are absent from votes and
// matches.
void complete_warp_op(Worker& w, int64_t begin, int64_t end, int site) {
  Fiber* lanes = w.fibers.data() + begin;
  const int64_t n = end - begin;
  uint32_t members = 0, votes = 0;
  for (int64_t l = 0; l < n; ++l) {
    if (lanes[l].state != State::AtWarp || lanes[l].op->site != site) continue;
    members |= 1u << l;
    if (lanes[l].op->pred) votes |= 1u << l;
  }
  for (int64_t l = 0; l < n; ++l) {
    if (!(members >> l & 1u)) continue;
    CpuFiberOp& op = *lanes[l].op;
    const auto kind = static_cast<CpuFiberKind>(op.kind);
    const uint32_t named = op.mask & members;
    switch (kind) {
      case CpuFiberKind::ShflIdx:
      case CpuFiberKind::ShflUp:
      case CpuFiberKind::ShflDown:
      case CpuFiberKind::ShflXor: {
        int64_t src = shuffle_source(kind, l, op.lane);
        if (!(members >> src & 1u)) src = l;
        std::memcpy(op.result, lanes[src].op->value, sizeof op.result);
        break;
      }
      case CpuFiberKind::Ballot:
        op.result[0] = votes & named;
        break;
      case CpuFiberKind::All:
        op.result[0] = (votes & named) == named;
        break;
      case CpuFiberKind::Any:
        op.result[0] = (votes & named) != 0;
        break;
      case CpuFiberKind::ActiveMask:
        op.result[0] = members;
        break;
      case CpuFiberKind::MatchAny:
      case CpuFiberKind::MatchAll: {
        uint32_t same = 0;
        for (int64_t k = 0; k < n; ++k)
          if ((named >> k & 1u) && std::memcmp(lanes[k].op->value, op.value, sizeof op.value) == 0)
            same |= 1u << k;
        if (kind == CpuFiberKind::MatchAny) {
          op.result[0] = same;
        } else {
          op.pred = same == named;
          op.result[0] = same == named ? named : 0;
        }
        break;
      }
      case CpuFiberKind::SyncWarp:
        break;
    }
  }
  for (int64_t l = 0; l < n; ++l)
    if (members >> l & 1u) lanes[l].state = State::Ready;
}

// The call site whose warp operation completes next, among the lanes of
// warp [begin, end) waiting at one (-1: none waits). A site is ready when
// every lane its waiting lanes name in their masks waits there too, or has
// exited, or waits at a block barrier (CUDA's *_sync contract); the ready
// site of the lowest lane goes first. When no site is ready (a mask names a
// lane waiting at another site), the lowest waiting lane's site goes anyway:
// that would hang a GPU.
int next_site(const Worker& w, int64_t begin, int64_t end) {
  const Fiber* lanes = w.fibers.data() + begin;
  const int64_t n = end - begin;
  uint32_t waiting_anywhere = 0;
  for (int64_t l = 0; l < n; ++l)
    if (lanes[l].state == State::AtWarp) waiting_anywhere |= 1u << l;
  if (!waiting_anywhere) return -1;
  uint32_t tried = 0;
  for (int64_t l = 0; l < n; ++l) {
    if (!(waiting_anywhere >> l & 1u) || (tried >> l & 1u)) continue;
    const int site = lanes[l].op->site;
    uint32_t here = 0, named = 0;
    for (int64_t k = l; k < n; ++k) {
      if (!(waiting_anywhere >> k & 1u) || lanes[k].op->site != site) continue;
      here |= 1u << k;
      named |= lanes[k].op->mask;
    }
    tried |= here;
    if ((named & waiting_anywhere & ~here) == 0) return site;
  }
  return lanes[std::countr_zero(waiting_anywhere)].op->site;
}

// Runs the lanes of one warp until each waits at a block barrier or has
// exited, completing its warp operations on the way.
void run_warp(Worker& w, int64_t begin, int64_t end) {
  for (;;) {
    for (int64_t t = begin; t < end; ++t)
      if (w.fibers[static_cast<size_t>(t)].state == State::Ready) resume(w, t);
    const int site = next_site(w, begin, end);
    if (site < 0) return;
    complete_warp_op(w, begin, end, site);
  }
}

void schedule(Worker& w, int64_t threads) {
  for (;;) {
    for (int64_t begin = 0; begin < threads; begin += kWarpSize)
      run_warp(w, begin, std::min(threads, begin + kWarpSize));
    // Every thread now waits at a block barrier or has exited.
    int waiting = 0, count = 0;
    for (const Fiber& f : w.fibers) {
      if (f.state != State::AtBarrier) continue;
      ++waiting;
      count += f.pred != 0;
    }
    if (waiting == 0) return;
    for (Fiber& f : w.fibers) {
      if (f.state != State::AtBarrier) continue;
      switch (static_cast<CpuBarrierKind>(f.barrier_kind)) {
        case CpuBarrierKind::Sync:
          f.result = 0;
          break;
        case CpuBarrierKind::Count:
          f.result = count;
          break;
        case CpuBarrierKind::And:
          f.result = count == waiting;
          break;
        case CpuBarrierKind::Or:
          f.result = count != 0;
          break;
      }
      f.state = State::Ready;
    }
  }
}

void run_block(const CpuBlockContext* ctx, abi::CpuThreadFunction thread, void* user,
               int64_t stack_bytes) {
  Worker& w = t_worker;
  w.alt_stack.ensure();
  const int64_t threads = ctx->block_dim[0] * ctx->block_dim[1] * ctx->block_dim[2];
  if (!w.stacks.reserve(threads, stack_bytes)) {
    // Only trivially destructible objects here: abandon_block leaves this frame.
    char reason[128];
    std::snprintf(reason, sizeof reason,
                  "no memory for the stacks of its %lld threads (%lld bytes each)",
                  static_cast<long long>(threads), static_cast<long long>(stack_bytes));
    abandon_block(reason);
  }
  w.block = *ctx;
  w.thread = thread;
  w.user = user;
  w.fibers.assign(static_cast<size_t>(threads), Fiber{});
  for (int64_t t = 0; t < threads; ++t)
    w.fibers[static_cast<size_t>(t)].sp = fiber_prepare(w.stacks.top(t), fiber_main);
  t_running = &w;
  schedule(w, threads);
  t_running = nullptr;
}

int barrier(const CpuBlockContext*, int kind, int pred) {
  Worker& w = *t_running;
  Fiber& f = w.fibers[static_cast<size_t>(w.current)];
  f.state = State::AtBarrier;
  f.barrier_kind = kind;
  f.pred = pred;
  suspend(w, f);
  return f.result;
}

void warp(const CpuBlockContext*, CpuFiberOp* op) {
  Worker& w = *t_running;
  Fiber& f = w.fibers[static_cast<size_t>(w.current)];
  f.state = State::AtWarp;
  f.op = op;
  suspend(w, f);
}

constexpr abi::CpuFiberApi kApi{run_block, barrier, warp};

}  // namespace

const abi::CpuFiberApi* fiber_api() { return &kApi; }

}  // namespace simt::cpu
