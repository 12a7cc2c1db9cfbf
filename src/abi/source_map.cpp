#include "abi/source_map.h"

#include <cctype>
#include <vector>

namespace simt::abi {

namespace {

std::vector<std::string_view> split_lines(std::string_view text) {
  std::vector<std::string_view> lines;
  size_t start = 0;
  while (start <= text.size()) {
    size_t end = text.find('\n', start);
    if (end == std::string_view::npos) end = text.size();
    lines.push_back(text.substr(start, end - start));
    if (end == text.size()) break;
    start = end + 1;
  }
  return lines;
}

bool is_ident_char(char c) { return std::isalnum(static_cast<unsigned char>(c)) || c == '_'; }

// "// file.py:12: text" -> {file.py, 12, text}; the file name may itself hold
// colons, so the line number is the last ":digits: " group.
std::optional<PythonLine> parse_statement_comment(std::string_view line) {
  size_t begin = line.find_first_not_of(' ');
  if (begin == std::string_view::npos || line.substr(begin, 3) != "// ") return std::nullopt;
  std::string_view rest = line.substr(begin + 3);
  for (size_t colon = rest.find(':'); colon != std::string_view::npos;
       colon = rest.find(':', colon + 1)) {
    size_t digits = colon + 1;
    size_t end = digits;
    while (end < rest.size() && std::isdigit(static_cast<unsigned char>(rest[end]))) ++end;
    if (end == digits || end + 1 > rest.size() || rest[end] != ':') continue;
    PythonLine where;
    where.file = std::string(rest.substr(0, colon));
    where.line = std::stoi(std::string(rest.substr(digits, end - digits)));
    size_t text = end + 1;
    if (text < rest.size() && rest[text] == ' ') ++text;
    where.text = std::string(rest.substr(text));
    return where;
  }
  return std::nullopt;
}

// A function's closing brace is the only `}` in column 0: a statement
// comment above it belongs to another function.
bool closes_function(std::string_view line) { return !line.empty() && line[0] == '}'; }

}  // namespace

std::optional<PythonLine> python_line_of(std::string_view source, int generated_line) {
  std::vector<std::string_view> lines = split_lines(source);
  if (generated_line < 1 || generated_line > static_cast<int>(lines.size())) return std::nullopt;
  for (int k = generated_line - 1; k >= 0; --k) {
    if (k != generated_line - 1 && closes_function(lines[k])) return std::nullopt;
    if (auto where = parse_statement_comment(lines[k])) return where;
  }
  return std::nullopt;
}

int find_identifier(std::string_view source, std::string_view identifier) {
  int line = 1;
  size_t i = 0;
  const size_t n = source.size();
  while (i < n) {
    char c = source[i];
    if (c == '\n') {
      ++line;
      ++i;
    } else if (c == '/' && i + 1 < n && source[i + 1] == '/') {
      while (i < n && source[i] != '\n') ++i;
    } else if (c == '/' && i + 1 < n && source[i + 1] == '*') {
      i += 2;
      while (i + 1 < n && !(source[i] == '*' && source[i + 1] == '/')) {
        if (source[i] == '\n') ++line;
        ++i;
      }
      i += 2;
    } else if (c == '"' || c == '\'') {
      ++i;
      while (i < n && source[i] != c && source[i] != '\n') i += source[i] == '\\' ? 2 : 1;
      ++i;
    } else if (is_ident_char(c)) {
      size_t start = i;
      while (i < n && is_ident_char(source[i])) ++i;
      if (source.substr(start, i - start) == identifier) return line;
    } else {
      ++i;
    }
  }
  return 0;
}

std::string annotate_compiler_log(std::string_view log, std::string_view source) {
  std::string out;
  for (std::string_view line : split_lines(log)) {
    out += line;
    out += '\n';
    // clang: "<name>:12:5: error"; NVRTC: "<name>(12): error".
    int cited = 0;
    size_t colon = line.find(':');
    while (colon != std::string_view::npos && cited == 0) {
      size_t end = colon + 1;
      while (end < line.size() && std::isdigit(static_cast<unsigned char>(line[end]))) ++end;
      if (end > colon + 1 && end - colon < 10 && end < line.size() && line[end] == ':')
        cited = std::stoi(std::string(line.substr(colon + 1, end - colon - 1)));
      colon = line.find(':', colon + 1);
    }
    if (cited == 0) {
      size_t open = line.find('(');
      size_t close = open == std::string_view::npos ? open : line.find("):", open);
      if (close != std::string_view::npos && close > open + 1) {
        std::string_view digits = line.substr(open + 1, close - open - 1);
        bool all_digits = digits.size() < 9;
        for (char d : digits)
          all_digits = all_digits && std::isdigit(static_cast<unsigned char>(d));
        if (all_digits) cited = std::stoi(std::string(digits));
      }
    }
    if (cited > 0) {
      if (auto where = python_line_of(source, cited))
        out += "  (generated from " + where->file + ":" + std::to_string(where->line) + ": " +
               where->text + ")\n";
    }
  }
  while (!out.empty() && out.back() == '\n') out.pop_back();
  return out;
}

}  // namespace simt::abi
