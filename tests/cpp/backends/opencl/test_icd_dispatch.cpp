// The dispatch-table positions simt uses to call a driver opened without an ICD loader
// (src/backends/opencl/icd_dispatch.h), checked against the Khronos header that defines
// the table, where it is installed (opencl-c-headers, which scripts/setup.sh's
// ocl-icd-opencl-dev brings). simt itself includes no OpenCL header; only this test does.

#include <gtest/gtest.h>

#include <cstddef>

#include "backends/opencl/icd_dispatch.h"

#if __has_include(<CL/cl_icd.h>)
#define CL_TARGET_OPENCL_VERSION 300
#define CL_USE_DEPRECATED_OPENCL_1_0_APIS
#define CL_USE_DEPRECATED_OPENCL_1_1_APIS
#define CL_USE_DEPRECATED_OPENCL_1_2_APIS
#define CL_USE_DEPRECATED_OPENCL_2_0_APIS
#include <CL/cl_icd.h>
#define SIMT_HAVE_CL_ICD_H 1
#endif

namespace {

#ifdef SIMT_HAVE_CL_ICD_H
#define SIMT_CHECK_SLOT(name, slot)                                        \
  static_assert(offsetof(cl_icd_dispatch, name) == (slot) * sizeof(void*), \
                #name "'s position in the ICD dispatch table differs from CL/cl_icd.h's");
SIMT_OPENCL_ICD_SLOTS(SIMT_CHECK_SLOT)
SIMT_OPENCL_ICD_SVM_SLOTS(SIMT_CHECK_SLOT)
#undef SIMT_CHECK_SLOT
static_assert(offsetof(cl_icd_dispatch, clGetPlatformIDs) ==
              simt::opencl::icd::kGetPlatformIDsSlot * sizeof(void*));
static_assert(offsetof(cl_icd_dispatch, clGetExtensionFunctionAddress) ==
              simt::opencl::icd::kGetExtensionFunctionAddressSlot * sizeof(void*));
#endif

TEST(IcdDispatch, PositionsMatchTheKhronosHeader) {
#ifdef SIMT_HAVE_CL_ICD_H
  // The static_asserts above did the work at compile time; this records that they ran.
  int slots = 0;
#define SIMT_COUNT_SLOT(name, slot) ++slots;
  SIMT_OPENCL_ICD_SLOTS(SIMT_COUNT_SLOT)
#undef SIMT_COUNT_SLOT
  EXPECT_EQ(slots, 36);
#else
  GTEST_SKIP() << "CL/cl_icd.h is not installed (apt install opencl-c-headers)";
#endif
}

}  // namespace
