// A cursor over the text forms of argument types and records (arg_type.cpp,
// record.cpp): whitespace is insignificant, words are identifiers. `pos` is the
// caller's, so a nested reader (a record inside a type) moves it on too.
#pragma once

#include <cctype>
#include <cstddef>
#include <string_view>

namespace simt::abi {

struct TextCursor {
  std::string_view text;
  size_t& pos;

  void skip_space() const {
    while (pos < text.size() && std::isspace(static_cast<unsigned char>(text[pos]))) ++pos;
  }
  bool eat(std::string_view token) const {
    skip_space();
    if (text.substr(pos, token.size()) != token) return false;
    pos += token.size();
    return true;
  }
  std::string_view word() const {
    skip_space();
    size_t start = pos;
    while (pos < text.size() &&
           (std::isalnum(static_cast<unsigned char>(text[pos])) || text[pos] == '_'))
      ++pos;
    return text.substr(start, pos - start);
  }
};

}  // namespace simt::abi
