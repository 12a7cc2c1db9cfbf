# SIMT_STATIC_LLVM: LLVM's static component libraries for the self-contained wheel.
include_guard(GLOBAL)

# The LLVM components the static Clang libraries and ClangJit use (the union of the Clang
# libraries' LLVM_LINK_COMPONENTS in Clang 19, plus the ORC JIT); LLVM's exported targets
# bring what these depend on, in link order.
set(SIMT_LLVM_STATIC_COMPONENTS
    native OrcJIT JITLink ExecutionEngine Passes IPO LTO Linker Coverage ProfileData IRReader
    IRPrinter BitReader BitWriter Instrumentation ObjCARCOpts Coroutines HipStdPar Extensions
    FrontendDriver FrontendHLSL FrontendOffloading FrontendOpenMP Option WindowsDriver
    Vectorize AggressiveInstCombine InstCombine ScalarOpts TransformUtils CodeGen CodeGenTypes
    Analysis Target TargetParser MC Object BinaryFormat Core Demangle Support)

# Sets out_var to the static LLVM libraries (imported targets of LLVMExports.cmake).
function(simt_static_llvm_libraries out_var)
  # LLVMSupport's link interface names zstd::libzstd_shared, which LLVMConfig.cmake only
  # defines when libzstd-dev is installed. libLLVM.so needs the runtime library, so
  # libzstd.so.1 is there whenever LLVM is: point the target at it.
  if(NOT TARGET zstd::libzstd_shared)
    find_library(SIMT_ZSTD_LIBRARY NAMES zstd libzstd.so.1 REQUIRED)
    add_library(zstd::libzstd_shared SHARED IMPORTED GLOBAL)
    set_target_properties(zstd::libzstd_shared PROPERTIES IMPORTED_LOCATION
                                                          "${SIMT_ZSTD_LIBRARY}")
  endif()
  # LLVMExtensions (needed by LLVMLTO, which clangCodeGen uses) names Polly, whose
  # libPolly.a is not installed; polly_stub.cpp stands in for the one function Clang calls.
  if(TARGET LLVMExtensions)
    set_property(TARGET LLVMExtensions PROPERTY INTERFACE_LINK_LIBRARIES LLVMSupport)
  endif()
  llvm_map_components_to_libnames(_libraries ${SIMT_LLVM_STATIC_COMPONENTS})
  set(${out_var} ${_libraries} PARENT_SCOPE)
endfunction()

# The Python module of the wheel: the Polly stand-in (an object of the module itself, so it
# is linked whatever order the archives come in), and the linker options that keep every
# archive's symbols out of the dynamic symbol table.
function(simt_static_llvm_module target)
  target_sources(${target} PRIVATE
                 "${PROJECT_SOURCE_DIR}/src/backends/cpu/static_llvm/polly_stub.cpp")
  target_include_directories(${target} SYSTEM PRIVATE ${LLVM_INCLUDE_DIRS})
  if(UNIX AND NOT APPLE)
    # --exclude-libs,ALL: the symbols of LLVM, Clang, simt's layers and nanobind become
    # local, so the module exports PyInit__core and nothing another LLVM in the process
    # (llvmlite, Triton, PoCL's) could bind to. --as-needed: no DT_NEEDED for the shared
    # libraries LLVM's targets name but the objects linked never call (Z3, libxml2), so
    # auditwheel has nothing to vendor for them. --gc-sections: LLVM's objects are built
    # with -ffunction-sections; their unreferenced functions go.
    target_link_options(${target} PRIVATE "LINKER:--exclude-libs,ALL" "LINKER:--as-needed"
                        "LINKER:--gc-sections")
  endif()
endfunction()
