// Embedded Clang -> LLVM IR -> machine code -> ORC JIT, all in memory.
//
// Per compile: a fresh clang::CompilerInstance configured from -cc1 arguments
// (no driver: the driver probes the filesystem for GCC installations and system
// headers, which generated code never uses), EmitLLVMOnlyAction (which also runs
// the -O3 IR pipeline), then machine code with a TargetMachine of our own, and
// the object linked by LLJIT into a JITDylib of its own. Each compile owns its
// LLVMContext and TargetMachine, so compiles on different threads share nothing
// but the ExecutionSession, which is thread-safe.
#include "backends/cpu/clang_jit.h"

#include <clang/Basic/Diagnostic.h>
#include <clang/Basic/DiagnosticOptions.h>
#include <clang/Basic/Version.h>
#include <clang/CodeGen/CodeGenAction.h>
#include <clang/Frontend/CompilerInstance.h>
#include <clang/Frontend/CompilerInvocation.h>
#include <clang/Frontend/FrontendOptions.h>
#include <clang/Frontend/TextDiagnosticPrinter.h>
#include <llvm/ExecutionEngine/Orc/CompileUtils.h>
#include <llvm/ExecutionEngine/Orc/Core.h>
#include <llvm/ExecutionEngine/Orc/ExecutionUtils.h>
#include <llvm/ExecutionEngine/Orc/ExecutorProcessControl.h>
#include <llvm/ExecutionEngine/Orc/JITTargetMachineBuilder.h>
#include <llvm/ExecutionEngine/Orc/LLJIT.h>
#include <llvm/ExecutionEngine/Orc/TaskDispatch.h>
#include <llvm/IR/LLVMContext.h>
#include <llvm/IR/Module.h>
#include <llvm/Support/DynamicLibrary.h>
#include <llvm/Support/Error.h>
#include <llvm/Support/MemoryBuffer.h>
#include <llvm/Support/TargetSelect.h>
#include <llvm/Support/VirtualFileSystem.h>
#include <llvm/Support/raw_ostream.h>
#include <llvm/Target/TargetMachine.h>
#include <llvm/TargetParser/Host.h>

#include <algorithm>
#include <atomic>
#include <cstdlib>
#include <system_error>
#include <utility>

#include "backends/cpu/emulated_tls.h"
#include "backends/cpu/fault_guard.h"
#include "backends/cpu/race_recorder.h"
#include "runtime/interrupt.h"

namespace simt::cpu {

namespace {

std::string error_text(llvm::Error error) { return llvm::toString(std::move(error)); }

// Where the ExecutionSession's error reporter writes on this thread: the compile
// running here, if any. Linking runs on the thread that asked for the symbols
// (LLJIT's in-place task dispatcher), so a thread-local sink gets exactly that
// compile's link errors ("Symbols not found: [ foo ]"), which ORC would otherwise
// print to stderr.
thread_local std::string* t_session_errors = nullptr;

void report_session_error(llvm::Error error) {
  std::string text = error_text(std::move(error));
  if (t_session_errors != nullptr) *t_session_errors += text + "\n";
}

#if defined(__linux__) && defined(__x86_64__)
// The functions LLVM 19's vectorizer calls in libmvec for -fveclib=libmvec on x86-64
// (llvm/Analysis/VecFuncs.def, LIBMVEC_X86: SSE and AVX2 widths of sin, cos, tan, pow,
// exp and log). glibc added tan in 2.35: an older libmvec lacks it, and a kernel calling
// a missing one would fail to link, so the library is used only when all are there.
constexpr const char* kLibmvecFunctions[] = {
    "_ZGVbN2v_sin",   "_ZGVdN4v_sin",  "_ZGVbN4v_sinf", "_ZGVdN8v_sinf", "_ZGVbN2v_cos",
    "_ZGVdN4v_cos",   "_ZGVbN4v_cosf", "_ZGVdN8v_cosf", "_ZGVbN2v_tan",  "_ZGVdN4v_tan",
    "_ZGVbN4v_tanf",  "_ZGVdN8v_tanf", "_ZGVbN2vv_pow", "_ZGVdN4vv_pow", "_ZGVbN4vv_powf",
    "_ZGVdN8vv_powf", "_ZGVbN2v_exp",  "_ZGVdN4v_exp",  "_ZGVbN4v_expf", "_ZGVdN8v_expf",
    "_ZGVbN2v_log",   "_ZGVdN4v_log",  "_ZGVbN4v_logf", "_ZGVdN8v_logf"};

// Loads libmvec into the JIT's symbol search; true when it has every function above.
// Its results are within 4 ulps (glibc's bound), as NumPy's own SIMD loops are.
bool load_vector_math(llvm::orc::LLJIT& jit) {
  std::string error;
  auto library = llvm::sys::DynamicLibrary::getPermanentLibrary("libmvec.so.1", &error);
  if (!library.isValid()) return false;
  for (const char* name : kLibmvecFunctions)
    if (library.getAddressOfSymbol(name) == nullptr) return false;
  auto generator = llvm::orc::DynamicLibrarySearchGenerator::Load(
      "libmvec.so.1", jit.getDataLayout().getGlobalPrefix());
  if (!generator) {
    llvm::consumeError(generator.takeError());
    return false;
  }
  jit.getProcessSymbolsJITDylib()->addGenerator(std::move(*generator));
  return true;
}
#else
bool load_vector_math(llvm::orc::LLJIT&) { return false; }
#endif

llvm::CodeGenOptLevel codegen_level(int opt_level) {
  switch (opt_level) {
    case 0:
      return llvm::CodeGenOptLevel::None;
    case 1:
      return llvm::CodeGenOptLevel::Less;
    case 2:
      return llvm::CodeGenOptLevel::Default;
    default:
      return llvm::CodeGenOptLevel::Aggressive;
  }
}

}  // namespace

struct ClangJit::Impl {
  std::string triple;
  std::vector<std::string> target_features;  // "+avx2", "-avx512f", ... sorted
  // Copied per compile to make that compile's TargetMachine (a TargetMachine
  // is not safe to use from two threads at once).
  llvm::orc::JITTargetMachineBuilder jtmb;
  std::unique_ptr<llvm::orc::LLJIT> jit;
  std::atomic<unsigned long long> dylib_counter{0};  // JITDylib names must be unique

  explicit Impl(llvm::orc::JITTargetMachineBuilder builder) : jtmb(std::move(builder)) {}
};

// ---- JitModule ----------------------------------------------------------------

JitModule::JitModule(llvm::orc::LLJIT& jit, llvm::orc::JITDylib& dylib, std::string name,
                     std::string diagnostics, std::map<std::string, void*, std::less<>> symbols)
    : jit_(jit),
      dylib_(dylib),
      name_(std::move(name)),
      diagnostics_(std::move(diagnostics)),
      symbols_(std::move(symbols)) {}

JitModule::~JitModule() {
  // Frees the code and data memory of everything linked into the dylib. A
  // failure here cannot be reported from a destructor, and only leaks.
  llvm::consumeError(jit_.getExecutionSession().removeJITDylib(dylib_));
}

void* JitModule::symbol(std::string_view name) const {
  auto it = symbols_.find(name);
  return it == symbols_.end() ? nullptr : it->second;
}

// ---- ClangJit -------------------------------------------------------------------

ClangJit& ClangJit::instance() {
  // Leaked on purpose: no destruction-order hazard with JitModules in statics, and
  // no LLJIT teardown cost at exit.
  static ClangJit* jit = new ClangJit();
  return *jit;
}

ClangJit::~ClangJit() = default;

ClangJit::ClangJit() {
  llvm::InitializeNativeTarget();
  llvm::InitializeNativeTargetAsmPrinter();
  llvm::InitializeNativeTargetAsmParser();  // inline asm, should generated code ever use it

  auto jtmb = llvm::orc::JITTargetMachineBuilder::detectHost();
  if (!jtmb) throw JitError("simt cpu jit: host target: " + error_text(jtmb.takeError()));
  // Thread-local variables become calls of __emutls_get_address (defined below):
  // JITLink without ORC's runtime cannot link native TLS. Code without them is
  // unchanged.
  jtmb->getOptions().EmulatedTLS = true;
  // JITLink (LLJIT's linker on x86-64/AArch64 ELF) handles PIC, small-code-model
  // objects: calls to libm and libc go through stubs it builds.
  jtmb->setRelocationModel(llvm::Reloc::PIC_);
  jtmb->setCodeModel(llvm::CodeModel::Small);
  impl_ = std::make_unique<Impl>(*jtmb);

  impl_->triple = impl_->jtmb.getTargetTriple().str();
  host_cpu_ = llvm::sys::getHostCPUName().str();
  // The same features the Clang driver passes for -march=native.
  for (const auto& feature : llvm::sys::getHostCPUFeatures())
    impl_->target_features.push_back((feature.second ? "+" : "-") + feature.first().str());
  // Deterministic order: the arguments are part of cache keys.
  std::sort(impl_->target_features.begin(), impl_->target_features.end());

  // In-place task dispatch: a compile links on its own thread (ORC's default here
  // is a thread pool of its own, next to the caller's). The ExecutionSession is
  // thread-safe, so compiles on several threads still run in parallel.
  auto epc = llvm::orc::SelfExecutorProcessControl::Create(
      nullptr, std::make_unique<llvm::orc::InPlaceTaskDispatcher>());
  if (!epc) throw JitError("simt cpu jit: " + error_text(epc.takeError()));
  auto jit = llvm::orc::LLJITBuilder()
                 .setJITTargetMachineBuilder(impl_->jtmb)
                 .setExecutorProcessControl(std::move(*epc))
                 .setSupportConcurrentCompilation(true)
                 .create();
  if (!jit) throw JitError("simt cpu jit: cannot create LLJIT: " + error_text(jit.takeError()));
  impl_->jit = std::move(*jit);
  impl_->jit->getExecutionSession().setErrorReporter(report_session_error);

  // The epoch generated `while` loops read to stop on Ctrl-C (runtime/interrupt.h),
  // and where an index outside a shared or local array goes (fault_guard.h).
  llvm::orc::SymbolMap runtime_symbols;
  runtime_symbols[impl_->jit->mangleAndIntern("simt_index_fault")] = {
      llvm::orc::ExecutorAddr::fromPtr(&simt_index_fault), llvm::JITSymbolFlags::Exported};
  // A race-checked kernel's reports (race_recorder.h).
  const std::pair<const char*, void*> race_hooks[] = {
      {"simt_race_access", reinterpret_cast<void*>(&simt_race_access)},
      {"simt_race_barrier", reinterpret_cast<void*>(&simt_race_barrier)},
      {"simt_race_block_barrier", reinterpret_cast<void*>(&simt_race_block_barrier)},
      {"simt_race_warp", reinterpret_cast<void*>(&simt_race_warp)},
      {"simt_race_syncwarp", reinterpret_cast<void*>(&simt_race_syncwarp)},
      {"simt_race_reads_all", reinterpret_cast<void*>(&simt_race_reads_all)},
      {"simt_race_block_syncwarp", reinterpret_cast<void*>(&simt_race_block_syncwarp)},
      {"simt_race_exit", reinterpret_cast<void*>(&simt_race_exit)}};
  for (const auto& [name, address] : race_hooks)
    runtime_symbols[impl_->jit->mangleAndIntern(name)] = {llvm::orc::ExecutorAddr::fromPtr(address),
                                                          llvm::JITSymbolFlags::Exported};
  runtime_symbols[impl_->jit->mangleAndIntern("simt_cancel")] = {
      llvm::orc::ExecutorAddr::fromPtr(&runtime::cancel_epoch()), llvm::JITSymbolFlags::Exported};
  runtime_symbols[impl_->jit->mangleAndIntern("__emutls_get_address")] = {
      llvm::orc::ExecutorAddr::fromPtr(&emulated_tls_address), llvm::JITSymbolFlags::Exported};
  if (auto error = impl_->jit->getProcessSymbolsJITDylib()->define(
          llvm::orc::absoluteSymbols(std::move(runtime_symbols))))
    throw JitError("simt cpu jit: cannot define the runtime's symbols: " +
                   error_text(std::move(error)));

#if defined(__linux__)
  // Kernels call libm (what __builtin_sin lowers to). The process-symbols dylib only
  // sees the global scope, which lacks libm when it came in as a dependency of a
  // module loaded RTLD_LOCAL (as Python loads extensions) into a program that does
  // not link it: search it explicitly. Failure is harmless (the global scope may
  // still have it).
  if (auto libm = llvm::orc::DynamicLibrarySearchGenerator::Load(
          "libm.so.6", impl_->jit->getDataLayout().getGlobalPrefix())) {
    impl_->jit->getProcessSymbolsJITDylib()->addGenerator(std::move(*libm));
  } else {
    llvm::consumeError(libm.takeError());
  }
  vector_math_ = load_vector_math(*impl_->jit);
#endif
}

namespace {

// $SIMT_CPU_DUMP_IR names a folder where each compile writes its optimized IR
// (<name>.cpp.ll, the module code generation starts from): how to see whether a
// loop vectorized. Compiles the disk cache answers are not redone (SIMT_CACHE_DIR=off).
void dump_ir(const llvm::Module& module, const std::string& file_name) {
  const char* dir = std::getenv("SIMT_CPU_DUMP_IR");
  if (!dir || !*dir) return;
  std::error_code error;
  llvm::raw_fd_ostream out(std::string(dir) + "/" + file_name + ".ll", error);
  if (!error) module.print(out, nullptr);
}

}  // namespace

std::string ClangJit::version() const { return "clang " CLANG_VERSION_STRING; }

std::vector<std::string> ClangJit::cc1_args(const JitOptions& options) const {
  const int level = std::clamp(options.opt_level, 0, 3);
  // What `clang -c -O3 -march=native -std=c++17 -fwrapv -fno-strict-float-cast-overflow
  // -ffp-contract=off -fno-exceptions -fno-rtti -nostdinc -nostdinc++ [-ffast-math]`
  // passes to -cc1 (taken from Clang 19's driver), less what only matters for files,
  // debug info and the driver's -fmath-errno: errno is never read by generated
  // code, and without it sqrt becomes an instruction and math calls vectorize.
  std::vector<std::string> args = {
      "-triple", impl_->triple, "-target-cpu", host_cpu_,
      // No header search at all: generated code includes nothing, and the compile
      // must not depend on what the machine has installed.
      "-nostdsysteminc", "-nobuiltininc", "-nostdinc++", "-O" + std::to_string(level), "-std=c++17",
      "-fwrapv", "-fno-rtti", "-fno-strict-float-cast-overflow", "-fno-rounding-math",
      "-mrelocation-model", "pic", "-pic-level", "2", "-pic-is-pie", "-mframe-pointer=none",
      "-mconstructor-aliases", "-funwind-tables=2",
      // Cheaper compiles: the AST is dropped before code generation, values are not
      // named, and Clang's own output is not re-verified.
      "-clear-ast-before-backend", "-discard-value-names", "-disable-llvm-verifier",
      "-ferror-limit", "20"};
  if (level >= 2) {
    args.insert(args.end(), {"-vectorize-loops", "-vectorize-slp"});
  }
  if (vector_math_) args.push_back("-fveclib=libmvec");
  if (options.emulated_tls) args.push_back("-femulated-tls");
  if (options.nvrtc_lenient) args.push_back("-Wno-c++11-narrowing");
  for (const auto& dir : options.include_dirs) {
    args.push_back("-I");
    args.push_back(dir);
  }
  if (options.fastmath) {
    args.insert(args.end(), {"-menable-no-infs", "-menable-no-nans", "-fapprox-func",
                             "-funsafe-math-optimizations", "-fno-signed-zeros", "-mreassociate",
                             "-freciprocal-math", "-ffp-contract=fast", "-ffast-math",
                             "-ffinite-math-only", "-complex-range=basic"});
  } else {
    // No fused multiply-add: results equal NumPy's bit for bit.
    args.push_back("-ffp-contract=off");
  }
  for (const auto& feature : impl_->target_features) {
    args.push_back("-target-feature");
    args.push_back(feature);
  }
  return args;
}

std::unique_ptr<JitModule> ClangJit::compile(const std::string& source, const std::string& name,
                                             const JitOptions& options) {
  return load(compile_object(source, name, options), name);
}

ClangJit::Object ClangJit::compile_object(const std::string& source, const std::string& name,
                                          const JitOptions& options) {
  const std::string file_name = (name.empty() ? std::string("simt") : name) + ".cpp";

  // Diagnostics go to a string (never stderr): they become the JitError's text.
  // Declared before the CompilerInstance, which uses them until it is destroyed.
  std::string diagnostics;
  llvm::raw_string_ostream diag_stream(diagnostics);
  auto diag_options = llvm::makeIntrusiveRefCnt<clang::DiagnosticOptions>();
  diag_options->ShowColors = false;
  // Locations as #line gives them: errors in a linked source (cuda.jit(link=...))
  // name its file and line; the generated code's own lines stay as they are.
  diag_options->ShowPresumedLoc = true;

  auto context = std::make_unique<llvm::LLVMContext>();
  std::unique_ptr<llvm::Module> module;
  {
    // The source from memory, under its diagnostic name. Declared before the
    // CompilerInstance (and the null stream, where ExecuteAction would otherwise
    // print "N errors generated." to stderr) so both outlive it.
    auto buffer = llvm::MemoryBuffer::getMemBuffer(source, file_name);
    llvm::raw_null_ostream verbose;
    clang::CompilerInstance ci;
    ci.setVerboseOutputStream(verbose);
    ci.createDiagnostics(new clang::TextDiagnosticPrinter(diag_stream, diag_options.get()),
                         /*ShouldOwnClient=*/true);

    // The input named here sets the language (-x c++) for option parsing; it is
    // replaced by the in-memory buffer below.
    std::vector<std::string> args = cc1_args(options);
    args.insert(args.end(), {"-x", "c++", file_name});
    std::vector<const char*> argv;
    argv.reserve(args.size());
    for (const auto& a : args) argv.push_back(a.c_str());
    if (!clang::CompilerInvocation::CreateFromArgs(ci.getInvocation(), argv, ci.getDiagnostics()))
      throw JitError("simt cpu jit: bad compiler arguments: " + diagnostics);
    // The engine was made before the arguments were read: their -W options apply only
    // once processed (-Wno-c++11-narrowing for NVRTC's lenient braced initializers).
    clang::ProcessWarningOptions(ci.getDiagnostics(), ci.getDiagnosticOpts(),
                                 /*ReportDiags=*/false);

    // An empty file system under the buffer: nothing on disk is ever read,
    // unless the source asked for header search paths (a raw program's -I).
    auto& frontend = ci.getFrontendOpts();
    frontend.Inputs.clear();
    frontend.Inputs.emplace_back(buffer->getMemBufferRef(), clang::InputKind(clang::Language::CXX));
    if (options.include_dirs.empty())
      ci.createFileManager(llvm::makeIntrusiveRefCnt<llvm::vfs::InMemoryFileSystem>());
    else
      ci.createFileManager(llvm::vfs::getRealFileSystem());

    clang::EmitLLVMOnlyAction action(context.get());
    const bool ok = ci.ExecuteAction(action);
    if (!ok || ci.getDiagnostics().hasErrorOccurred()) {
      throw JitError(diagnostics.empty() ? "simt cpu jit: compiling " + file_name + " failed"
                                         : diagnostics);
    }
    module = action.takeModule();
    if (!module) throw JitError("simt cpu jit: no module for " + file_name + "\n" + diagnostics);
  }
  dump_ir(*module, file_name);

  // Everything the source defines for outside use: resolved below, which makes
  // the JIT link now (errors surface here, not at the first launch).
  std::vector<std::string> exported;
  for (const llvm::GlobalValue& gv : module->global_values()) {
    // Not llvm.used / llvm.compiler.used (appending-linkage lists the optimizer keeps:
    // -fveclib's vector functions are listed there), which no object file defines.
    if (!gv.isDeclaration() && !gv.hasLocalLinkage() && !gv.hasAppendingLinkage() &&
        !gv.getName().empty())
      exported.push_back(gv.getName().str());
  }

  // Machine code, on this thread, with a TargetMachine of this compile's own.
  llvm::orc::JITTargetMachineBuilder jtmb = impl_->jtmb;
  jtmb.setCodeGenOptLevel(codegen_level(options.opt_level));
  auto tm = jtmb.createTargetMachine();
  if (!tm) throw JitError("simt cpu jit: " + error_text(tm.takeError()));
  llvm::orc::SimpleCompiler codegen(**tm);
  auto object = codegen(*module);
  if (!object) throw JitError("simt cpu jit: code generation: " + error_text(object.takeError()));
  Object out;
  out.code = (*object)->getBuffer().str();
  out.exported = std::move(exported);
  out.diagnostics = std::move(diagnostics);
  return out;
}

std::unique_ptr<JitModule> ClangJit::load(const Object& object, const std::string& name) {
  const std::string file_name = (name.empty() ? std::string("simt") : name) + ".cpp";
  const std::vector<std::string>& exported = object.exported;
  std::string diagnostics = object.diagnostics;
  llvm::orc::LLJIT& jit = *impl_->jit;
  auto dylib = jit.createJITDylib("simt." + name + "." + std::to_string(++impl_->dylib_counter));
  if (!dylib) throw JitError("simt cpu jit: " + error_text(dylib.takeError()));
  llvm::orc::JITDylib& jd = *dylib;
  auto fail = [&](std::string message) -> JitError {
    llvm::consumeError(jit.getExecutionSession().removeJITDylib(jd));
    return JitError("simt cpu jit: " + file_name + ": " + message);
  };

  std::string session_errors;
  t_session_errors = &session_errors;
  struct ResetSink {
    ~ResetSink() { t_session_errors = nullptr; }
  } reset_sink;
  auto link_error = [&](llvm::Error err) {
    // The lookup's error only says which of our symbols failed; the reporter
    // says why.
    return fail(session_errors + error_text(std::move(err)));
  };

  if (auto err =
          jit.addObjectFile(jd, llvm::MemoryBuffer::getMemBufferCopy(object.code, file_name)))
    throw link_error(std::move(err));

  llvm::orc::SymbolLookupSet lookup;
  for (const auto& n : exported) lookup.add(jit.mangleAndIntern(n));
  auto found = jit.getExecutionSession().lookup(
      llvm::orc::makeJITDylibSearchOrder(&jd, llvm::orc::JITDylibLookupFlags::MatchAllSymbols),
      std::move(lookup));
  if (!found) throw link_error(found.takeError());

  std::map<std::string, void*, std::less<>> symbols;
  for (const auto& n : exported) {
    auto it = found->find(jit.mangleAndIntern(n));
    if (it != found->end()) symbols.emplace(n, it->second.getAddress().toPtr<void*>());
  }
  return std::unique_ptr<JitModule>(
      new JitModule(jit, jd, name, std::move(diagnostics), std::move(symbols)));
}

}  // namespace simt::cpu
