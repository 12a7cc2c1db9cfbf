// Faults in CPU kernels end the launch, not the process. A kernel indexing
// past an array's end may land on an unmapped page: SIGSEGV (or SIGBUS) in
// the thread running the block. Kernels run on simt's threads and on the
// caller's, so simt handles those two signals process-wide; a fault in a
// thread that is running a block jumps back to where that block started,
// and the launch raises DeviceError. Any other fault goes to the handler
// installed before simt's (Python's faulthandler, a debugger's), or ends the
// process as it would have without simt.
//
// Local arrays lie next to the runtime's own memory (the worker's stack
// frames, the heap), so the generated code checks their indices and an
// overrun ends the block here too (simt_index_fault), before it writes.
// Shared arrays have memory of their own between guard pages
// (shared_arena.h): an overrun stays in it or faults.
//
// What remains undefined (docs/architecture.md, "Faults in CPU kernels"):
// writes past a global array that land on mapped memory corrupt it without
// a fault; a block stopped by a fault leaves its writes half done and its
// per-thread scratch allocated. boundscheck=True catches both.
#pragma once

#include <cstdint>

#include "abi/cpu_entry.h"

namespace simt::cpu {

struct Fault {
  int signal = 0;         // SIGSEGV or SIGBUS; 0: abandoned (abandon_block, simt_index_fault)
  uintptr_t address = 0;  // the address the kernel touched
  bool overrun = false;   // an index outside a local array (`reason` says which)
  char reason[192] = {};  // why the runtime abandoned the block
};

// Installs the handlers (once per process; later calls do nothing).
void install_fault_handlers();

// Ends the block running on this thread as a fault does, for a failure the
// runtime meets inside it (no memory for a fiber block's stacks): the launch
// raises DeviceError with `reason`. Without a block running, aborts.
[[noreturn]] void abandon_block(const char* reason);

// Runs one block; false when it faulted (`fault` then says how). Cheap
// enough to call per block: no system call.

bool run_block_guarded(abi::CpuKernelEntry entry, const abi::CpuBlockContext* ctx,
                       void* const* args, Fault* fault);

}  // namespace simt::cpu

// What the generated code calls for an index outside a local array's axis
// of `n` elements: ends the block as abandon_block does. Outside a block,
// aborts.
extern "C" [[noreturn]] void simt_index_fault(int64_t index, int64_t n);
