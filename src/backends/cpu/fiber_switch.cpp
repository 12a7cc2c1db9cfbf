#include "backends/cpu/fiber_switch.h"

#include <cstdint>

// simt_fiber_switch(void** save, void* resume). The frame it leaves on the
// suspended stack is what fiber_prepare() builds for a new fiber.
#if defined(__x86_64__)

// System V: rbx, rbp, r12-r15 are callee-saved (no vector registers are).
// Frame, from the saved stack pointer up: r15 r14 r13 r12 rbx rbp, return address.
asm(R"(
  .text
  .globl simt_fiber_switch
  .hidden simt_fiber_switch
  .type simt_fiber_switch, @function
  .p2align 4
simt_fiber_switch:
  pushq %rbp
  pushq %rbx
  pushq %r12
  pushq %r13
  pushq %r14
  pushq %r15
  movq %rsp, (%rdi)
  movq %rsi, %rsp
  popq %r15
  popq %r14
  popq %r13
  popq %r12
  popq %rbx
  popq %rbp
  ret
  .size simt_fiber_switch, .-simt_fiber_switch
)");

namespace simt::cpu {

void* fiber_prepare(void* top, void (*entry)()) {
  auto* sp = static_cast<uintptr_t*>(top);
  *--sp = 0;  // entry's return address: never used, and it keeps rsp = 8 (mod 16) at entry
  *--sp = reinterpret_cast<uintptr_t>(entry);  // where the switch's `ret` goes
  for (int k = 0; k < 6; ++k) *--sp = 0;       // rbp rbx r12 r13 r14 r15
  return sp;
}

}  // namespace simt::cpu

#elif defined(__aarch64__)

// AAPCS64: x19-x28, the frame pointer x29, the link register x30 and the low
// halves of v8-v15 (d8-d15) are callee-saved. Frame of 160 bytes: x19..x30
// at 0..95, d8..d15 at 96..159.
asm(R"(
  .text
  .globl simt_fiber_switch
  .hidden simt_fiber_switch
  .type simt_fiber_switch, %function
  .p2align 4
simt_fiber_switch:
  sub sp, sp, #160
  stp x19, x20, [sp, #0]
  stp x21, x22, [sp, #16]
  stp x23, x24, [sp, #32]
  stp x25, x26, [sp, #48]
  stp x27, x28, [sp, #64]
  stp x29, x30, [sp, #80]
  stp d8, d9, [sp, #96]
  stp d10, d11, [sp, #112]
  stp d12, d13, [sp, #128]
  stp d14, d15, [sp, #144]
  mov x9, sp
  str x9, [x0]
  mov sp, x1
  ldp x19, x20, [sp, #0]
  ldp x21, x22, [sp, #16]
  ldp x23, x24, [sp, #32]
  ldp x25, x26, [sp, #48]
  ldp x27, x28, [sp, #64]
  ldp x29, x30, [sp, #80]
  ldp d8, d9, [sp, #96]
  ldp d10, d11, [sp, #112]
  ldp d12, d13, [sp, #128]
  ldp d14, d15, [sp, #144]
  add sp, sp, #160
  ret
  .size simt_fiber_switch, .-simt_fiber_switch
)");

namespace simt::cpu {

void* fiber_prepare(void* top, void (*entry)()) {
  auto* sp = static_cast<uintptr_t*>(top) - 20;  // 160 bytes, all zero but x30
  for (int k = 0; k < 20; ++k) sp[k] = 0;
  sp[11] = reinterpret_cast<uintptr_t>(entry);  // x30: where the switch's `ret` goes
  return sp;
}

}  // namespace simt::cpu

#else
#error \
    "simt's CPU fibers need a context switch for this architecture (backends/cpu/fiber_switch.cpp)"
#endif
