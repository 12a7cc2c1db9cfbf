// Shared arrays allocated in device functions, on OpenCL. CUDA declares a
// __shared__ variable in a __device__ function (one per block), and the CPU
// keeps it in fiber mode's per-block buffer; OpenCL C declares __local
// variables in kernels only. So there each such allocation is a slot: the
// kernel declares it, and every device function that reaches it (allocates
// it, or calls one that does) takes a pointer to it as a hidden parameter,
// named after the slot everywhere, so a call passes its own names on. One
// array per block and specialization, shared by all its calls, as in CUDA.
#include <algorithm>

#include "codegen/emitter_impl.h"

namespace simt::codegen::detail {

namespace {

bool is_shared_alloc(const sema::ExprInfo& i) {
  return i.intrinsic && i.intrinsic->rule == sema::Rule::ArrayAlloc &&
         i.type.space == sema::Space::Shared;
}

}  // namespace

void collect_shared_slots(const sema::TypedFunction& kernel, const Dialect& d, Module& m) {
  if (d.id != abi::Language::OpenCL) return;
  for (const auto& f : kernel.functions) {
    std::vector<const Expr*> allocs;
    for (const auto& [e, i] : f->typed.exprs)
      if (is_shared_alloc(i)) allocs.push_back(e);
    // In source order: the generated code does not depend on hashing.
    std::sort(allocs.begin(), allocs.end(), [](const Expr* a, const Expr* b) {
      return a->span.line != b->span.line ? a->span.line < b->span.line : a->span.col < b->span.col;
    });
    for (const Expr* e : allocs) m.shared_slots.push_back({f.get(), e});
  }
}

std::vector<size_t> Emitter::slots_reached(const sema::TypedFunction& f,
                                           const sema::TypedDeviceFunction* owner) const {
  std::vector<size_t> out;
  for (size_t k = 0; k < module_.shared_slots.size(); ++k)
    if (owner && module_.shared_slots[k].owner == owner) out.push_back(k);
  for (const sema::TypedDeviceFunction* callee : f.callees)
    for (size_t k : slots_reached(callee->typed, callee)) out.push_back(k);
  std::sort(out.begin(), out.end());
  out.erase(std::unique(out.begin(), out.end()), out.end());
  return out;
}

std::vector<std::string> Emitter::shared_slot_params() const {
  std::vector<std::string> params;
  for (size_t k : slots_reached(fn_, self_)) {
    const auto& slot = module_.shared_slots[k];
    const Type& t = slot.owner->typed.at(*slot.alloc).type;
    params.push_back(std::string(d_.shared_space) + helpers_.element_type(t) + "* " + slot_name(k));
  }
  return params;
}

std::vector<std::string> Emitter::shared_slot_args(const sema::TypedDeviceFunction& callee) const {
  std::vector<std::string> args;
  for (size_t k : slots_reached(callee.typed, &callee)) args.push_back(slot_name(k));
  return args;
}

void Emitter::declare_shared_slots() {
  for (size_t k = 0; k < module_.shared_slots.size(); ++k) {
    const auto& slot = module_.shared_slots[k];
    const sema::ExprInfo& i = slot.owner->typed.at(*slot.alloc);
    int64_t total = 1;
    for (int64_t n : i.shape) total *= n;
    prologue_ += "  " + std::string(d_.shared_decl) + helpers_.element_type(i.type) + " " +
                 slot_name(k) + "[" + std::to_string(total) + "];\n";
  }
}

std::optional<size_t> Emitter::shared_slot_of(const Expr& e) const {
  for (size_t k = 0; k < module_.shared_slots.size(); ++k)
    if (module_.shared_slots[k].owner == self_ && module_.shared_slots[k].alloc == &e) return k;
  return std::nullopt;
}

}  // namespace simt::codegen::detail
