#include "abi/check_record.h"

namespace simt::abi {

namespace {

std::string triple(const std::array<int64_t, check_record::kWords>& r, int at) {
  return "(" + std::to_string(r[at]) + ", " + std::to_string(r[at + 1]) + ", " +
         std::to_string(r[at + 2]) + ")";
}

std::string place(const PythonLine& where) {
  std::string out = where.file + ":" + std::to_string(where.line);
  if (!where.text.empty()) out += ": " + where.text;
  return out;
}

}  // namespace

std::optional<CheckFailure> read_check_record(const std::array<int64_t, check_record::kWords>& r,
                                              const std::vector<CheckSite>& sites,
                                              const std::string& kernel_name) {
  using namespace check_record;
  const auto status = static_cast<uint32_t>(r[kStatus] & 0xffffffff);
  if (status == 0) return std::nullopt;
  const std::string who = "in kernel '" + kernel_name + "', thread " + triple(r, kThread) +
                          " of block " + triple(r, kBlock);
  const int64_t site = r[kSite];
  if (site < 0 || static_cast<size_t>(site) >= sites.size() ||
      status != static_cast<uint32_t>(sites[static_cast<size_t>(site)].kind)) {
    return CheckFailure{CheckSite::Kind::Index,
                        "a check failed " + who + ", but its record is unreadable (status " +
                            std::to_string(status) + ", site " + std::to_string(site) + ")"};
  }
  const CheckSite& s = sites[static_cast<size_t>(site)];
  if (s.kind == CheckSite::Kind::Raise)
    return CheckFailure{
        s.kind,
        s.what + (s.what.empty() ? "(" : " (") + "raised " + who + ", at " + place(s.where) + ")",
        s.exception_key};
  if (s.kind == CheckSite::Kind::Reshape)
    return CheckFailure{s.kind, "cannot reshape array of size " + std::to_string(r[kIndex]) +
                                    " into the shape asked (array '" + s.what + "' " + who +
                                    ", at " + place(s.where) + ")"};
  if (s.kind == CheckSite::Kind::TupleIndex)
    return CheckFailure{s.kind, "tuple index out of range (index " + std::to_string(r[kIndex]) +
                                    " of tuple '" + s.what + "' with " +
                                    std::to_string(r[kExtent]) + " items " + who + ", at " +
                                    place(s.where) + ")"};
  if (s.kind == CheckSite::Kind::ZeroDivision)
    return CheckFailure{s.kind, s.what + " (" + who + ", at " + place(s.where) + ")"};
  if (s.kind == CheckSite::Kind::Assert) {
    std::string message = s.what.empty() ? "assertion failed" : s.what;
    return CheckFailure{s.kind, message + " (" + who + ", at " + place(s.where) + ")"};
  }
  // NumPy's wording first, then where.
  return CheckFailure{s.kind, "index " + std::to_string(r[kIndex]) + " is out of bounds for axis " +
                                  std::to_string(r[kAxis]) + " with size " +
                                  std::to_string(r[kExtent]) + " (array '" + s.what + "' " + who +
                                  ", at " + place(s.where) + ")"};
}

}  // namespace simt::abi
