// The kernels under tests/cpp/data/kernels: each file is one Python kernel
// whose `# signature:` comment lines list the argument types to compile it for.
// The device functions (@simt.func) they may call live one per file under
// tests/cpp/data/kernels/functions/<name>.py; every corpus kernel sees all of
// them as globals (corpus_globals()), and a function file's `# calls: a, b`
// line names the other device functions it calls.
#pragma once

#include <algorithm>
#include <filesystem>
#include <fstream>
#include <map>
#include <memory>
#include <sstream>
#include <stdexcept>
#include <string>
#include <vector>

#include "lang/parser.h"
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

// The modules the corpus kernels use, resolved as the Python side would.
inline sema::Globals corpus_module_globals() {
  sema::Globals g;
  auto module = [](const char* name) {
    sema::GlobalValue v;
    v.kind = sema::GlobalValue::Kind::Module;
    v.name = name;
    return v;
  };
  g["math"] = module("math");
  g["cmath"] = module("cmath");
  g["np"] = module("numpy");
  g["simt"] = module("simt");
  g["cuda"] = module("simt");
  g["operator"] = module("operator");
  return g;
}

// A device function from its source text, as the Python side builds one
// for a @simt.func: parsed, named after its `def`, with `globals` as its
// resolved free names. Throws lang::CompileError on a syntax error.
inline std::shared_ptr<sema::DeviceFunctionSource> make_device_function(
    const std::string& text, const sema::Globals& globals, const std::string& filename = "funcs.py",
    uint32_t first_line = 1) {
  auto f = std::make_shared<sema::DeviceFunctionSource>();
  f->source = std::make_shared<lang::SourceText>(text, filename, first_line);
  f->parsed = std::make_shared<lang::ParsedFunction>(lang::parse_function(*f->source));
  f->name = f->parsed->def.name;
  f->globals = globals;
  return f;
}

// The global binding a name to a device function.
inline sema::GlobalValue device_function_global(
    std::shared_ptr<const sema::DeviceFunctionSource> f) {
  sema::GlobalValue v;
  v.kind = sema::GlobalValue::Kind::DeviceFunction;
  v.name = f->name;
  v.function = std::move(f);
  return v;
}

#ifdef SIMT_SOURCE_DIR
// The corpus's device functions by name, loaded once (a `# calls:` cycle
// is reported as an error: recursion is tested with functions built in code).
inline const std::map<std::string, std::shared_ptr<const sema::DeviceFunctionSource>>&
corpus_functions() {
  static const auto* functions = [] {
    auto* out = new std::map<std::string, std::shared_ptr<const sema::DeviceFunctionSource>>;
    const std::string rel = "tests/cpp/data/kernels/functions";
    std::filesystem::path dir = std::filesystem::path(SIMT_SOURCE_DIR) / rel;
    std::map<std::string, std::string> texts;
    if (std::filesystem::exists(dir))
      for (const auto& entry : std::filesystem::directory_iterator(dir)) {
        if (entry.path().extension() != ".py") continue;
        std::ifstream in(entry.path());
        std::stringstream ss;
        ss << in.rdbuf();
        texts[entry.path().stem().string()] = ss.str();
      }
    std::vector<std::string> loading;
    auto load = [&](auto& self, const std::string& name) -> void {
      if (out->count(name)) return;
      if (!texts.count(name)) throw std::runtime_error("no corpus device function '" + name + "'");
      if (std::find(loading.begin(), loading.end(), name) != loading.end())
        throw std::runtime_error("corpus device functions call each other in a cycle: " + name);
      loading.push_back(name);
      sema::Globals globals = corpus_module_globals();
      std::istringstream lines(texts[name]);
      std::string line;
      const std::string tag = "# calls:";
      while (std::getline(lines, line)) {
        if (line.rfind(tag, 0) != 0) continue;
        for (std::string callee : split_signature(line.substr(tag.size()))) {
          callee.erase(0, callee.find_first_not_of(' '));
          callee.erase(callee.find_last_not_of(' ') + 1);
          self(self, callee);
          globals[callee] = device_function_global(out->at(callee));
        }
      }
      loading.pop_back();
      auto f = make_device_function(texts[name], globals, rel + "/" + name + ".py");
      if (f->name != name)
        throw std::runtime_error(rel + "/" + name + ".py must define '" + name + "'");
      (*out)[name] = std::move(f);
    };
    for (const auto& [name, text] : texts) load(load, name);
    return out;
  }();
  return *functions;
}
#endif

// The globals the corpus kernels use, resolved as the Python side would:
// the modules and every corpus device function.
inline sema::Globals corpus_globals() {
  sema::Globals g = corpus_module_globals();
#ifdef SIMT_SOURCE_DIR
  for (const auto& [name, f] : corpus_functions()) g[name] = device_function_global(f);
#endif
  return g;
}

}  // namespace simt::testing
