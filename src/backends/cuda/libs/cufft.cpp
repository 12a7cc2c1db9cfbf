#include "backends/cuda/libs/cufft.h"

#include <stdexcept>
#include <tuple>
#include <utility>

#include "backends/cuda/cuda_device.h"
#include "backends/cuda/libs/toolkit_library.h"

namespace simt::cuda {

namespace {

constexpr const char* kCufftSonames[] = {"libcufft.so.12", "libcufft.so.11"};

constexpr ToolkitLibrary kCufftLibrary{
    "cuFFT", kCufftSonames, "SIMT_CUFFT_PATH",
    "pip install nvidia-cufft (CUDA 13) or nvidia-cufft-cu12, or install the CUDA toolkit"};

struct ResultName {
  cufftResult result;
  const char* name;
};

constexpr ResultName kResultNames[] = {
    {CUFFT_SUCCESS, "CUFFT_SUCCESS"},
    {CUFFT_INVALID_PLAN, "CUFFT_INVALID_PLAN"},
    {CUFFT_ALLOC_FAILED, "CUFFT_ALLOC_FAILED (out of device memory for the plan's work area)"},
    {CUFFT_INVALID_TYPE, "CUFFT_INVALID_TYPE"},
    {CUFFT_INVALID_VALUE, "CUFFT_INVALID_VALUE"},
    {CUFFT_INTERNAL_ERROR, "CUFFT_INTERNAL_ERROR"},
    {CUFFT_EXEC_FAILED, "CUFFT_EXEC_FAILED"},
    {CUFFT_SETUP_FAILED, "CUFFT_SETUP_FAILED"},
    {CUFFT_INVALID_SIZE, "CUFFT_INVALID_SIZE"},
    {CUFFT_UNALIGNED_DATA, "CUFFT_UNALIGNED_DATA"},
    {CUFFT_INVALID_DEVICE, "CUFFT_INVALID_DEVICE"},
    {CUFFT_NO_WORKSPACE, "CUFFT_NO_WORKSPACE"},
    {CUFFT_NOT_IMPLEMENTED, "CUFFT_NOT_IMPLEMENTED"},
    {CUFFT_NOT_SUPPORTED, "CUFFT_NOT_SUPPORTED"},
    {CUFFT_MISSING_DEPENDENCY, "CUFFT_MISSING_DEPENDENCY"},
    {CUFFT_NVRTC_FAILURE, "CUFFT_NVRTC_FAILURE"},
    {CUFFT_NVJITLINK_FAILURE, "CUFFT_NVJITLINK_FAILURE"},
    {CUFFT_NVSHMEM_FAILURE, "CUFFT_NVSHMEM_FAILURE"},
};

constexpr auto kCufftEntries = std::tuple{
    SIMT_LIBRARY_ENTRY(CufftFunctions, cufftCreate),
    SIMT_LIBRARY_ENTRY(CufftFunctions, cufftDestroy),
    SIMT_LIBRARY_ENTRY(CufftFunctions, cufftMakePlanMany64),
    SIMT_LIBRARY_ENTRY(CufftFunctions, cufftSetStream),
    SIMT_LIBRARY_ENTRY(CufftFunctions, cufftExecC2C),
    SIMT_LIBRARY_ENTRY(CufftFunctions, cufftExecZ2Z),
    SIMT_LIBRARY_ENTRY(CufftFunctions, cufftExecR2C),
    SIMT_LIBRARY_ENTRY(CufftFunctions, cufftExecD2Z),
    SIMT_LIBRARY_ENTRY(CufftFunctions, cufftExecC2R),
    SIMT_LIBRARY_ENTRY(CufftFunctions, cufftExecZ2D),
    SIMT_LIBRARY_ENTRY(CufftFunctions, cufftGetProperty),
};

}  // namespace

std::string cufft_result_name(cufftResult result) {
  for (const ResultName& row : kResultNames)
    if (row.result == result) return row.name;
  return "CUFFT_STATUS_" + std::to_string(static_cast<int>(result));
}

Cufft::Cufft(runtime::SharedLibrary library, const CufftFunctions& functions)
    : library_(std::move(library)),
      fn_(functions),
      version_(property_version(fn_.cufftGetProperty)) {}

std::unique_ptr<Cufft> Cufft::load(std::string* why_not) {
  auto loaded = load_toolkit_library<CufftFunctions>(kCufftLibrary, kCufftEntries, why_not);
  if (!loaded) return nullptr;
  return std::unique_ptr<Cufft>(new Cufft(std::move(loaded->library), loaded->fn));
}

const Cufft* Cufft::get(std::string* why_not) { return runtime::load_once<Cufft>(why_not); }

CufftPlan::CufftPlan(const Cufft& cufft, std::shared_ptr<const PrimaryContext> context,
                     cufftType type, std::vector<int64_t> n, int64_t batch)
    : cufft_(cufft), context_(std::move(context)), type_(type), n_(std::move(n)), batch_(batch) {
  if (n_.empty() || n_.size() > 3) {
    throw std::invalid_argument("cuFFT plans have rank 1 to 3, not " + std::to_string(n_.size()));
  }
  context_->make_current();
  check(cufft_.fn().cufftCreate(&plan_), "cufftCreate");
  created_ = true;
  std::vector<long long> sizes(n_.begin(), n_.end());
  // Null embeds: the basic layout, where strides and distances are ignored.
  cufftResult result = cufft_.fn().cufftMakePlanMany64(
      plan_, static_cast<int>(sizes.size()), sizes.data(), nullptr, 1, 0, nullptr, 1, 0, type_,
      static_cast<long long>(batch_), &work_size_);
  if (result != CUFFT_SUCCESS) {
    cufft_.fn().cufftDestroy(plan_);
    created_ = false;
    check(result, "cufftMakePlanMany64");
  }
}

CufftPlan::~CufftPlan() {
  if (!created_) return;
  // Errors are ignored: nothing can be done about them in a destructor.
  context_->make_current_noexcept();
  cufft_.fn().cufftDestroy(plan_);
}

void CufftPlan::check(cufftResult result, const char* call) const {
  if (result == CUFFT_SUCCESS) return;
  std::string sizes;
  for (int64_t e : n_) sizes += (sizes.empty() ? "" : ", ") + std::to_string(e);
  throw runtime::DeviceError(std::string(call) + " failed on " + context_->label() + ": " +
                             cufft_result_name(result) + " (transform of sizes (" + sizes +
                             "), batch " + std::to_string(batch_) + ") [" + cufft_.library_path() +
                             "]");
}

void CufftPlan::execute(void* in, void* out, bool forward, CUstream stream) {
  std::lock_guard lock(mutex_);
  context_->make_current();
  const CufftFunctions& fn = cufft_.fn();
  check(fn.cufftSetStream(plan_, stream), "cufftSetStream");
  const int direction = forward ? CUFFT_FORWARD : CUFFT_INVERSE;
  switch (type_) {
    case CUFFT_C2C:
      return check(fn.cufftExecC2C(plan_, in, out, direction), "cufftExecC2C");
    case CUFFT_Z2Z:
      return check(fn.cufftExecZ2Z(plan_, in, out, direction), "cufftExecZ2Z");
    case CUFFT_R2C:
      return check(fn.cufftExecR2C(plan_, in, out), "cufftExecR2C");
    case CUFFT_D2Z:
      return check(fn.cufftExecD2Z(plan_, in, out), "cufftExecD2Z");
    case CUFFT_C2R:
      return check(fn.cufftExecC2R(plan_, in, out), "cufftExecC2R");
    case CUFFT_Z2D:
      return check(fn.cufftExecZ2D(plan_, in, out), "cufftExecZ2D");
  }
  throw std::invalid_argument("cuFFT: unknown transform type " + std::to_string(type_));
}

}  // namespace simt::cuda
