#include "abi/signature.h"

#include <cctype>

namespace simt::abi {

namespace {

constexpr std::string_view kTypeExamples =
    "such as float32, f4, int64[:], float32[:, ::1], readonly float64[::1], (int64, float32) "
    "or CPointer(int32)";

std::string_view trim(std::string_view s) {
  while (!s.empty() && std::isspace(static_cast<unsigned char>(s.front()))) s.remove_prefix(1);
  while (!s.empty() && std::isspace(static_cast<unsigned char>(s.back()))) s.remove_suffix(1);
  return s;
}

bool opens(char c) { return c == '(' || c == '['; }
bool closes(char c) { return c == ')' || c == ']'; }

// Whether every bracket closes one of its kind, in order.
bool balanced(std::string_view text) {
  std::string open;
  for (char c : text) {
    if (opens(c)) {
      open.push_back(c == '(' ? ')' : ']');
    } else if (closes(c)) {
      if (open.empty() || open.back() != c) return false;
      open.pop_back();
    }
  }
  return open.empty();
}

// The pieces of balanced `text` between commas outside brackets, untrimmed.
std::vector<std::string_view> split_top_level(std::string_view text) {
  std::vector<std::string_view> parts;
  int depth = 0;
  size_t start = 0;
  for (size_t i = 0; i < text.size(); ++i) {
    if (opens(text[i])) ++depth;
    if (closes(text[i])) --depth;
    if (text[i] == ',' && depth == 0) {
      parts.push_back(text.substr(start, i - start));
      start = i + 1;
    }
  }
  parts.push_back(text.substr(start));
  return parts;
}

// Where the parenthesis that closes balanced `text` opens; npos when `text` does not end
// with ')'.
size_t final_group(std::string_view text) {
  if (text.empty() || text.back() != ')') return std::string_view::npos;
  int depth = 0;
  for (size_t i = text.size(); i-- > 0;) {
    if (closes(text[i])) ++depth;
    if (opens(text[i]) && --depth == 0) return i;
  }
  return std::string_view::npos;
}

// `CPointer(scalar)`'s scalar text, when `text` is one.
std::optional<std::string_view> pointee(std::string_view text) {
  constexpr std::string_view kPointer = "CPointer";
  if (!text.starts_with(kPointer)) return std::nullopt;
  std::string_view rest = trim(text.substr(kPointer.size()));
  if (rest.size() < 2 || rest.front() != '(' || rest.back() != ')') return std::nullopt;
  return trim(rest.substr(1, rest.size() - 2));
}

}  // namespace

std::string SignatureParam::str() const {
  return pointer ? "CPointer(" + type.str() + ")" : type.str();
}

std::optional<Signature> parse_signature(std::string_view text, std::string* why_not) {
  auto fail = [&](const std::string& what) -> std::optional<Signature> {
    if (why_not != nullptr) *why_not = "the signature '" + std::string(text) + "' " + what;
    return std::nullopt;
  };
  std::string_view whole = trim(text);
  if (!balanced(whole)) return fail("does not balance its brackets");

  // "result(params)" and "(params)" end with the parameters' group; anything else is the
  // bare form. A head that is a list ("int64, CPointer(int32)") or CPointer itself belongs
  // to the bare form too.
  std::string_view head, params = whole;
  if (size_t open = final_group(whole); open != std::string_view::npos) {
    std::string_view before = trim(whole.substr(0, open));
    if (split_top_level(before).size() == 1 && before != "CPointer") {
      head = before;
      params = whole.substr(open + 1, whole.size() - open - 2);
    }
  }

  Signature signature;
  if (!head.empty() && head != "void" && head != "none") {
    if (pointee(head)) return fail("returns a pointer; a function returns a value");
    signature.result = ArgType::parse(head, Spelling::Numba);
    if (!signature.result)
      return fail("has the result type '" + std::string(head) + "', which is not a type (" +
                  std::string(kTypeExamples) + ")");
  }

  if (trim(params).empty()) return signature;
  std::vector<std::string_view> pieces = split_top_level(params);
  if (pieces.size() > 1 && trim(pieces.back()).empty()) pieces.pop_back();  // "(int32,)"
  for (size_t k = 0; k < pieces.size(); ++k) {
    std::string_view piece = trim(pieces[k]);
    std::string where = "argument " + std::to_string(k + 1);
    if (piece.empty()) return fail("has no type for " + where);
    SignatureParam param;
    if (auto scalar_text = pointee(piece)) {
      auto scalar = scalar_from_name(*scalar_text, Spelling::Numba);
      if (!scalar)
        return fail("has " + where + " '" + std::string(piece) +
                    "': CPointer takes a number type such as float32 or int32");
      param.type = ArgType::scalar_of(*scalar);
      param.pointer = true;
    } else if (auto type = ArgType::parse(piece, Spelling::Numba)) {
      param.type = std::move(*type);
    } else {
      return fail("has " + where + " '" + std::string(piece) + "', which is not a type (" +
                  std::string(kTypeExamples) + ")");
    }
    signature.params.push_back(std::move(param));
  }
  return signature;
}

}  // namespace simt::abi
