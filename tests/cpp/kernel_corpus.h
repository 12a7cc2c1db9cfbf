// The kernels under tests/cpp/data/kernels: each file is one Python kernel
// whose `# signature:` comment lines list the argument types to compile it for.
#pragma once

#include <algorithm>
#include <filesystem>
#include <stdexcept>
#include <fstream>
#include <sstream>
#include <string>
#include <vector>

#include "sema/infer.h"
#include "sema/types.h"

namespace simt::testing {

struct CorpusKernel {
  std::string name;  // file stem
  std::string path;
  std::string text;
  std::vector<std::vector<sema::Type>> signatures;
};

// Splits "float32, (int64, int64), float32[:, ::1]" at top-level commas.
inline std::vector<std::string> split_signature(const std::string& s) {
  std::vector<std::string> out;
  std::string current;
  int depth = 0;
  for (char c : s) {
    if (c == '(' || c == '[') ++depth;
    if (c == ')' || c == ']') --depth;
    if (c == ',' && depth == 0) {
      out.push_back(current);
      current.clear();
      continue;
    }
    current += c;
  }
  if (current.find_first_not_of(' ') != std::string::npos) out.push_back(current);
  return out;
}

inline std::vector<CorpusKernel> load_corpus(const std::string& dir) {
  std::vector<CorpusKernel> kernels;
  std::vector<std::filesystem::path> files;
  for (const auto& entry : std::filesystem::directory_iterator(dir))
    if (entry.path().extension() == ".py") files.push_back(entry.path());
  std::sort(files.begin(), files.end());
  for (const auto& path : files) {
    CorpusKernel k;
    k.name = path.stem().string();
    k.path = path.string();
    std::ifstream in(path);
    std::stringstream ss;
    ss << in.rdbuf();
    k.text = ss.str();
    std::istringstream lines(k.text);
    std::string line;
    const std::string tag = "# signature:";
    while (std::getline(lines, line)) {
      if (line.rfind(tag, 0) != 0) continue;
      std::vector<sema::Type> sig;
      for (const auto& part : split_signature(line.substr(tag.size()))) {
        auto t = sema::parse_type(part);
        if (!t) throw std::runtime_error(k.path + ": bad type '" + part + "'");
        sig.push_back(*t);
      }
      k.signatures.push_back(sig);
    }
    kernels.push_back(std::move(k));
  }
  return kernels;
}

// The globals the corpus kernels use, resolved as the Python side would.
inline sema::Globals corpus_globals() {
  sema::Globals g;
  auto module = [](const char* name) {
    sema::GlobalValue v;
    v.kind = sema::GlobalValue::Kind::Module;
    v.name = name;
    return v;
  };
  g["math"] = module("math");
  g["np"] = module("numpy");
  g["simt"] = module("simt");
  g["cuda"] = module("simt");
  return g;
}

}  // namespace simt::testing
