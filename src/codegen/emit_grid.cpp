// The grid group (Numba's cuda.cg.this_grid()): a value without storage whose
// sync() makes every thread of the launch wait for all the others. Hardware
// dialects call their grid barrier; the CPU's regions end at it and call the
// runtime's barrier across the launch's blocks. A kernel that syncs the grid
// is cooperative: abi::Requirements::grid_sync names its first barrier.
#include "codegen/emitter_impl.h"

namespace simt::codegen::detail {

namespace {

constexpr const char* kBarrierName = "simt_grid_barrier";

}  // namespace

void Emitter::grid_sync(const Expr& call) {
  if (racecheck())
    fail_at(call.span,
            "racecheck=True cannot check a kernel that syncs the grid: a race-checked launch "
            "runs its blocks one after another, and they would wait for each other forever");
  if (!module_.grid_sync_use) module_.grid_sync_use = where(call);
  if (d_.grid_sync.empty()) return;  // rejected for the device (runtime::check_requirements)
  // The CPU's grid barrier waits once per block; a fiber-mode kernel reaches
  // it once per thread, which would let a thread pass before its block's
  // other threads arrived.
  if (module_.fibers)
    fail_at(call.span,
            "cuda.cg.this_grid().sync() can only be called in the kernel itself on the CPU, "
            "outside code whose barriers differ between threads (it ends a block's loops "
            "over its threads; CUDA devices take it anywhere)");
  if (!d_.grid_sync_helper.empty())
    helpers_.define_once("simt_grid_sync", std::string(d_.grid_sync_helper));
  line(std::string(d_.grid_sync) + ";");
}

void Emitter::region_grid_sync(const Expr& call) {
  if (racecheck())
    fail_at(call.span,
            "racecheck=True cannot check a kernel that syncs the grid: a race-checked launch "
            "runs its blocks one after another, and they would wait for each other forever");
  if (!module_.grid_sync_use) module_.grid_sync_use = where(call);
  line("// grid barrier: every block of the launch has run the code above");
  // A block the runtime stops (another faulted, or Ctrl-C) leaves here, so
  // no block waits for one that will never come.
  line("if (" + std::string(d_.grid_sync) + ") {");
  line("  free(simt_scratch);");
  line("  return;");
  line("}");
}

std::string Emitter::grid_barrier_param() const {
  if (!module_.grid_barrier || d_.grid_barrier_type.empty()) return "";
  return std::string(d_.global_space) + std::string(d_.grid_barrier_type) + " " + kBarrierName;
}

void Emitter::add_grid_barrier(std::vector<abi::Param>& slots, std::vector<std::string>& params) {
  std::string param = grid_barrier_param();
  if (param.empty()) return;
  abi::Param slot;
  slot.role = abi::Param::Role::GridBarrier;
  slot.argument = -1;
  slot.c_type = std::string(d_.global_space) + std::string(d_.grid_barrier_type);
  slots.push_back(slot);
  params.push_back(std::move(param));
}

bool x_position_only_from_grid(const sema::TypedFunction& kernel) {
  auto only_grid = [](const sema::TypedFunction& f) {
    for (const auto& [e, i] : f.exprs) {
      if (i.intrinsic &&
          (i.intrinsic->rule == sema::Rule::LaneId || i.intrinsic->rule == sema::Rule::GridSync))
        return false;
      if (e->kind != ExprKind::Attribute || e->name != "x") continue;
      auto base = f.exprs.find(e->items[0].get());
      if (base == f.exprs.end() || base->second.type.kind != TypeKind::Dim3) continue;
      const std::string& object = base->second.type.name;
      if (object == "thread_idx" || object == "block_idx") return false;
    }
    return true;
  };
  if (!only_grid(kernel)) return false;
  for (const auto& f : kernel.functions)
    if (!only_grid(f->typed)) return false;
  return true;
}

bool uses_grid_sync(const sema::TypedFunction& kernel) {
  auto syncs = [](const sema::TypedFunction& f) {
    for (const auto& [e, i] : f.exprs)
      if (i.intrinsic && i.intrinsic->rule == sema::Rule::GridSync) return true;
    return false;
  };
  if (syncs(kernel)) return true;
  for (const auto& f : kernel.functions)
    if (syncs(f->typed)) return true;
  return false;
}

}  // namespace simt::codegen::detail
