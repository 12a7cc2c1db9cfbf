// cuda.libdevice calls: each result of each function is a small helper
// written from its row of sema/libdevice.h, in the dialect's spelling
// (math names, integer types, bit casts, literal suffixes).
#include <algorithm>
#include <cctype>
#include <iterator>
#include <stdexcept>

#include "codegen/emitter_impl.h"
#include "sema/libdevice.h"

namespace simt::codegen::detail {

namespace {

bool word_char(char c) { return std::isalnum(static_cast<unsigned char>(c)) || c == '_'; }

// The text of the parenthesized group opening at `open`, and the index past it.
std::pair<std::string, size_t> group(const std::string& code, size_t open) {
  int depth = 0;
  for (size_t k = open; k < code.size(); ++k) {
    if (code[k] == '(') ++depth;
    if (code[k] == ')' && --depth == 0) return {code.substr(open + 1, k - open - 1), k + 1};
  }
  throw std::logic_error("unbalanced libdevice code: " + code);
}

// The helpers a row's code calls as `#name$t` (t: a type code, as `$t`).
constexpr std::pair<std::string_view, Helper> kHelpers[] = {
    {"popc", Helper::PopCount},        {"clz", Helper::CountLeadingZeros},
    {"ffs", Helper::FindFirstSet},     {"brev", Helper::BitReverse},
    {"f2h", Helper::FloatToHalf},      {"h2f", Helper::HalfToFloat},
    {"fma_err", Helper::FmaErrorSign}, {"j0", Helper::BesselJ0},
    {"j1", Helper::BesselJ1},          {"y0", Helper::BesselY0},
    {"y1", Helper::BesselY1},          {"jn", Helper::BesselJn},
    {"yn", Helper::BesselYn},
};

// The scalar of a `$t` type code in row code.
Scalar scalar_of_type_code(char c) {
  switch (c) {
    case 'h':
      return Scalar::Int16;
    case 'i':
      return Scalar::Int32;
    case 'u':
      return Scalar::UInt32;
    case 'l':
      return Scalar::Int64;
    case 'U':
      return Scalar::UInt64;
    case 'f':
      return Scalar::Float32;
    default:
      return Scalar::Float64;
  }
}

// The k-th "|||"-separated part of `code`.
std::string part_of(const std::string& code, size_t part) {
  size_t start = 0;
  for (size_t k = 0; k < part; ++k) start = code.find("|||", start) + 3;
  size_t end = code.find("|||", start);
  return code.substr(start, end == std::string::npos ? std::string::npos : end - start);
}

}  // namespace

std::string Emitter::libdevice_part(const Expr& e, size_t part) {
  const sema::LibdeviceFunction& row = *sema::find_libdevice(info(e).intrinsic->c_name);
  std::vector<Scalar> types = row.arguments();
  std::vector<std::string> args;
  for (size_t k = 0; k < types.size(); ++k)
    args.push_back(emit_as(*e.items[k + 1], Type::scalar_of(types[k])));
  return libdevice_helper(row.name, part) + "(" + join_list(args) + ")";
}

std::string Emitter::libdevice_helper(std::string_view name, size_t part) {
  const sema::LibdeviceFunction& row = *sema::find_libdevice(name);
  std::string symbol = "simt_ld_" + row.name + "_" + std::to_string(part);
  bool cuda = d_.id == abi::Language::Cuda && !row.cuda.empty();
  std::string code = part_of(cuda ? row.cuda : row.portable, part);
  const Scalar real = row.real();
  auto type = [&](char c) { return std::string(d_.value_type(scalar_of_type_code(c))); };
  const std::pair<std::string_view, std::string_view> casts[] = {{"F2U(", d_.float_as_uint},
                                                                 {"U2F(", d_.uint_as_float},
                                                                 {"D2U(", d_.double_as_ulong},
                                                                 {"U2D(", d_.ulong_as_double}};
  std::string out;
  for (size_t k = 0; k < code.size();) {
    char c = code[k];
    if (c == '@') {  // a math function in the row's float type
      size_t end = k + 1;
      while (end < code.size() && word_char(code[end])) ++end;
      out += d_.math_name(code.substr(k + 1, end - k - 1), real);
      k = end;
      continue;
    }
    if (c == '$' && k + 1 < code.size()) {
      out += type(code[k + 1]);
      k += 2;
      continue;
    }
    if (c == '#') {  // `#popc$u`: a helper of the kernel language, for a type
      size_t end = k + 1;
      while (end < code.size() && word_char(code[end])) ++end;
      std::string name = code.substr(k + 1, end - k - 1);
      auto known = std::find_if(std::begin(kHelpers), std::end(kHelpers),
                                [&](const auto& entry) { return name == entry.first; });
      if (known == std::end(kHelpers) || end + 1 >= code.size() || code[end] != '$')
        throw std::logic_error("unknown helper in libdevice code: " + code.substr(k));
      out += helpers_.use(known->second, scalar_of_type_code(code[end + 1]));
      k = end + 2;
      continue;
    }
    // 64-bit literal suffixes after a digit.
    if (k > 0 && std::isxdigit(static_cast<unsigned char>(code[k - 1]))) {
      if (code.compare(k, 3, "ULL") == 0) {
        out += d_.uint64_suffix;
        k += 3;
        continue;
      }
      if (code.compare(k, 2, "LL") == 0) {
        out += d_.int64_suffix;
        k += 2;
        continue;
      }
    }
    // A call of another row's helper (erfcinv uses erfinv's): define it first.
    if (code.compare(k, 8, "simt_ld_") == 0 && (k == 0 || !word_char(code[k - 1]))) {
      size_t end = k;
      while (end < code.size() && word_char(code[end])) ++end;
      std::string callee = code.substr(k + 8, end - k - 8);  // "<name>_<part>"
      size_t underscore = callee.rfind('_');
      libdevice_helper(callee.substr(0, underscore),
                       static_cast<size_t>(std::stoul(callee.substr(underscore + 1))));
      out += code.substr(k, end - k);
      k = end;
      continue;
    }
    out += c;
    ++k;
  }
  // Bit casts last: their operands are spelled by then.
  std::string spelled = std::move(out);
  out.clear();
  for (size_t k = 0; k < spelled.size();) {
    bool cast = false;
    for (auto [token, pattern] : casts) {
      if (spelled.compare(k, token.size(), token) != 0 || (k > 0 && word_char(spelled[k - 1])))
        continue;
      auto [inner, next] = group(spelled, k + token.size() - 1);
      std::string bits = fill_pattern(pattern, {{"%x", "(" + inner + ")"}});
      // The bits as an unsigned word (some dialects' casts give a signed one).
      if (token[0] == 'F') bits = "((" + type('u') + ")" + bits + ")";
      if (token[0] == 'D') bits = "((" + type('U') + ")" + bits + ")";
      out += bits;
      k = next;
      cast = true;
      break;
    }
    if (!cast) out += spelled[k++];
  }
  std::vector<Scalar> results = row.results();
  std::vector<Scalar> arguments = row.arguments();
  std::string params;
  for (size_t k = 0; k < arguments.size(); ++k)
    params += std::string(k ? ", " : "") + std::string(d_.value_type(arguments[k])) + " " +
              static_cast<char>('a' + k);
  std::string body = out.find("return") != std::string::npos ? out : "return " + out + ";";
  helpers_.define_once(symbol, std::string(d_.function_prefix) +
                                   std::string(d_.value_type(results[part])) + " " + symbol + "(" +
                                   params + ") {\n  " + body + "\n}\n");
  return symbol;
}

}  // namespace simt::codegen::detail
