#include "abi/compiler_log.h"

namespace simt::abi {

std::string shortened_compiler_log(std::string_view log) {
  std::string out;
  std::size_t shown = 0, left_out = 0;
  while (!log.empty()) {
    const std::size_t end = log.find('\n');
    std::string_view line = log.substr(0, end);
    log = end == std::string_view::npos ? std::string_view() : log.substr(end + 1);
    if (shown == kLogLinesShown) {
      ++left_out;
      continue;
    }
    ++shown;
    if (line.size() > kLogLineWidth) {
      out.append(line.substr(0, kLogLineWidth));
      out += " ... (" + std::to_string(line.size() - kLogLineWidth) + " more characters)";
    } else {
      out.append(line);
    }
    out += '\n';
  }
  if (left_out > 0)
    out += "... " + std::to_string(left_out) + " more lines of the compiler's log\n";
  while (!out.empty() && out.back() == '\n') out.pop_back();
  return out;
}

}  // namespace simt::abi
