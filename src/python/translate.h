// C++ exceptions raised from native type slots (a slot nanobind does not wrap, such as a
// configured launch's tp_call) as the Python exceptions nanobind's translators make of
// them: the one description of that mapping stays nanobind's and simt's registered
// translators.
#pragma once

#include <nanobind/nanobind.h>

#include <exception>

namespace simt::python {

// Sets the Python error `error` translates to and returns nullptr (what a slot returns
// on failure). Costs a Python call, on the error path only.
PyObject* raise_translated(std::exception_ptr error) noexcept;

// Registers the function raise_translated calls (`_core._reraise`).
void bind_translate(nanobind::module_& m);

}  // namespace simt::python
