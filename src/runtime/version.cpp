#include "runtime/version.h"

#ifndef SIMT_VERSION
#error "SIMT_VERSION must be defined by the build (CMakeLists.txt)"
#endif

namespace simt {

const char* version() { return SIMT_VERSION; }

}  // namespace simt
