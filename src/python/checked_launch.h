// A checked launch (kernels built with debug=True or boundscheck=True): its
// record on the device (abi/check_record.h), zeroed on the launch's queue
// before the launch and read after it, and the Python exception a failed
// check becomes.
#pragma once

#include <Python.h>
#include <nanobind/nanobind.h>

#include <array>
#include <memory>
#include <string>
#include <vector>

#include "abi/check_record.h"
#include "runtime/device.h"

namespace simt::python {

class CheckRecord {
 public:
  // Allocates the record on `device` and queues its zeroing on `queue`.
  CheckRecord(std::shared_ptr<runtime::Device> device, runtime::Stream& queue);
  ~CheckRecord();
  CheckRecord(const CheckRecord&) = delete;
  CheckRecord& operator=(const CheckRecord&) = delete;

  // What the kernel's CheckRecord parameter receives.
  void* address() const { return address_; }
  // Where a checked kernel's arrays without elements point: their accesses
  // all fail, and go here instead of to memory that is not theirs.
  void* scratch() const;
  // Waits for `queue` (the launch's) and reads the record.
  std::array<int64_t, abi::check_record::kWords> read(runtime::Stream& queue);

 private:
  std::shared_ptr<runtime::Device> device_;
  void* address_ = nullptr;
  bool abandoned_ = false;  // a wait for its kernel failed or was interrupted
};

// Raises the record's failure as Python's IndexError or AssertionError;
// returns when every check passed.
void raise_check_failure(const std::array<int64_t, abi::check_record::kWords>& record,
                         const std::vector<abi::CheckSite>& sites, const std::string& kernel_name);

}  // namespace simt::python
