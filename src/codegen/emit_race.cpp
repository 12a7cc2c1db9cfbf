// Race-checked kernels (EmitOptions::racecheck, the CPU dialect only): each
// access of a shared or global array element, each barrier, each warp
// operation and each `return` of the kernel calls the launch's recorder
// (backends/cpu/race_recorder.h) with its site (abi::RaceSite) and the
// calling thread, before it happens. The recorder keeps the last accesses of
// every element and finds the hazards; the code itself runs as unchecked
// code would, so a clean kernel's results are the same.
#include "codegen/emitter_impl.h"

namespace simt::codegen::detail {

namespace {

// The recorder's entry points are runtime symbols of the JIT
// (backends/cpu/clang_jit.cpp); simt_race_ref reports an element and hands
// back the same lvalue, so an access keeps its place in its expression (the
// right side of an assignment is evaluated before its target: reads first).
constexpr const char* kRaceHooks =
    R"(extern "C" void simt_race_access(void*, const void*, const void*, simt_i64, int, int,
    simt_i64, simt_i64, simt_i64, simt_i64, simt_i64, simt_i64);
extern "C" void simt_race_barrier(void*, int, simt_i64, simt_i64, simt_i64, simt_i64, simt_i64,
    simt_i64);
extern "C" void simt_race_block_barrier(void*, int, simt_i64, simt_i64, simt_i64);
extern "C" void simt_race_warp(void*, int, unsigned int, simt_i64, simt_i64, simt_i64, simt_i64,
    simt_i64, simt_i64);
extern "C" void simt_race_syncwarp(void*, int, unsigned int, simt_i64, simt_i64, simt_i64,
    simt_i64, simt_i64, simt_i64);
extern "C" void simt_race_block_syncwarp(void*, int, simt_i64, simt_i64, simt_i64);
extern "C" int simt_race_reads_all(void*);
extern "C" void simt_race_exit(void*, simt_i64, simt_i64, simt_i64, simt_i64, simt_i64,
    simt_i64);
template <class T>
static inline T& simt_race_ref(void* r, const void* base, T& ref, int kind, int site,
    simt_i64 tx, simt_i64 ty, simt_i64 tz, simt_i64 bx, simt_i64 by, simt_i64 bz) {
  simt_race_access(r, base, (const void*)&ref, (simt_i64)sizeof(T), kind, site, tx, ty, tz, bx,
                   by, bz);
  return ref;
}
)";

}  // namespace

bool Emitter::racecheck() const { return options_.racecheck && d_.id == abi::Language::Cpp; }

int Emitter::race_site(abi::RaceSite::Kind kind, const lang::Span& span, std::string what,
                       bool shared) {
  helpers_.define_once("simt_race_ref", kRaceHooks);
  abi::RaceSite site;
  site.kind = kind;
  site.shared = shared;
  site.what = std::move(what);
  site.where = fn_.python_line(span);
  module_.race_sites.push_back(std::move(site));
  return static_cast<int>(module_.race_sites.size() - 1);
}

std::string Emitter::race_ref(const std::string& ref, const std::string& a, const Expr& array,
                              abi::RaceSite::Kind kind) {
  if (!racecheck()) return ref;
  const sema::Space space = info(array).type.space;
  if (space != sema::Space::Shared && space != sema::Space::Global) return ref;
  const bool shared = space == sema::Space::Shared;
  int site = race_site(kind, array.span, source_text(array.span), shared);
  std::string reported =
      "simt_race_ref(simt_race, (const void*)" + a + ".data, " + ref + ", " +
      std::to_string(static_cast<int>(kind) + (shared ? abi::kRaceSharedBit : 0)) + ", " +
      std::to_string(site) + thread_and_block() + ")";
  if (!race_unreported(array, kind)) return reported;
  // No thread writes this array (then its reads), or each thread touches its
  // own element (then every access): they race only with accesses through
  // another argument that shares its memory, or where threads share
  // simt.grid(1), which the launch tells (simt_race_reads_all).
  if (!race_all_declared_) {
    prologue_ += "  const int simt_race_all = simt_race_reads_all(simt_race);\n";
    race_all_declared_ = true;
  }
  return "(simt_race_all ? " + reported + " : " + ref + ")";
}

bool Emitter::race_unreported(const Expr& array, abi::RaceSite::Kind kind) {
  if (self_ || array.kind != ExprKind::Name) return false;  // the kernel's own accesses only
  if (!race_unwritten_) race_unwritten_ = passes::unwritten_array_params(fn_);
  if (!race_own_) race_own_ = passes::own_element_params(fn_);
  const int local = info(array).local;
  if (local < 0 || static_cast<size_t>(local) >= race_own_->size()) return false;
  const auto p = static_cast<size_t>(local);
  return (*race_own_)[p] || (kind == abi::RaceSite::Kind::Read && (*race_unwritten_)[p]);
}

void Emitter::race_block_barrier(const Expr& call, bool warp) {
  if (!racecheck()) return;
  int site = race_site(warp ? abi::RaceSite::Kind::Warp : abi::RaceSite::Kind::Barrier, call.span,
                       source_text(call.span));
  std::string blocks;
  for (int c = 0; c < 3; ++c) blocks += ", " + index_value(IndexObject::BlockIdx, c);
  line(std::string(warp ? "simt_race_block_syncwarp" : "simt_race_block_barrier") + "(simt_race, " +
       std::to_string(site) + blocks + ");");
}

std::string Emitter::race_syncwarp(const Expr& call, const std::string& mask) {
  if (!racecheck()) return "";
  int site = race_site(abi::RaceSite::Kind::Warp, call.span, source_text(call.items[0]->span));
  return "simt_race_syncwarp(simt_race, " + std::to_string(site) + ", (unsigned int)(" + mask +
         ")" + thread_and_block() + ")";
}

std::string Emitter::race_barrier(const Expr& call) {
  if (!racecheck()) return "";
  int site = race_site(abi::RaceSite::Kind::Barrier, call.span, source_text(call.span));
  return "simt_race_barrier(simt_race, " + std::to_string(site) + thread_and_block() + ")";
}

std::string Emitter::race_warp(const Expr& call, const std::string& mask) {
  if (!racecheck()) return "";
  // Named by what the call calls (`cuda.shfl_down_sync`), not its arguments.
  int site = race_site(abi::RaceSite::Kind::Warp, call.span, source_text(call.items[0]->span));
  return "simt_race_warp(simt_race, " + std::to_string(site) + ", (unsigned int)(" + mask + ")" +
         thread_and_block() + ")";
}

std::string Emitter::race_warp_call(const Expr& call, const std::string& code) {
  if (!racecheck() || !module_.fibers || call.items.size() < 2) return code;
  return "(" + race_warp(call, emit_as(*call.items[1], Type::scalar_of(Scalar::UInt32))) + ", " +
         code + ")";
}

void Emitter::race_exit(const Stmt& s) {
  if (!racecheck() || self_) return;  // a device function's return leaves only the function
  (void)s;
  line("simt_race_exit(simt_race" + thread_and_block() + ");");
}

void Emitter::add_race_recorder(std::vector<abi::Param>& slots, std::vector<std::string>& params) {
  if (!racecheck()) return;
  // What the launch compares: may an unwritten array share memory with one
  // that is written (abi::GeneratedKernel::race_unwritten)?
  if (!race_unwritten_) race_unwritten_ = passes::unwritten_array_params(fn_);
  if (!race_own_) race_own_ = passes::own_element_params(fn_);
  module_.race_unwritten = *race_unwritten_;
  module_.race_own = *race_own_;
  abi::Param slot;
  slot.role = abi::Param::Role::RaceRecorder;
  slot.argument = -1;
  slot.c_type = "void*";
  slots.push_back(slot);
  params.push_back("void* simt_race");
}

}  // namespace simt::codegen::detail
