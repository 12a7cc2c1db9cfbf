// Race-checked launches (racecheck=True, cpu device): the places the
// instrumented code reports to the recorder, the hazards the recorder finds,
// and the report the host raises. Codegen numbers the sites
// (src/codegen/emit_race.cpp), the CPU backend's recorder finds the hazards
// (src/backends/cpu/race_recorder.cpp), the launch path turns them into
// simt.RaceError (src/python/dispatch.cpp); this header is what all three
// share.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "abi/source_map.h"

namespace simt::abi {

// One instrumented place of the user's code: an access of a shared or global
// array element, a barrier, a warp operation, a `return` of the kernel.
struct RaceSite {
  enum class Kind : uint8_t { Read = 0, Write = 1, Atomic = 2, Barrier = 3, Warp = 4, Exit = 5 };
  Kind kind = Kind::Read;
  bool shared = false;  // accesses: a shared array (else global)
  PythonLine where;     // the statement; `column`: the access or the call
  std::string what;     // the array's source text; the intrinsic's name
};

// Added to an access's kind where the generated code reports it: the
// element is a shared array's.
inline constexpr int kRaceSharedBit = 16;

// One thread of the launch, as the report names it.
struct RaceThread {
  int64_t thread[3] = {0, 0, 0};
  int64_t block[3] = {0, 0, 0};
};

// A hazard between two threads: for memory, `first` is the earlier access
// (the kind says which is which: a write-read race is a write by `first`, a
// read by `second`); for barriers and warp operations, `first` reached the
// call and `second` did not, or called it differently.
struct RaceHazard {
  enum class Kind : uint8_t {
    WriteWrite,
    ReadWrite,
    WriteRead,
    AtomicWrite,       // an atomic, then a plain write
    WriteAtomic,       // a plain write, then an atomic
    DivergentBarrier,  // `first` waited at site_a; `second` ended without it
    BarrierMismatch,   // the same barrier count, different syncthreads() calls
    WarpMaskMissing,   // `first` calls with a mask that leaves out `second`, which calls too
    WarpMaskExtra,     // `first`'s mask names `second`, which does not call
    WarpMaskSelf,      // `first`'s mask leaves `first` itself out
  };
  Kind kind = Kind::WriteWrite;
  int site_a = -1;  // first's site
  int site_b = -1;  // second's site (-1: none, e.g. a thread that made no access)
  int64_t element = 0;
  uint32_t mask = 0;  // warp hazards: first's mask
  RaceThread first, second;
};

// What a launch found: the first hazards of distinct kinds and site pairs,
// in the order found, and how many conflicting accesses there were in all.
struct RaceFindings {
  std::vector<RaceHazard> hazards;
  int64_t total = 0;
};

// The text of the report (nothing when no hazard was found): the first
// hazard in full, then a line per further one, up to `shown`.
std::string format_race_report(const RaceFindings& findings, const std::vector<RaceSite>& sites,
                               const std::string& kernel_name, size_t shown = 8);

}  // namespace simt::abi
