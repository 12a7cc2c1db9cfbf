#include "python/checked_launch.h"

namespace simt::python {

namespace {

constexpr size_t kRecordBytes = abi::check_record::kWords * sizeof(int64_t);

}  // namespace

CheckRecord::CheckRecord(std::shared_ptr<runtime::Device> device, runtime::Stream& queue)
    : device_(std::move(device)), address_(device_->allocate(kRecordBytes)) {
  const std::array<int64_t, abi::check_record::kWords> zeros{};
  try {
    device_->queue_copy_from_host(address_, zeros.data(), kRecordBytes, queue, {});
  } catch (...) {
    device_->deallocate(address_, kRecordBytes);
    throw;
  }
}

CheckRecord::~CheckRecord() { device_->deallocate(address_, kRecordBytes); }

void* CheckRecord::scratch() const {
  return static_cast<char*>(address_) + abi::check_record::kScratch * sizeof(int64_t);
}

std::array<int64_t, abi::check_record::kWords> CheckRecord::read(runtime::Stream& queue) const {
  std::array<int64_t, abi::check_record::kWords> record{};
  device_->queue_copy_to_host(record.data(), address_, kRecordBytes, queue, {});
  return record;
}

void raise_check_failure(const std::array<int64_t, abi::check_record::kWords>& record,
                         const std::vector<abi::CheckSite>& sites, const std::string& kernel_name) {
  std::optional<abi::CheckFailure> failure = abi::read_check_record(record, sites, kernel_name);
  if (!failure) return;
  PyObject* type =
      failure->kind == abi::CheckSite::Kind::Assert ? PyExc_AssertionError : PyExc_IndexError;
  PyErr_SetString(type, failure->message.c_str());
  throw nanobind::python_error();
}

}  // namespace simt::python
