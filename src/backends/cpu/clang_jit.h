// The CPU backend's compiler: generated C++ in, callable machine code out, in
// process. An embedded Clang 19 compiles the source from memory to LLVM IR for
// the host CPU and LLVM's ORC JIT (LLJIT) links it into this process.
//
// Only built with SIMT_HAVE_CPU_BACKEND (CMake finds LLVM/Clang 19); this header
// itself names no LLVM type, so it can be included anywhere.
#pragma once

#include <map>
#include <memory>
#include <stdexcept>
#include <string>
#include <string_view>
#include <vector>

namespace llvm::orc {
class LLJIT;
class JITDylib;
}  // namespace llvm::orc

namespace simt::cpu {

struct JitOptions {
  bool fastmath = false;  // -ffast-math: results may then differ from NumPy's
  int opt_level = 3;      // 0..3, as -O0..-O3 (frontend pipeline and machine code)
  // Thread-local variables, lowered to calls of __emutls_get_address (emulated_tls.h):
  // JIT-linked code cannot use the process's native TLS. CUDA C++ on the CPU keeps its
  // thread indices and __shared__ arrays in them (cuda_on_cpu.h).
  bool emulated_tls = false;
  // The source is CUDA C++ written for NVRTC (CuPy's raw and snippet kernels): accept
  // what NVRTC accepts where Clang is stricter. Narrowing in a braced initializer
  // (`int index[] = {label, i}` of an int64 label) is NVRTC's warning, Clang's error.
  bool nvrtc_lenient = false;
  // Header search paths (-I), read from the real file system; without any, the
  // compile sees no file at all.
  std::vector<std::string> include_dirs;
};

// A compile failure: what() is Clang's diagnostics ("<name>.cpp:3:7: error: ...",
// with the source line and caret) or the JIT linker's message (e.g. an undefined
// symbol).
class JitError : public std::runtime_error {
 public:
  using std::runtime_error::runtime_error;
};

// One compiled source: its code lives in its own JITDylib (so two modules may
// define the same names) and is freed when the JitModule is destroyed. Every
// symbol the source defines with external linkage is resolved (and its code
// linked) by ClangJit::compile, so symbol() is a plain map lookup and safe to
// call from any thread.
class JitModule {
 public:
  ~JitModule();
  JitModule(const JitModule&) = delete;
  JitModule& operator=(const JitModule&) = delete;

  // The address of a symbol the source defines (e.g. "simt_kernel_saxpy");
  // nullptr if it defines none of that name.
  void* symbol(std::string_view name) const;

  const std::string& name() const { return name_; }
  // Clang's warnings for a source that compiled (empty when there were none).
  const std::string& diagnostics() const { return diagnostics_; }

 private:
  friend class ClangJit;
  JitModule(llvm::orc::LLJIT& jit, llvm::orc::JITDylib& dylib, std::string name,
            std::string diagnostics, std::map<std::string, void*, std::less<>> symbols);

  llvm::orc::LLJIT& jit_;
  llvm::orc::JITDylib& dylib_;
  std::string name_;
  std::string diagnostics_;
  std::map<std::string, void*, std::less<>> symbols_;
};

class ClangJit {
 public:
  // The process's one instance, created on first use (initialises LLVM's native
  // target and builds the LLJIT). Never destroyed: JitModules held by static
  // objects may outlive any other static.
  static ClangJit& instance();

  // Compiles C++17 source (it may include no header: none is reachable) for the
  // host CPU (-march=native), with -O<opt_level> -fwrapv -fno-strict-float-cast-overflow
  // -ffp-contract=off -fno-exceptions -fno-rtti (and -ffast-math when asked), and
  // links it. Undefined symbols it calls (printf, sin, memcpy...) resolve from the
  // process. `name` names the source in diagnostics ("<name>.cpp"). Thread-safe:
  // compiles on several threads run in parallel. Throws JitError.
  std::unique_ptr<JitModule> compile(const std::string& source, const std::string& name,
                                     const JitOptions& options = {});

  // compile() in two steps, so the machine code can be kept (the disk cache):
  // an object file for the source, then the object linked into a module.
  struct Object {
    std::string code;                   // an ELF relocatable object for this host
    std::vector<std::string> exported;  // the symbols the source defines
    std::string diagnostics;            // Clang's warnings
  };
  Object compile_object(const std::string& source, const std::string& name,
                        const JitOptions& options = {});
  std::unique_ptr<JitModule> load(const Object& object, const std::string& name);

  std::string host_cpu() const { return host_cpu_; }  // e.g. "znver3"
  std::string version() const;                        // "clang 19.1.7"

  // The Clang -cc1 arguments compile() uses for `options` (for cache keys and logs).
  std::vector<std::string> cc1_args(const JitOptions& options) const;

  ClangJit(const ClangJit&) = delete;
  ClangJit& operator=(const ClangJit&) = delete;

 private:
  ClangJit();
  ~ClangJit();

  // LLVM state (target description, the LLJIT): kept out of this header.
  struct Impl;
  std::unique_ptr<Impl> impl_;
  std::string host_cpu_;
  // Whether glibc's vector math library (libmvec) is loaded with every function LLVM's
  // vectorizer may call in it: then loops of sin, cos, tan, exp, log and pow vectorize
  // (-fveclib=libmvec), where each element was a scalar libm call.
  bool vector_math_ = false;
};

}  // namespace simt::cpu
