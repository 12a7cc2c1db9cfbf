// From generated code back to the user's Python: the emitter writes a
// `// file.py:LINE: text` comment before the code of every statement, so any
// line of generated source maps to the statement it came from. Backends use
// this to point compiler logs and unsupported-feature errors at Python lines.
#pragma once

#include <optional>
#include <string>
#include <string_view>

namespace simt::abi {

struct PythonLine {
  std::string file;  // the file's base name from a comment; the full path from the emitter
  int line = 0;      // 1-based, in the user's file
  std::string text;  // the statement's source line
  int column = 0;    // 1-based where known (0: the whole line)
};

// The statement that generated line `generated_line` (1-based) of `source`
// belongs to: the nearest statement comment at or above it inside the same
// function. nullopt for prelude, helper or signature lines.
std::optional<PythonLine> python_line_of(std::string_view source, int generated_line);

// The first generated line (1-based) where `identifier` appears as a whole
// C token outside comments, string and character literals; 0 if nowhere.
int find_identifier(std::string_view source, std::string_view identifier);

// `log` with every line that cites a line of `source` (clang's
// `name:12:5: error: ...` or NVRTC's `name(12): error: ...`) followed by the
// Python statement that line came from.
std::string annotate_compiler_log(std::string_view log, std::string_view source);

}  // namespace simt::abi
