// Only in the SIMT_STATIC_LLVM build (cmake/SimtStaticLlvm.cmake adds it to the module).
//
// Debian's LLVM 19 is built with Polly linked into its tools, so clangCodeGen's pass
// pipeline calls getPollyPluginInfo() for every compile (llvm/Support/Extension.def),
// and libLLVM.so carries Polly. The static link has no Polly (libPolly.a is another
// package, with isl behind it): this plugin registers nothing, which is what Polly
// does too unless -mllvm -polly is given, and simt never gives it.
#include <llvm/Config/llvm-config.h>
#include <llvm/Passes/PassPlugin.h>

llvm::PassPluginLibraryInfo getPollyPluginInfo() {
  return {LLVM_PLUGIN_API_VERSION, "Polly (not linked)", LLVM_VERSION_STRING,
          [](llvm::PassBuilder&) {}};
}
