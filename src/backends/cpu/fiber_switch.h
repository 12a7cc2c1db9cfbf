// A user-space context switch for the CPU backend's fibers: the callee-saved
// registers and the stack pointer, nothing else. swapcontext also saves and
// restores the signal mask, a system call per switch; a block barrier in
// fiber mode is two switches per thread, so that cost would dominate.
//
// The floating-point control state (x86 MXCSR and x87 control word, AArch64
// FPCR) is not switched: every fiber of a block runs generated code on one
// OS thread, and none of it changes that state.
#pragma once

#include <cstddef>

namespace simt::cpu {

// Saves the running context's registers on its stack and its stack pointer
// in *save, then resumes the context whose stack pointer is `resume`.
extern "C" void simt_fiber_switch(void** save, void* resume);

// Prepares a stack (its highest address `top`, 16-byte aligned) so that the
// first switch to the returned stack pointer calls `entry()`, which must
// never return.
void* fiber_prepare(void* top, void (*entry)());

}  // namespace simt::cpu
