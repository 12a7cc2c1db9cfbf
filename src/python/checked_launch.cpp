#include "python/checked_launch.h"

#include <mutex>
#include <unordered_map>

namespace simt::python {

namespace {

constexpr size_t kRecordBytes = abi::check_record::kWords * sizeof(int64_t);

// Records no launch uses, per device, for the next checked launch: a driver
// allocation and free per launch (cuMemAlloc/cuMemFree synchronize) cost
// more than the launch. Devices live as long as the process, and so do these.
struct FreeRecords {
  std::mutex mutex;
  std::unordered_map<const runtime::Device*, std::vector<void*>> free;

  void* take(runtime::Device& device) {
    {
      std::lock_guard lock(mutex);
      auto& list = free[&device];
      if (!list.empty()) {
        void* address = list.back();
        list.pop_back();
        return address;
      }
    }
    return device.allocate(kRecordBytes);
  }
  void give_back(const runtime::Device& device, void* address) {
    std::lock_guard lock(mutex);
    free[&device].push_back(address);
  }
};

FreeRecords& free_records() {
  static auto* records = new FreeRecords;  // never destroyed: used until exit
  return *records;
}

}  // namespace

CheckRecord::CheckRecord(std::shared_ptr<runtime::Device> device, runtime::Stream& queue)
    : device_(std::move(device)), address_(free_records().take(*device_)) {
  const std::array<int64_t, abi::check_record::kWords> zeros{};
  try {
    device_->queue_copy_from_host(address_, zeros.data(), kRecordBytes, queue, {});
  } catch (...) {
    free_records().give_back(*device_, address_);
    throw;
  }
}

CheckRecord::~CheckRecord() {
  // A record whose kernel may still run (its wait was interrupted) is never
  // reused: the kernel could still write it.
  if (!abandoned_) free_records().give_back(*device_, address_);
}

void* CheckRecord::scratch() const {
  return static_cast<char*>(address_) + abi::check_record::kScratch * sizeof(int64_t);
}

std::array<int64_t, abi::check_record::kWords> CheckRecord::read(runtime::Stream& queue) {
  std::array<int64_t, abi::check_record::kWords> record{};
  abandoned_ = true;
  device_->queue_copy_to_host(record.data(), address_, kRecordBytes, queue, {});
  abandoned_ = false;
  return record;
}

void raise_check_failure(const std::array<int64_t, abi::check_record::kWords>& record,
                         const std::vector<abi::CheckSite>& sites, const std::string& kernel_name) {
  std::optional<abi::CheckFailure> failure = abi::read_check_record(record, sites, kernel_name);
  if (!failure) return;
  if (failure->kind == abi::CheckSite::Kind::Raise) {
    // The class is the user's: the resolver keeps it under its key.
    nanobind::object cls =
        nanobind::module_::import_("simt._resolve").attr("exception_class")(failure->exception_key);
    PyErr_SetObject(cls.ptr(), nanobind::str(failure->message.c_str()).ptr());
    throw nanobind::python_error();
  }
  PyObject* type = failure->kind == abi::CheckSite::Kind::Assert         ? PyExc_AssertionError
                   : failure->kind == abi::CheckSite::Kind::ZeroDivision ? PyExc_ZeroDivisionError
                   : failure->kind == abi::CheckSite::Kind::Reshape      ? PyExc_ValueError
                                                                         : PyExc_IndexError;
  PyErr_SetString(type, failure->message.c_str());
  throw nanobind::python_error();
}

}  // namespace simt::python
