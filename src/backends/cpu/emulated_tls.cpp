#include "backends/cpu/emulated_tls.h"

#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <cstdlib>
#include <cstring>
#include <mutex>
#include <vector>

namespace simt::cpu {

namespace {

// What the compiler emits for each thread-local variable (`__emutls_v.<name>`).
struct Control {
  size_t size;
  size_t align;
  uintptr_t index;      // 0 until the variable's first access anywhere; then its slot + 1
  const void* initial;  // null: zero-initialized
};

// One thread's copies, freed when the thread ends.
class Slots {
 public:
  // The slot at `index`, or null where there is none yet (no allocation).
  void* find(uintptr_t index) const {
    return index != 0 && index <= slots_.size() ? slots_[index - 1] : nullptr;
  }
  Slots() = default;
  Slots(const Slots&) = delete;
  Slots& operator=(const Slots&) = delete;
  ~Slots() {
    for (void* p : slots_) std::free(p);
  }
  void*& at(uintptr_t index) {
    if (index > slots_.size()) slots_.resize(index, nullptr);
    return slots_[index - 1];
  }

 private:
  std::vector<void*> slots_;
};

std::mutex g_index_mutex;
uintptr_t g_indices = 0;  // slots handed out so far (under the mutex)
thread_local Slots t_slots;
// This thread's slots, once it has any: initial-exec, so the lookup's fast path
// reads it without a call (t_slots, with its destructor, goes through a TLS wrapper).
thread_local Slots* t_fast __attribute__((tls_model("initial-exec"))) = nullptr;

uintptr_t index_of(Control* control) {
  uintptr_t index = __atomic_load_n(&control->index, __ATOMIC_ACQUIRE);
  if (index != 0) return index;
  std::lock_guard lock(g_index_mutex);
  index = __atomic_load_n(&control->index, __ATOMIC_RELAXED);
  if (index == 0) {
    index = ++g_indices;
    __atomic_store_n(&control->index, index, __ATOMIC_RELEASE);
  }
  return index;
}

}  // namespace

void* emulated_tls_address(void* control_pointer) {
  auto* control = static_cast<Control*>(control_pointer);
  if (t_fast) {
    if (void* found = t_fast->find(__atomic_load_n(&control->index, __ATOMIC_ACQUIRE)))
      return found;
  }
  t_fast = &t_slots;
  void*& slot = t_slots.at(index_of(control));
  if (slot) return slot;
  const size_t align = std::max<size_t>(control->align, sizeof(void*));
  const size_t bytes = (std::max<size_t>(control->size, 1) + align - 1) / align * align;
  slot = std::aligned_alloc(align, bytes);
  if (!slot) return nullptr;
  if (control->initial)
    std::memcpy(slot, control->initial, control->size);
  else
    std::memset(slot, 0, bytes);
  return slot;
}

}  // namespace simt::cpu
