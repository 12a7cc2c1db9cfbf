// Thread-local variables of JIT-compiled code. The ORC JIT links code without
// ORC's own runtime, so it cannot place native TLS; Clang's emulated TLS
// (ClangJit: TargetOptions::EmulatedTLS) instead lowers each access to a call
// of `__emutls_get_address(&control)`, which ClangJit resolves to this
// function. Each variable gets a slot per OS thread, allocated on the
// thread's first access (zeroed, or copied from the variable's initial
// value) and freed when the thread ends.
#pragma once

namespace simt::cpu {

// The address of this OS thread's copy of the variable `control` describes
// (the layout compiler-rt and libgcc share: size, alignment, index, initial
// value). Null when its memory cannot be allocated.
void* emulated_tls_address(void* control);

}  // namespace simt::cpu
