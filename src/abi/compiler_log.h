// A device compiler's log as an error message shows it: the first diagnostics, each line
// cut to a screen's width. PoCL reports every error of a program (a raw kernel with 5,000
// of them gave a 500 KB message), and Clang echoes a whole source line (a generated line
// can be kilobytes long) under each diagnostic.
#pragma once

#include <cstddef>
#include <string>
#include <string_view>

namespace simt::abi {

inline constexpr std::size_t kLogLinesShown = 24;
inline constexpr std::size_t kLogLineWidth = 200;

// `log`'s first kLogLinesShown lines, each cut to kLogLineWidth characters, then a line
// counting those left out.
std::string shortened_compiler_log(std::string_view log);

}  // namespace simt::abi
