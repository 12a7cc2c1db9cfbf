#include "abi/race_report.h"

#include <cstdio>

namespace simt::abi {

namespace {

std::string triple(const int64_t (&v)[3]) {
  return "(" + std::to_string(v[0]) + ", " + std::to_string(v[1]) + ", " + std::to_string(v[2]) +
         ")";
}

std::string who(const RaceThread& t) {
  return "thread " + triple(t.thread) + " of block " + triple(t.block);
}

bool same_block(const RaceThread& a, const RaceThread& b) {
  return a.block[0] == b.block[0] && a.block[1] == b.block[1] && a.block[2] == b.block[2];
}

// The file's base name: the report names lines, and full paths make it hard to read.
std::string place(const std::vector<RaceSite>& sites, int site) {
  if (site < 0 || static_cast<size_t>(site) >= sites.size()) return "an unknown place";
  const PythonLine& w = sites[static_cast<size_t>(site)].where;
  const size_t slash = w.file.find_last_of("/\\");
  std::string out = (slash == std::string::npos ? w.file : w.file.substr(slash + 1)) + ":" +
                    std::to_string(w.line);
  if (w.column > 0) out += ":" + std::to_string(w.column);
  const size_t first = w.text.find_first_not_of(" \t");
  if (first != std::string::npos) out += ": " + w.text.substr(first);
  return out;
}

const RaceSite* site_at(const std::vector<RaceSite>& sites, int site) {
  return site >= 0 && static_cast<size_t>(site) < sites.size() ? &sites[static_cast<size_t>(site)]
                                                               : nullptr;
}

bool memory_kind(RaceHazard::Kind k) {
  return k == RaceHazard::Kind::WriteWrite || k == RaceHazard::Kind::ReadWrite ||
         k == RaceHazard::Kind::WriteRead || k == RaceHazard::Kind::AtomicWrite ||
         k == RaceHazard::Kind::WriteAtomic;
}

const char* kind_name(RaceHazard::Kind k) {
  switch (k) {
    case RaceHazard::Kind::WriteWrite:
      return "write-write race";
    case RaceHazard::Kind::ReadWrite:
      return "read-write race";
    case RaceHazard::Kind::WriteRead:
      return "write-read race";
    case RaceHazard::Kind::AtomicWrite:
      return "atomic-write race";
    case RaceHazard::Kind::WriteAtomic:
      return "write-atomic race";
    case RaceHazard::Kind::DivergentBarrier:
      return "divergent barrier";
    case RaceHazard::Kind::BarrierMismatch:
      return "mismatched barriers";
    case RaceHazard::Kind::WarpMaskMissing:
    case RaceHazard::Kind::WarpMaskExtra:
    case RaceHazard::Kind::WarpMaskSelf:
      return "wrong warp mask";
  }
  return "hazard";
}

// What each side of a memory hazard did: "wrote", "read", "updated atomically".
std::pair<const char*, const char*> verbs(RaceHazard::Kind k) {
  switch (k) {
    case RaceHazard::Kind::WriteWrite:
      return {"wrote", "wrote"};
    case RaceHazard::Kind::ReadWrite:
      return {"read", "wrote"};
    case RaceHazard::Kind::WriteRead:
      return {"wrote", "read"};
    case RaceHazard::Kind::AtomicWrite:
      return {"updated it atomically", "wrote"};
    case RaceHazard::Kind::WriteAtomic:
      return {"wrote", "updated it atomically"};
    default:
      return {"", ""};
  }
}

std::string hex_mask(uint32_t mask) {
  char text[16];
  std::snprintf(text, sizeof text, "0x%08x", mask);
  return text;
}

std::string memory_report(const RaceHazard& h, const std::vector<RaceSite>& sites,
                          const std::string& kernel_name) {
  const RaceSite* a = site_at(sites, h.site_a);
  const bool shared = a && a->shared;
  std::string array = a ? a->what : "?";
  auto [first, second] = verbs(h.kind);
  auto it = [](const char* verb) {
    std::string v = verb;
    return v.find(' ') == std::string::npos ? v + " it" : v;
  };
  std::string out = std::string(kind_name(h.kind)) + " on " + (shared ? "shared" : "global") +
                    " array '" + array + "' element " + std::to_string(h.element) + " in kernel '" +
                    kernel_name + "':\n";
  out += "  " + who(h.first) + " " + it(first) + " at " + place(sites, h.site_a) + "\n";
  out += "  " + who(h.second) + " " + it(second) + " at " + place(sites, h.site_b) + "\n";
  if (h.kind == RaceHazard::Kind::AtomicWrite || h.kind == RaceHazard::Kind::WriteAtomic)
    out += "  an atomic and a plain write of one element race (make both atomic)";
  else if (same_block(h.first, h.second))
    out += "  with no syncthreads() between them";
  else
    out +=
        "  in different blocks, which no barrier orders (use an atomic, or one thread per "
        "element)";
  return out;
}

std::string barrier_report(const RaceHazard& h, const std::vector<RaceSite>& sites,
                           const std::string& kernel_name) {
  std::string out = std::string(kind_name(h.kind)) + " in kernel '" + kernel_name + "':\n";
  if (h.kind == RaceHazard::Kind::DivergentBarrier) {
    out += "  " + who(h.first) + " waited at " + place(sites, h.site_a) + "\n";
    out += "  " + who(h.second) + " ended the kernel without reaching it" +
           (h.site_b >= 0 ? "; its last step was at " + place(sites, h.site_b) : "") + "\n";
    out +=
        "  every thread of a block must reach each syncthreads(), or none (is it under a "
        "condition that differs between threads?)";
    return out;
  }
  out += "  " + who(h.first) + " waited at " + place(sites, h.site_a) + "\n";
  out += "  " + who(h.second) + " instead waited at " + place(sites, h.site_b) + "\n";
  out += "  the threads of a block must wait at the same syncthreads() each time";
  return out;
}

std::string warp_report(const RaceHazard& h, const std::vector<RaceSite>& sites,
                        const std::string& kernel_name) {
  const RaceSite* a = site_at(sites, h.site_a);
  std::string out = std::string(kind_name(h.kind)) + (a ? " of " + a->what : std::string()) +
                    " in kernel '" + kernel_name + "':\n";
  out += "  " + who(h.first) + " called it with mask " + hex_mask(h.mask) + " at " +
         place(sites, h.site_a) + "\n";
  switch (h.kind) {
    case RaceHazard::Kind::WarpMaskSelf:
      out += "  and the mask leaves out that thread itself (lane " +
             std::to_string(h.first.thread[0] & 31) + ")";
      break;
    case RaceHazard::Kind::WarpMaskMissing:
      out += "  " + who(h.second) + " called it too, at " + place(sites, h.site_b) + "\n";
      out += "  and the mask leaves it out (every calling lane must be in the mask)";
      break;
    default:
      out += "  the mask names " + who(h.second) + ", which did not call it" +
             (h.site_b >= 0 ? " (its last step was at " + place(sites, h.site_b) + ")" : "") +
             "\n  every lane a mask names must call the operation";
      break;
  }
  return out;
}

std::string one_line(const RaceHazard& h, const std::vector<RaceSite>& sites) {
  auto line_of = [&](int s) {
    const RaceSite* r = site_at(sites, s);
    return r ? std::to_string(r->where.line) : std::string("?");
  };
  std::string out = std::string(kind_name(h.kind));
  if (memory_kind(h.kind)) {
    const RaceSite* a = site_at(sites, h.site_a);
    out += " on '" + (a ? a->what : std::string("?")) + "' element " + std::to_string(h.element);
  }
  out += ": lines " + line_of(h.site_a) + " and " + line_of(h.site_b) + " (" + who(h.first) + ", " +
         who(h.second) + ")";
  return out;
}

}  // namespace

std::string format_race_report(const RaceFindings& findings, const std::vector<RaceSite>& sites,
                               const std::string& kernel_name, size_t shown) {
  if (findings.hazards.empty()) return "";
  const RaceHazard& h = findings.hazards.front();
  std::string out =
      memory_kind(h.kind) ? memory_report(h, sites, kernel_name)
      : h.kind == RaceHazard::Kind::DivergentBarrier || h.kind == RaceHazard::Kind::BarrierMismatch
          ? barrier_report(h, sites, kernel_name)
          : warp_report(h, sites, kernel_name);
  const size_t more = findings.hazards.size() - 1;
  if (more > 0) {
    out += "\nmore hazards at other lines:";
    for (size_t k = 1; k < findings.hazards.size() && k <= shown; ++k)
      out += "\n  " + one_line(findings.hazards[k], sites);
    if (more > shown) out += "\n  ... and " + std::to_string(more - shown) + " more";
  }
  return out;
}

}  // namespace simt::abi
