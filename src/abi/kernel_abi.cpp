#include "abi/kernel_abi.h"

namespace simt::abi {

const char* language_name(Language language) {
  switch (language) {
    case Language::Cuda:
      return "cuda";
    case Language::OpenCL:
      return "opencl";
    case Language::Cpp:
      return "cpp";
  }
  return "?";
}

}  // namespace simt::abi
