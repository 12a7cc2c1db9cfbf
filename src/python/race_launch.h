// A race-checked launch (kernels built with racecheck=True, cpu device only):
// the recorder the kernel reports to (backends/cpu/race_recorder.h), made for
// the launch's geometry, and what its findings become in Python:
// simt.RaceError, or a simt.RaceWarning where the kernel asked for warnings.
#pragma once

#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include "abi/race_report.h"
#include "backends/cpu/race_recorder.h"
#include "runtime/device.h"

namespace simt::python {

// What a kernel does with the hazards a checked launch finds.
enum class RaceMode : int { Off = 0, Raise = 1, Warn = 2 };

std::unique_ptr<cpu::RaceRecorder> make_race_recorder(const runtime::LaunchDims& dims);

// The bytes an array argument spans, and whether the kernel skips reports of
// its accesses (abi::GeneratedKernel::race_unwritten, race_own).
struct ArrayMemory {
  uintptr_t begin = 0, end = 0;
  bool unwritten = false;
};

// Whether an array whose accesses the kernel skips shares bytes with another
// array argument: they may then race with accesses through the other, and the
// recorder must hear of them (cpu::RaceRecorder::report_all_reads).
bool unwritten_arrays_shared(const std::vector<ArrayMemory>& arrays);

// Raises simt.RaceError (Warn: issues simt.RaceWarning) for what `recorder`
// found in kernel `kernel_name`, whose race sites are `sites`; nothing when it
// found nothing. The launch must have ended.
void report_races(cpu::RaceRecorder& recorder, const std::vector<abi::RaceSite>& sites,
                  const std::string& kernel_name, RaceMode mode);

}  // namespace simt::python
