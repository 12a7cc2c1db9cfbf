// The CUDA toolkit's run-time libraries (NVRTC, cuBLAS, cuFFT, cuSOLVER), which simt
// loads with dlopen (design.md, "No vendor SDK at build time"): where they are searched
// for, one order for all of them so that a library and its siblings come from the same
// toolkit or the same set of NVIDIA wheels, and the one shape every library's load()
// has: open the file, fill the function table from a table of names, fail with a reason.
#pragma once

#include <optional>
#include <span>
#include <stdexcept>
#include <string>
#include <tuple>
#include <type_traits>
#include <vector>

#include "backends/cuda/libs/library_types.h"
#include "runtime/shared_library.h"

namespace simt::cuda {

// The directories searched, in order: $CUDA_HOME/lib64, $CUDA_PATH/lib64, each
// directory of $SIMT_NVRTC_SEARCH_DIRS (colon separated; the Python package
// appends the lib directories of the environment's nvidia-* wheels there,
// simt/_cuda_wheels.py; the name predates the other libraries), then
// /usr/local/cuda/lib64.
std::vector<std::string> toolkit_library_directories();

// The files to try, in order: each of `sonames` (newest first) that exists in
// each directory above, then the bare sonames for the dynamic loader's own
// search. Directories holding none of them are appended to
// *directories_without (", "-joined) when given.
std::vector<std::string> toolkit_library_candidates(std::span<const char* const> sonames,
                                                    std::string* directories_without);

// One toolkit library as loaders describe it.
struct ToolkitLibrary {
  const char* display_name;              // "cuBLAS", for messages
  std::span<const char* const> sonames;  // newest first
  const char* path_variable;             // e.g. "SIMT_CUBLAS_PATH": an explicit file
  const char* install_hint;              // what provides it, for the not-found message
};

// Opens `library`: the file $<path_variable> names when set (nothing else is
// tried then, so an explicit choice never silently falls back), else the
// first candidate that loads. On failure returns nullopt with a reason that
// lists what was tried and `install_hint`.
std::optional<runtime::SharedLibrary> open_toolkit_library(const ToolkitLibrary& library,
                                                           std::string* why_not);

// One entry point of a function table: the symbol the library exports and the member of
// `Table` that holds its address.
template <class Table, class F>
struct Entry {
  const char* symbol;
  F Table::*member;
};

// An Entry whose member is named after its symbol, so the two cannot disagree.
#define SIMT_LIBRARY_ENTRY(Table, name) \
  ::simt::cuda::Entry<Table, decltype(Table::name)> { #name, &Table::name }

// Sets each member `entries` (a std::tuple of Entry) lists from `library`; throws
// std::runtime_error naming the first symbol it does not export.
template <class Table, class Entries>
void require_entries(const runtime::SharedLibrary& library, Table& table, const Entries& entries) {
  std::apply(
      [&](const auto&... entry) {
        ((table.*(entry.member) =
              library.require<std::remove_reference_t<decltype(table.*(entry.member))>>(
                  entry.symbol)),
         ...);
      },
      entries);
}

template <class Table>
struct LoadedLibrary {
  runtime::SharedLibrary library;
  Table fn;
};

// What every toolkit library's load() does: opens `library` (open_toolkit_library) and
// fills a Table from `entries`, then through `more(library, table)` for members a table
// of names cannot list (cuSOLVER's routines, one symbol per element type). A library
// missing a symbol is unusable: nullopt, with "unusable cuBLAS: <the symbol and file>"
// in *why_not.
template <class Table, class Entries, class More>
std::optional<LoadedLibrary<Table>> load_toolkit_library(const ToolkitLibrary& library,
                                                         const Entries& entries, More&& more,
                                                         std::string* why_not) {
  std::optional<runtime::SharedLibrary> opened = open_toolkit_library(library, why_not);
  if (!opened) return std::nullopt;
  Table fn;
  try {
    require_entries(*opened, fn, entries);
    more(*opened, fn);
  } catch (const std::exception& error) {
    if (why_not != nullptr)
      *why_not = std::string("unusable ") + library.display_name + ": " + error.what();
    return std::nullopt;
  }
  return LoadedLibrary<Table>{std::move(*opened), fn};
}

template <class Table, class Entries>
std::optional<LoadedLibrary<Table>> load_toolkit_library(const ToolkitLibrary& library,
                                                         const Entries& entries,
                                                         std::string* why_not) {
  return load_toolkit_library<Table>(
      library, entries, [](const runtime::SharedLibrary&, Table&) {}, why_not);
}

// "13.1.0": the version a library's GetProperty reports (cublasGetProperty, ...).
template <class Status>
std::string property_version(Status (*get_property)(libraryPropertyType type, int* value)) {
  int parts[3] = {0, 0, 0};
  for (int i = 0; i < 3; ++i) get_property(static_cast<libraryPropertyType>(i), &parts[i]);
  return std::to_string(parts[0]) + "." + std::to_string(parts[1]) + "." + std::to_string(parts[2]);
}

}  // namespace simt::cuda
