// Text helpers the emitter's parts share: mangled names, C literals of
// doubles, dialect patterns, comments.
#include <charconv>

#include "codegen/emitter_impl.h"

namespace simt::codegen::detail {

std::string mangle(const std::string& name) {
  std::string out = "v_";
  for (unsigned char c : name) {
    if ((c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') || c == '_') {
      out += static_cast<char>(c);
    } else {
      static const char* kHex = "0123456789abcdef";
      out += "_x";
      out += kHex[c >> 4];
      out += kHex[c & 15];
    }
  }
  return out;
}

std::string format_double(double v) {
  char buf[64];
  auto r = std::to_chars(buf, buf + sizeof buf, v);
  std::string s(buf, r.ptr);
  if (s.find_first_of(".e") == std::string::npos) s += ".0";
  return s;
}

std::string format_float(float v) {
  char buf[64];
  auto r = std::to_chars(buf, buf + sizeof buf, v);
  std::string s(buf, r.ptr);
  if (s.find_first_of(".e") == std::string::npos) s += ".0";
  return s + "f";
}

std::string fill_pattern(std::string_view pattern,
                         std::initializer_list<std::pair<std::string_view, std::string>> values) {
  std::string s(pattern);
  for (const auto& [key, text] : values)
    for (size_t p = s.find(key); p != std::string::npos; p = s.find(key, p + text.size()))
      s.replace(p, 2, text);
  return s;
}

std::string apply(std::string_view pattern, const std::string& type, const std::string& x) {
  return fill_pattern(pattern, {{"%T", type}, {"%x", x}});
}

std::string comment_text(std::string_view line) {
  std::string s;
  for (unsigned char c : line)
    s += c < 128 && c != '\t' ? static_cast<char>(c) : c == '\t' ? ' ' : '?';
  size_t begin = s.find_first_not_of(' ');
  s = begin == std::string::npos ? "" : s.substr(begin);
  while (!s.empty() && (s.back() == '\\' || s.back() == ' ')) s.pop_back();
  // OpenCL C compilers still read trigraphs: `??/` would splice the next line.
  for (size_t p = s.find("??"); p != std::string::npos; p = s.find("??", p + 2))
    s.insert(p + 1, " ");
  return s;
}

bool is_float_like(Scalar s) { return sema::is_float(s); }

std::string join_list(const std::vector<std::string>& parts) {
  std::string out;
  for (size_t k = 0; k < parts.size(); ++k) out += (k ? ", " : "") + parts[k];
  return out;
}

}  // namespace simt::codegen::detail
