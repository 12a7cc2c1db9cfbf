// simt's version string (the project version, e.g. "0.1.0").
#pragma once

namespace simt {

const char* version();

}  // namespace simt
