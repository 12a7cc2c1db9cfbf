#include "backends/opencl/opencl_api.h"

#include <algorithm>
#include <cstdio>
#include <cstdlib>

#include "backends/opencl/icd_dispatch.h"

namespace simt::opencl {

namespace {

struct ErrorName {
  cl_int code;
  const char* name;
};

constexpr ErrorName kErrorNames[] = {
    {CL_SUCCESS, "CL_SUCCESS"},
    {CL_DEVICE_NOT_FOUND, "CL_DEVICE_NOT_FOUND"},
    {CL_DEVICE_NOT_AVAILABLE, "CL_DEVICE_NOT_AVAILABLE"},
    {CL_COMPILER_NOT_AVAILABLE, "CL_COMPILER_NOT_AVAILABLE"},
    {CL_MEM_OBJECT_ALLOCATION_FAILURE, "CL_MEM_OBJECT_ALLOCATION_FAILURE"},
    {CL_OUT_OF_RESOURCES, "CL_OUT_OF_RESOURCES"},
    {CL_OUT_OF_HOST_MEMORY, "CL_OUT_OF_HOST_MEMORY"},
    {CL_PROFILING_INFO_NOT_AVAILABLE, "CL_PROFILING_INFO_NOT_AVAILABLE"},
    {CL_MEM_COPY_OVERLAP, "CL_MEM_COPY_OVERLAP"},
    {CL_IMAGE_FORMAT_MISMATCH, "CL_IMAGE_FORMAT_MISMATCH"},
    {CL_IMAGE_FORMAT_NOT_SUPPORTED, "CL_IMAGE_FORMAT_NOT_SUPPORTED"},
    {CL_BUILD_PROGRAM_FAILURE, "CL_BUILD_PROGRAM_FAILURE"},
    {CL_MAP_FAILURE, "CL_MAP_FAILURE"},
    {CL_MISALIGNED_SUB_BUFFER_OFFSET, "CL_MISALIGNED_SUB_BUFFER_OFFSET"},
    {CL_EXEC_STATUS_ERROR_FOR_EVENTS_IN_WAIT_LIST, "CL_EXEC_STATUS_ERROR_FOR_EVENTS_IN_WAIT_LIST"},
    {CL_COMPILE_PROGRAM_FAILURE, "CL_COMPILE_PROGRAM_FAILURE"},
    {CL_LINKER_NOT_AVAILABLE, "CL_LINKER_NOT_AVAILABLE"},
    {CL_LINK_PROGRAM_FAILURE, "CL_LINK_PROGRAM_FAILURE"},
    {CL_DEVICE_PARTITION_FAILED, "CL_DEVICE_PARTITION_FAILED"},
    {CL_KERNEL_ARG_INFO_NOT_AVAILABLE, "CL_KERNEL_ARG_INFO_NOT_AVAILABLE"},
    {CL_INVALID_VALUE, "CL_INVALID_VALUE"},
    {CL_INVALID_DEVICE_TYPE, "CL_INVALID_DEVICE_TYPE"},
    {CL_INVALID_PLATFORM, "CL_INVALID_PLATFORM"},
    {CL_INVALID_DEVICE, "CL_INVALID_DEVICE"},
    {CL_INVALID_CONTEXT, "CL_INVALID_CONTEXT"},
    {CL_INVALID_QUEUE_PROPERTIES, "CL_INVALID_QUEUE_PROPERTIES"},
    {CL_INVALID_COMMAND_QUEUE, "CL_INVALID_COMMAND_QUEUE"},
    {CL_INVALID_HOST_PTR, "CL_INVALID_HOST_PTR"},
    {CL_INVALID_MEM_OBJECT, "CL_INVALID_MEM_OBJECT"},
    {CL_INVALID_IMAGE_FORMAT_DESCRIPTOR, "CL_INVALID_IMAGE_FORMAT_DESCRIPTOR"},
    {CL_INVALID_IMAGE_SIZE, "CL_INVALID_IMAGE_SIZE"},
    {CL_INVALID_SAMPLER, "CL_INVALID_SAMPLER"},
    {CL_INVALID_BINARY, "CL_INVALID_BINARY"},
    {CL_INVALID_BUILD_OPTIONS, "CL_INVALID_BUILD_OPTIONS"},
    {CL_INVALID_PROGRAM, "CL_INVALID_PROGRAM"},
    {CL_INVALID_PROGRAM_EXECUTABLE, "CL_INVALID_PROGRAM_EXECUTABLE"},
    {CL_INVALID_KERNEL_NAME, "CL_INVALID_KERNEL_NAME"},
    {CL_INVALID_KERNEL_DEFINITION, "CL_INVALID_KERNEL_DEFINITION"},
    {CL_INVALID_KERNEL, "CL_INVALID_KERNEL"},
    {CL_INVALID_ARG_INDEX, "CL_INVALID_ARG_INDEX"},
    {CL_INVALID_ARG_VALUE, "CL_INVALID_ARG_VALUE"},
    {CL_INVALID_ARG_SIZE, "CL_INVALID_ARG_SIZE"},
    {CL_INVALID_KERNEL_ARGS, "CL_INVALID_KERNEL_ARGS"},
    {CL_INVALID_WORK_DIMENSION, "CL_INVALID_WORK_DIMENSION"},
    {CL_INVALID_WORK_GROUP_SIZE, "CL_INVALID_WORK_GROUP_SIZE"},
    {CL_INVALID_WORK_ITEM_SIZE, "CL_INVALID_WORK_ITEM_SIZE"},
    {CL_INVALID_GLOBAL_OFFSET, "CL_INVALID_GLOBAL_OFFSET"},
    {CL_INVALID_EVENT_WAIT_LIST, "CL_INVALID_EVENT_WAIT_LIST"},
    {CL_INVALID_EVENT, "CL_INVALID_EVENT"},
    {CL_INVALID_OPERATION, "CL_INVALID_OPERATION"},
    {CL_INVALID_GL_OBJECT, "CL_INVALID_GL_OBJECT"},
    {CL_INVALID_BUFFER_SIZE, "CL_INVALID_BUFFER_SIZE"},
    {CL_INVALID_MIP_LEVEL, "CL_INVALID_MIP_LEVEL"},
    {CL_INVALID_GLOBAL_WORK_SIZE, "CL_INVALID_GLOBAL_WORK_SIZE"},
    {CL_INVALID_PROPERTY, "CL_INVALID_PROPERTY"},
    {CL_INVALID_IMAGE_DESCRIPTOR, "CL_INVALID_IMAGE_DESCRIPTOR"},
    {CL_INVALID_COMPILER_OPTIONS, "CL_INVALID_COMPILER_OPTIONS"},
    {CL_INVALID_LINKER_OPTIONS, "CL_INVALID_LINKER_OPTIONS"},
    {CL_INVALID_DEVICE_PARTITION_COUNT, "CL_INVALID_DEVICE_PARTITION_COUNT"},
    {CL_INVALID_PIPE_SIZE, "CL_INVALID_PIPE_SIZE"},
    {CL_INVALID_DEVICE_QUEUE, "CL_INVALID_DEVICE_QUEUE"},
    {CL_INVALID_SPEC_ID, "CL_INVALID_SPEC_ID"},
    {CL_MAX_SIZE_RESTRICTION_EXCEEDED, "CL_MAX_SIZE_RESTRICTION_EXCEEDED"},
    {CL_PLATFORM_NOT_FOUND_KHR, "CL_PLATFORM_NOT_FOUND_KHR"},
};

// Size-then-fill query shared by the string-valued info calls. Trailing NULs
// are dropped: OpenCL counts the terminator in the size.
template <class Query>
std::string query_string(Query query, std::string_view call) {
  std::size_t size = 0;
  check(query(0, nullptr, &size), call);
  std::string value(size, '\0');
  if (size > 0) check(query(size, value.data(), nullptr), call);
  while (!value.empty() && value.back() == '\0') value.pop_back();
  return value;
}

std::string platform_string(const OpenCLApi& api, cl_platform_id platform, cl_platform_info what) {
  return query_string(
      [&](std::size_t size, void* value, std::size_t* size_ret) {
        return api.clGetPlatformInfo(platform, what, size, value, size_ret);
      },
      "clGetPlatformInfo");
}

std::string device_string(const OpenCLApi& api, cl_device_id device, cl_device_info what) {
  return query_string(
      [&](std::size_t size, void* value, std::size_t* size_ret) {
        return api.clGetDeviceInfo(device, what, size, value, size_ret);
      },
      "clGetDeviceInfo");
}

template <class T>
T device_value(const OpenCLApi& api, cl_device_id device, cl_device_info what) {
  T value{};
  check(api.clGetDeviceInfo(device, what, sizeof(T), &value, nullptr), "clGetDeviceInfo");
  return value;
}

// CL_DEVICE_SUB_GROUP_SIZES_INTEL (cl_intel_required_subgroup_size): the sub-group
// sizes a kernel may require.
constexpr cl_device_info kSubGroupSizesIntel = 0x4108;

// What `info`'s device lacks to run CUDA's warps as sub-groups: shuffles and ballots
// (cl_khr_subgroup_shuffle, _ballot), the sub-group ids and barrier (cl_khr_subgroups or
// cl_intel_subgroups), and a way to make every sub-group 32 work-items wide (a kernel
// attribute of cl_intel_required_subgroup_size naming a size the device lists). Empty
// when it has all of them.
std::string warp_subgroups_missing(const OpenCLApi& api, cl_device_id device,
                                   const DeviceInfo& info) {
  std::string missing;
  auto need = [&](bool found, const char* what) {
    if (!found) missing += (missing.empty() ? "" : ", ") + std::string(what);
  };
  need(info.has_extension("cl_khr_subgroup_shuffle"), "cl_khr_subgroup_shuffle");
  need(info.has_extension("cl_khr_subgroup_ballot"), "cl_khr_subgroup_ballot");
  need(info.subgroups, "cl_khr_subgroups or cl_intel_subgroups");
  bool size_32 = false;
  if (info.has_extension("cl_intel_required_subgroup_size")) {
    std::size_t bytes = 0;
    if (api.clGetDeviceInfo(device, kSubGroupSizesIntel, 0, nullptr, &bytes) == CL_SUCCESS &&
        bytes >= sizeof(std::size_t)) {
      std::vector<std::size_t> sizes(bytes / sizeof(std::size_t));
      if (api.clGetDeviceInfo(device, kSubGroupSizesIntel, sizes.size() * sizeof(std::size_t),
                              sizes.data(), nullptr) == CL_SUCCESS)
        size_32 = std::find(sizes.begin(), sizes.end(), std::size_t{32}) != sizes.end();
    }
  }
  need(size_32, "cl_intel_required_subgroup_size with sub-groups of 32");
  return missing;
}

DeviceInfo describe_device(const OpenCLApi& api, cl_platform_id platform,
                           const std::string& platform_name, cl_device_id device) {
  DeviceInfo info;
  info.platform = platform;
  info.device = device;
  info.platform_name = platform_name;
  info.name = device_string(api, device, CL_DEVICE_NAME);
  info.vendor = device_string(api, device, CL_DEVICE_VENDOR);
  info.version = device_string(api, device, CL_DEVICE_VERSION);
  info.driver_version = device_string(api, device, CL_DRIVER_VERSION);
  info.opencl_c_version = device_string(api, device, CL_DEVICE_OPENCL_C_VERSION);
  info.extensions = device_string(api, device, CL_DEVICE_EXTENSIONS);

  // A device may report several type bits (e.g. GPU | DEFAULT); the kind of
  // hardware decides.
  auto type = device_value<cl_device_type>(api, device, CL_DEVICE_TYPE);
  if (type & CL_DEVICE_TYPE_GPU) {
    info.type = DeviceType::gpu;
  } else if (type & CL_DEVICE_TYPE_CPU) {
    info.type = DeviceType::cpu;
  } else if (type & CL_DEVICE_TYPE_ACCELERATOR) {
    info.type = DeviceType::accelerator;
  }

  info.compute_units = device_value<cl_uint>(api, device, CL_DEVICE_MAX_COMPUTE_UNITS);
  info.global_mem_size = device_value<cl_ulong>(api, device, CL_DEVICE_GLOBAL_MEM_SIZE);
  info.local_mem_size = device_value<cl_ulong>(api, device, CL_DEVICE_LOCAL_MEM_SIZE);
  info.max_mem_alloc_size = device_value<cl_ulong>(api, device, CL_DEVICE_MAX_MEM_ALLOC_SIZE);
  info.max_work_group_size = device_value<std::size_t>(api, device, CL_DEVICE_MAX_WORK_GROUP_SIZE);
  info.mem_base_addr_align = device_value<cl_uint>(api, device, CL_DEVICE_MEM_BASE_ADDR_ALIGN) / 8;
  auto dimensions = device_value<cl_uint>(api, device, CL_DEVICE_MAX_WORK_ITEM_DIMENSIONS);
  info.max_work_item_sizes.resize(dimensions);
  if (dimensions > 0) {
    check(
        api.clGetDeviceInfo(device, CL_DEVICE_MAX_WORK_ITEM_SIZES, dimensions * sizeof(std::size_t),
                            info.max_work_item_sizes.data(), nullptr),
        "clGetDeviceInfo");
  }

  // In OpenCL 1.2 doubles are an optional core feature: a device may support
  // them without listing cl_khr_fp64, which the double FP config reveals.
  // Older devices reject that query, so its failure just means "no".
  cl_device_fp_config double_config = 0;
  if (api.clGetDeviceInfo(device, CL_DEVICE_DOUBLE_FP_CONFIG, sizeof(double_config), &double_config,
                          nullptr) != CL_SUCCESS) {
    double_config = 0;
  }
  info.fp64 = info.has_extension("cl_khr_fp64") || double_config != 0;
  info.fp16 = info.has_extension("cl_khr_fp16");
  info.int64_atomics = info.has_extension("cl_khr_int64_base_atomics");
  info.subgroups =
      info.has_extension("cl_khr_subgroups") || info.has_extension("cl_intel_subgroups");
  info.warp_subgroups_missing = warp_subgroups_missing(api, device, info);
  // A 1.2 device rejects the 2.0 query: no SVM.
  cl_device_svm_capabilities svm = 0;
  if (api.clGetDeviceInfo(device, CL_DEVICE_SVM_CAPABILITIES, sizeof(svm), &svm, nullptr) !=
      CL_SUCCESS) {
    svm = 0;
  }
  info.svm_fine_grain_buffer = (svm & CL_DEVICE_SVM_FINE_GRAIN_BUFFER) != 0 &&
                               api.clSVMAlloc != nullptr && api.clSVMFree != nullptr;
  cl_device_fp_config single_config = 0;
  if (api.clGetDeviceInfo(device, CL_DEVICE_SINGLE_FP_CONFIG, sizeof(single_config), &single_config,
                          nullptr) != CL_SUCCESS) {
    single_config = 0;
  }
  info.fp32_correctly_rounded_divide_sqrt =
      (single_config & CL_FP_CORRECTLY_ROUNDED_DIVIDE_SQRT) != 0;
  return info;
}

const OpenCLApi& require_api() {
  std::string why_not;
  const OpenCLApi* api = OpenCLApi::get(&why_not);
  if (api == nullptr) throw std::runtime_error("OpenCL is unavailable: " + why_not);
  return *api;
}

}  // namespace

const char* error_name(cl_int code) {
  for (const ErrorName& entry : kErrorNames) {
    if (entry.code == code) return entry.name;
  }
  return "CL_UNKNOWN_ERROR";
}

OpenCLError::OpenCLError(std::string_view call, cl_int code)
    : std::runtime_error(std::string(call) + " failed: " + error_name(code) + " (" +
                         std::to_string(code) + ")"),
      code_(code) {}

void check(cl_int code, std::string_view call) {
  if (code != CL_SUCCESS) throw OpenCLError(call, code);
}

std::unique_ptr<OpenCLApi> OpenCLApi::load(std::string* why_not) {
  std::vector<std::string> candidates;
  const char* explicit_path = std::getenv("SIMT_OPENCL_LIBRARY");
  if (explicit_path != nullptr && explicit_path[0] != '\0') {
    candidates.emplace_back(explicit_path);
  } else {
    // The ICD loader's soname first: the unversioned name exists only where
    // development packages are installed.
    candidates = {"libOpenCL.so.1", "libOpenCL.so"};
  }
  std::string reason;
  std::optional<runtime::SharedLibrary> library =
      runtime::SharedLibrary::open_first(candidates, &reason);
  if (!library) {
    if (why_not != nullptr) {
      *why_not =
          "OpenCL library not found (install an ICD loader and a driver: apt install "
          "ocl-icd-libopencl1 pocl-opencl-icd, or PoCL from pip: pip install 'simt[pocl]'; "
          "or set SIMT_OPENCL_LIBRARY); " +
          reason;
    }
    return nullptr;
  }
  // $SIMT_OPENCL_LIBRARY may name a driver rather than a loader: a driver built as an ICD
  // exports clGetExtensionFunctionAddress but not clGetPlatformIDs.
  if (library->raw_symbol("clGetPlatformIDs") == nullptr &&
      library->raw_symbol("clGetExtensionFunctionAddress") != nullptr) {
    return from_driver(std::move(*library), why_not);
  }
  return from_loader(std::move(*library), why_not);
}

std::unique_ptr<OpenCLApi> OpenCLApi::from_loader(runtime::SharedLibrary library,
                                                  std::string* why_not) {
  std::unique_ptr<OpenCLApi> api(new OpenCLApi(std::move(library), Kind::loader));
  try {
    api->clGetPlatformIDs =
        api->library_.require<decltype(api->clGetPlatformIDs)>("clGetPlatformIDs");
#define SIMT_OPENCL_REQUIRE(name, slot) \
  api->name = api->library_.require<decltype(api->name)>(#name);
    SIMT_OPENCL_ICD_SLOTS(SIMT_OPENCL_REQUIRE)
#undef SIMT_OPENCL_REQUIRE
#define SIMT_OPENCL_OPTIONAL(name, slot) \
  api->name = api->library_.symbol<decltype(api->name)>(#name);
    SIMT_OPENCL_ICD_SVM_SLOTS(SIMT_OPENCL_OPTIONAL)
#undef SIMT_OPENCL_OPTIONAL
    api->for_platform_ = api->library_.symbol<decltype(api->for_platform_)>(
        "clGetExtensionFunctionAddressForPlatform");
  } catch (const std::exception& error) {
    if (why_not != nullptr) *why_not = std::string("unusable OpenCL library: ") + error.what();
    return nullptr;
  }
  return api;
}

namespace {

// The major version of CL_PLATFORM_VERSION ("OpenCL 3.0 PoCL ..."); 0 when unreadable.
int platform_major_version(const OpenCLApi& api, cl_platform_id platform) {
  try {
    const std::string version = platform_string(api, platform, CL_PLATFORM_VERSION);
    int major = 0;
    return std::sscanf(version.c_str(), "OpenCL %d", &major) == 1 ? major : 0;
  } catch (const OpenCLError&) {
    return 0;
  }
}

// A note after a driver's load error that says the process loaded an older oneTBB first
// (simt's CPU backend links the system's), which the driver's own TBB would replace if
// preloaded; empty for any other error. Intel's CPU runtime from pip needs a newer TBB
// than Debian 12's.
std::string older_tbb_note(const std::string& path, const std::string& reason) {
  if (reason.find("undefined symbol: _ZN3tbb") == std::string::npos) return "";
  const std::size_t slash = path.rfind('/');
  const std::string folder = slash == std::string::npos ? "." : path.substr(0, slash);
  return " (the driver needs a newer oneTBB than the one this process loaded first, which "
         "simt's CPU backend links; load the driver's own first: LD_PRELOAD=" +
         folder + "/libtbb.so.12)";
}

}  // namespace

std::unique_ptr<OpenCLApi> OpenCLApi::load_driver(const std::string& path, std::string* why_not) {
  std::string reason;
  std::optional<runtime::SharedLibrary> library = runtime::SharedLibrary::open(path, &reason);
  if (!library) {
    if (why_not != nullptr) *why_not = "cannot be opened: " + reason + older_tbb_note(path, reason);
    return nullptr;
  }
  return from_driver(std::move(*library), why_not);
}

std::unique_ptr<OpenCLApi> OpenCLApi::from_driver(runtime::SharedLibrary library,
                                                  std::string* why_not) {
  const std::string path = library.path();
  auto fail = [&](const std::string& text) -> std::unique_ptr<OpenCLApi> {
    if (why_not != nullptr) *why_not = path + " is no usable OpenCL driver: " + text;
    return nullptr;
  };
  // cl_khr_icd: a driver's one exported entry point, which gives the platform list.
  using GetAddress = void* (*)(const char* name);
  auto get_address = library.symbol<GetAddress>("clGetExtensionFunctionAddress");
  if (get_address == nullptr) {
    return fail("it exports neither clGetPlatformIDs nor clGetExtensionFunctionAddress");
  }
  using GetPlatforms = decltype(OpenCLApi::clGetPlatformIDs);
  auto icd_platforms = reinterpret_cast<GetPlatforms>(get_address("clIcdGetPlatformIDsKHR"));
  if (icd_platforms == nullptr) return fail("no clIcdGetPlatformIDsKHR (it is no ICD)");
  cl_uint count = 0;
  cl_int status = icd_platforms(0, nullptr, &count);
  if (status != CL_SUCCESS || count == 0) {
    return fail(status != CL_SUCCESS ? OpenCLError("clIcdGetPlatformIDsKHR", status).what()
                                     : "it lists no platform");
  }
  std::vector<cl_platform_id> platforms(count);
  status = icd_platforms(count, platforms.data(), nullptr);
  if (status != CL_SUCCESS) return fail(OpenCLError("clIcdGetPlatformIDsKHR", status).what());

  // Every object of the driver starts with a pointer to its dispatch table. The functions
  // in its platform's table are the driver's own, which take any object of the driver (a
  // loader calls them the same way), so one table serves the whole API; a driver whose
  // platforms have different tables would be several drivers in one, which is refused.
  auto table_of = [](cl_platform_id platform) {
    return *reinterpret_cast<void* const* const*>(platform);
  };
  void* const* table = table_of(platforms[0]);
  for (cl_platform_id platform : platforms) {
    if (platform == nullptr || table_of(platform) != table) {
      return fail("its platforms do not share one dispatch table");
    }
  }

  std::unique_ptr<OpenCLApi> api(new OpenCLApi(std::move(library), Kind::driver));
  api->clGetPlatformIDs = icd_platforms;
  std::string missing;
#define SIMT_OPENCL_FROM_TABLE(name, slot)                          \
  api->name = reinterpret_cast<decltype(api->name)>(table[(slot)]); \
  if (api->name == nullptr) missing += missing.empty() ? #name : ", " #name;
  SIMT_OPENCL_ICD_SLOTS(SIMT_OPENCL_FROM_TABLE)
#undef SIMT_OPENCL_FROM_TABLE
  // Every ICD fills this slot (loaders call it for extensions): an empty one means the
  // table is not laid out as icd_dispatch.h says.
  if (table[icd::kGetExtensionFunctionAddressSlot] == nullptr) {
    missing +=
        missing.empty() ? "clGetExtensionFunctionAddress" : ", clGetExtensionFunctionAddress";
  }
  if (!missing.empty()) return fail("its dispatch table has no " + missing);
  api->driver_address_ = get_address;
  if (platform_major_version(*api, platforms[0]) >= 2) {
#define SIMT_OPENCL_FROM_TABLE(name, slot) \
  api->name = reinterpret_cast<decltype(api->name)>(table[(slot)]);
    SIMT_OPENCL_ICD_SVM_SLOTS(SIMT_OPENCL_FROM_TABLE)
#undef SIMT_OPENCL_FROM_TABLE
  }
  return api;
}

void* OpenCLApi::extension_function(cl_platform_id platform, const char* name) const {
  if (for_platform_ != nullptr) return for_platform_(platform, name);
  return driver_address_ != nullptr ? driver_address_(name) : nullptr;
}

const OpenCLApi::Libraries& OpenCLApi::libraries() {
  // Deliberately leaked (see the header); the magic static makes the first load
  // thread-safe and later calls lock-free.
  static const Libraries* loaded = [] {
    auto* result = new Libraries;
    if (std::unique_ptr<OpenCLApi> loader = load(&result->loader_reason)) {
      result->loader_path = loader->library_path();
      if (loader->kind() == Kind::driver) result->loader_path.clear();
      result->apis.push_back(loader.release());
    }
    const char* explicit_path = std::getenv("SIMT_OPENCL_LIBRARY");
    const char* drivers = std::getenv("SIMT_OPENCL_DRIVERS");
    if ((explicit_path == nullptr || explicit_path[0] == '\0') && drivers != nullptr) {
      std::string_view rest = drivers;
      while (!rest.empty()) {
        std::size_t end = rest.find(':');
        std::string path(rest.substr(0, end));
        rest = end == std::string_view::npos ? std::string_view{} : rest.substr(end + 1);
        if (path.empty()) continue;
        std::string why;
        if (std::unique_ptr<OpenCLApi> driver = load_driver(path, &why)) {
          result->apis.push_back(driver.release());
        } else {
          result->driver_problems += "\n  " + path + ": " + why;
        }
      }
    }
    return result;
  }();
  return *loaded;
}

const OpenCLApi* OpenCLApi::get(std::string* why_not) {
  const Libraries& all = libraries();
  if (all.apis.empty()) {
    if (why_not != nullptr) *why_not = all.loader_reason + all.driver_problems;
    return nullptr;
  }
  return all.apis.front();
}

const char* device_type_name(DeviceType type) {
  switch (type) {
    case DeviceType::cpu:
      return "cpu";
    case DeviceType::gpu:
      return "gpu";
    case DeviceType::accelerator:
      return "accelerator";
    case DeviceType::other:
      break;
  }
  return "other";
}

bool DeviceInfo::has_extension(std::string_view extension) const {
  if (extension.empty()) return false;  // runs of spaces produce empty words
  std::string_view all = extensions;
  std::size_t start = 0;
  while (start < all.size()) {
    std::size_t end = all.find(' ', start);
    if (end == std::string_view::npos) end = all.size();
    if (all.substr(start, end - start) == extension) return true;
    start = end + 1;
  }
  return false;
}

namespace {

// The devices of one library's platforms, appended to `devices`; what went wrong is
// appended to `problems` (one "\n  ..." line each). A driver's platform whose name an
// earlier library listed is skipped (see list_devices in the header).
void list_library_devices(const OpenCLApi& api, bool several, std::vector<std::string>* names_seen,
                          std::vector<DeviceInfo>* devices, std::string* problems,
                          std::string* no_platform) {
  const std::string of_library = several ? " of " + api.library_path() : "";
  cl_uint platform_count = 0;
  cl_int status = api.clGetPlatformIDs(0, nullptr, &platform_count);
  // The ICD loader answers CL_PLATFORM_NOT_FOUND_KHR when no vendor driver is
  // registered in /etc/OpenCL/vendors: the normal "no OpenCL here" case.
  if (status == CL_PLATFORM_NOT_FOUND_KHR || (status == CL_SUCCESS && platform_count == 0)) {
    *no_platform +=
        (no_platform->empty() ? "" : "; ") + api.library_path() + " found no vendor driver";
    return;
  }
  std::vector<cl_platform_id> platforms(platform_count);
  if (status == CL_SUCCESS)
    status = api.clGetPlatformIDs(platform_count, platforms.data(), nullptr);
  if (status != CL_SUCCESS) {
    *problems += "\n  " + std::string(OpenCLError("clGetPlatformIDs", status).what()) + of_library;
    return;
  }
  const std::size_t earlier_names = names_seen->size();
  for (cl_uint index = 0; index < platform_count; ++index) {
    cl_platform_id platform = platforms[index];
    std::string platform_label = "platform " + std::to_string(index);
    try {
      std::string platform_name = platform_string(api, platform, CL_PLATFORM_NAME);
      platform_label += " (" + platform_name + ")" + of_library;
      auto earlier_end = names_seen->begin() + static_cast<std::ptrdiff_t>(earlier_names);
      if (api.kind() == OpenCLApi::Kind::driver &&
          std::find(names_seen->begin(), earlier_end, platform_name) != earlier_end) {
        *problems += "\n  " + platform_label + ": not used, an earlier library lists " +
                     platform_name + " already";
        continue;
      }
      names_seen->push_back(platform_name);
      cl_uint device_count = 0;
      status = api.clGetDeviceIDs(platform, CL_DEVICE_TYPE_ALL, 0, nullptr, &device_count);
      if (status == CL_DEVICE_NOT_FOUND || (status == CL_SUCCESS && device_count == 0)) {
        *problems += "\n  " + platform_label + ": no devices";
        continue;
      }
      check(status, "clGetDeviceIDs");
      std::vector<cl_device_id> ids(device_count);
      check(api.clGetDeviceIDs(platform, CL_DEVICE_TYPE_ALL, device_count, ids.data(), nullptr),
            "clGetDeviceIDs");
      for (cl_device_id id : ids) {
        devices->push_back(describe_device(api, platform, platform_name, id));
        devices->back().api = &api;
      }
    } catch (const std::exception& error) {
      *problems += "\n  " + platform_label + ": " + error.what();
    }
  }
}

}  // namespace

std::vector<DeviceInfo> list_devices(std::string* why_not) {
  std::vector<DeviceInfo> devices;
  auto report = [&](const std::string& text) {
    if (why_not != nullptr) *why_not = text;
  };

  const OpenCLApi::Libraries& libraries = OpenCLApi::libraries();
  if (libraries.apis.empty()) {
    report(libraries.loader_reason + libraries.driver_problems);
    return devices;
  }
  std::string problems = libraries.driver_problems, no_platform;
  std::vector<std::string> names_seen;
  for (const OpenCLApi* api : libraries.apis) {
    list_library_devices(*api, libraries.apis.size() > 1, &names_seen, &devices, &problems,
                         &no_platform);
  }

  if (!no_platform.empty()) {
    no_platform +=
        "; drivers register in /etc/OpenCL/vendors: for CPUs, apt install "
        "pocl-opencl-icd, or pip install 'simt[pocl]'";
  }
  if (devices.empty() && problems.empty() && !no_platform.empty()) {
    report("no OpenCL platform is installed (" + no_platform + ")");
  } else if (devices.empty()) {
    report("no OpenCL device found:" + problems +
           (no_platform.empty() ? "" : "\n  " + no_platform));
  } else if (problems.empty()) {
    report("");
  } else {
    report("some OpenCL platforms were skipped:" + problems);
  }
  return devices;
}

Context create_context(const OpenCLApi& api, cl_platform_id platform, cl_device_id device) {
  // Naming the platform matters with several ICDs: without it the loader
  // must guess which vendor's runtime owns the device.
  const cl_context_properties properties[] = {CL_CONTEXT_PLATFORM,
                                              reinterpret_cast<cl_context_properties>(platform), 0};
  cl_int status = CL_SUCCESS;
  cl_context context = api.clCreateContext(properties, 1, &device, nullptr, nullptr, &status);
  check(status, "clCreateContext");
  return Context(&api, context);
}

namespace {

// clBuildProgram on a created program, with its log.
BuildResult build(const OpenCLApi& api, Program built, cl_device_id device,
                  std::string_view options, Program* program) {
  BuildResult result;
  std::string options_text(options);  // NUL-terminated copy
  cl_int build_status =
      api.clBuildProgram(built.get(), 1, &device, options_text.c_str(), nullptr, nullptr);

  // The log explains both successes (warnings) and failures. A runtime that
  // cannot produce it should not hide the build status, hence no check().
  std::size_t log_size = 0;
  if (api.clGetProgramBuildInfo(built.get(), device, CL_PROGRAM_BUILD_LOG, 0, nullptr, &log_size) ==
          CL_SUCCESS &&
      log_size > 0) {
    std::string log(log_size, '\0');
    if (api.clGetProgramBuildInfo(built.get(), device, CL_PROGRAM_BUILD_LOG, log_size, log.data(),
                                  nullptr) == CL_SUCCESS) {
      while (!log.empty() && (log.back() == '\0' || log.back() == '\n')) log.pop_back();
      result.log = std::move(log);
    }
  }

  if (build_status != CL_SUCCESS) {
    std::string headline = OpenCLError("clBuildProgram", build_status).what();
    result.log = result.log.empty() ? headline : headline + "\n" + result.log;
    return result;
  }
  result.ok = true;
  if (program != nullptr) *program = std::move(built);
  return result;
}

}  // namespace

BuildResult build_program(const Context& context, cl_device_id device, std::string_view source,
                          std::string_view options, Program* program) {
  const OpenCLApi& api = *context.api();
  const char* source_pointer = source.data();
  const std::size_t source_length = source.size();
  cl_int status = CL_SUCCESS;
  Program created(&api, api.clCreateProgramWithSource(context.get(), 1, &source_pointer,
                                                      &source_length, &status));
  check(status, "clCreateProgramWithSource");
  return build(api, std::move(created), device, options, program);
}

BuildResult build_program_from_binary(const Context& context, cl_device_id device,
                                      std::string_view binary, std::string_view options,
                                      Program* program) {
  const OpenCLApi& api = *context.api();
  const auto* bytes = reinterpret_cast<const unsigned char*>(binary.data());
  const std::size_t length = binary.size();
  cl_int binary_status = CL_SUCCESS, status = CL_SUCCESS;
  Program created(&api, api.clCreateProgramWithBinary(context.get(), 1, &device, &length, &bytes,
                                                      &binary_status, &status));
  if (status != CL_SUCCESS || binary_status != CL_SUCCESS) {
    BuildResult refused;
    refused.log =
        OpenCLError("clCreateProgramWithBinary", status != CL_SUCCESS ? status : binary_status)
            .what();
    return refused;
  }
  return build(api, std::move(created), device, options, program);
}

std::vector<KernelArg> kernel_args(const OpenCLApi& api, cl_kernel kernel) {
  cl_uint count = 0;
  check(api.clGetKernelInfo(kernel, CL_KERNEL_NUM_ARGS, sizeof count, &count, nullptr),
        "clGetKernelInfo");
  std::vector<KernelArg> args(count);
  for (cl_uint k = 0; k < count; ++k) {
    check(api.clGetKernelArgInfo(kernel, k, CL_KERNEL_ARG_ADDRESS_QUALIFIER, sizeof args[k].address,
                                 &args[k].address, nullptr),
          "clGetKernelArgInfo");
    args[k].type_name = query_string(
        [&](std::size_t size, void* value, std::size_t* size_ret) {
          return api.clGetKernelArgInfo(kernel, k, CL_KERNEL_ARG_TYPE_NAME, size, value, size_ret);
        },
        "clGetKernelArgInfo");
  }
  return args;
}

std::vector<std::string> program_kernel_names(const Program& program) {
  const OpenCLApi& api = *program.api();
  std::string names = query_string(
      [&](std::size_t size, void* value, std::size_t* size_ret) {
        return api.clGetProgramInfo(program.get(), CL_PROGRAM_KERNEL_NAMES, size, value, size_ret);
      },
      "clGetProgramInfo");
  std::vector<std::string> out;
  std::size_t start = 0;
  while (start < names.size()) {
    std::size_t end = names.find(';', start);
    if (end == std::string::npos) end = names.size();
    if (end > start) out.push_back(names.substr(start, end - start));
    start = end + 1;
  }
  return out;
}

std::string program_binary(const Program& program) {
  const OpenCLApi& api = *program.api();
  std::size_t size = 0;
  if (api.clGetProgramInfo(program.get(), CL_PROGRAM_BINARY_SIZES, sizeof size, &size, nullptr) !=
          CL_SUCCESS ||
      size == 0)
    return {};
  std::string binary(size, '\0');
  unsigned char* pointer = reinterpret_cast<unsigned char*>(binary.data());
  if (api.clGetProgramInfo(program.get(), CL_PROGRAM_BINARIES, sizeof pointer, &pointer, nullptr) !=
      CL_SUCCESS)
    return {};
  return binary;
}

BuildResult build_program(const DeviceInfo& device, std::string_view source,
                          std::string_view options) {
  const OpenCLApi& api = device.api != nullptr ? *device.api : require_api();
  Context context = create_context(api, device.platform, device.device);
  return build_program(context, device.device, source, options, nullptr);
}

}  // namespace simt::opencl
