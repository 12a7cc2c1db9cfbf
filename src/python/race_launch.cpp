#include "python/race_launch.h"

#include <Python.h>
#include <nanobind/nanobind.h>

#include <stdexcept>

namespace simt::python {

// The recorder is built with the cpu backend (src/backends/cpu); without it
// no device compiles a race-checked kernel (Dispatcher::build refuses every
// other device), so these are never reached.
std::unique_ptr<cpu::RaceRecorder> make_race_recorder(const runtime::LaunchDims& dims) {
#ifdef SIMT_HAVE_CPU_BACKEND
  return std::make_unique<cpu::RaceRecorder>(dims.grid.data(), dims.block.data());
#else
  (void)dims;
  throw std::logic_error("a race-checked launch without the cpu backend");
#endif
}

bool unwritten_arrays_shared(const std::vector<ArrayMemory>& arrays) {
  for (size_t i = 0; i < arrays.size(); ++i) {
    if (!arrays[i].unwritten) continue;
    for (size_t j = 0; j < arrays.size(); ++j)
      if (j != i && arrays[i].begin < arrays[j].end && arrays[j].begin < arrays[i].end) return true;
  }
  return false;
}

void report_races(cpu::RaceRecorder& recorder, const std::vector<abi::RaceSite>& sites,
                  const std::string& kernel_name, RaceMode mode) {
#ifdef SIMT_HAVE_CPU_BACKEND
  const abi::RaceFindings findings = recorder.finish();
#else
  (void)recorder;
  const abi::RaceFindings findings;
#endif
  const std::string message = abi::format_race_report(findings, sites, kernel_name);
  if (message.empty()) return;
  nanobind::object errors = nanobind::module_::import_("simt.errors");
  if (mode == RaceMode::Warn) {
    if (PyErr_WarnEx(errors.attr("RaceWarning").ptr(), message.c_str(), 2) != 0)
      throw nanobind::python_error();  // warnings turned into errors
    return;
  }
  PyErr_SetString(errors.attr("RaceError").ptr(), message.c_str());
  throw nanobind::python_error();
}

}  // namespace simt::python
