// Checked launches (debug=True, boundscheck=True): the record a checked
// kernel writes its first failed check into, and what the host makes of it.
// Codegen writes the words (src/codegen/emit_checks.cpp), the launch path
// allocates, zeroes and reads the record (src/python/dispatch.cpp); this
// header is the one description of its layout both read.
#pragma once

#include <array>
#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "abi/source_map.h"

namespace simt::abi {

// One place in the user's code that a checked kernel checks: an array
// access (its array's source text; a tuple's for a tuple index), an `assert` (its message, if any),
// a `raise`, or a division by zero (debug=True without fastmath, as Numba's: Python's
// ZeroDivisionError, its message in `what`).
struct CheckSite {
  enum class Kind : uint8_t {
    Index = 1,
    Assert = 2,
    Raise = 3,
    ZeroDivision = 4,
    TupleIndex = 5,
    Reshape = 6
  };
  Kind kind = Kind::Index;
  PythonLine where;  // the statement; `column`: the access or the assert
  std::string what;  // the array expression, the assert's message ("" for none), the raise's
  // Raise: the key the host finds the exception's class by.
  int64_t exception_key = -1;
};

// The record: int64 words, zero before the launch. The first failing thread
// wins a compare-and-swap of the 32-bit status (the low half of word 0:
// every backend's devices are little-endian) from 0 to the site's kind, then
// writes the rest. The scratch words are where a checked kernel's accesses
// to arrays without elements go instead (the launch points such arrays
// there), so a failed check never touches memory outside the launch's.
namespace check_record {
inline constexpr int kStatus = 0;
inline constexpr int kSite = 1;    // index into GeneratedKernel::check_sites
inline constexpr int kIndex = 2;   // the index as written (before wrapping)
inline constexpr int kExtent = 3;  // the axis's extent
inline constexpr int kAxis = 4;
inline constexpr int kThread = 5;  // x, y, z
inline constexpr int kBlock = 8;   // x, y, z
inline constexpr int kScratch = 12;
inline constexpr int kWords = 16;  // 128 bytes: scratch is 32 bytes, 16-aligned
}  // namespace check_record

// A failed check, as the host raises it: Python's IndexError,
// AssertionError or ZeroDivisionError with this message, or the raised class.
struct CheckFailure {
  CheckSite::Kind kind;
  std::string message;
  int64_t exception_key = -1;  // Raise: the class to raise
};

// The failure `record` reports for kernel `kernel_name`, nullopt when every
// check passed. A record naming no known site is a failure too (the message
// says so) rather than a silent pass.
std::optional<CheckFailure> read_check_record(
    const std::array<int64_t, check_record::kWords>& record, const std::vector<CheckSite>& sites,
    const std::string& kernel_name);

}  // namespace simt::abi
