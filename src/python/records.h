// NumPy's record (structured) dtypes as abi::Record: read from a dtype object's fields
// once and cached by the dtype, so the launch path classifies an array of records, or a
// record (`a[0]`, a np.void), without running Python code on later launches.
#pragma once

#include <Python.h>
#include <nanobind/nanobind.h>

#include <memory>
#include <stdexcept>
#include <string>
#include <string_view>

#include "abi/record.h"

namespace simt::python {

namespace nb = nanobind;

// A record dtype as the launch path and simt arrays use it: the record at the alignment
// its arrays have when their data starts at an address it divides (as NumPy's and
// simt's allocations do), and that record's key bytes.
struct RecordDtype {
  abi::RecordRef record;
  std::string key;  // abi::encode_record(*record)
};
using RecordDtypePtr = std::shared_ptr<const RecordDtype>;

// What makes a NumPy dtype unusable as a record (an object field, a union of fields):
// a sentence naming the field.
struct RecordError : std::runtime_error {
  using std::runtime_error::runtime_error;
};

// Whether `dtype` is a NumPy structured dtype (its `names` is not None).
bool is_record_dtype(const nb::handle& dtype);

// The record of a NumPy structured dtype, cached by the dtype object; RecordError for
// dtypes kernels cannot take. Fields kernels cannot read (strings, bytes, datetimes,
// big-endian numbers, arrays of records) are opaque bytes: an error where a kernel uses
// one, not where the array is passed.
RecordDtypePtr numpy_record(const nb::handle& dtype);

// A record described by its text (simt arrays are created from it).
RecordDtypePtr record_from_text(const std::string& text);

// The key bytes of `dtype`'s records at `address`, which may start below the record's
// usual alignment (a view at an odd byte of a packed array): fields are then read as
// that alignment allows. Its own key, or one written into `scratch`.
std::string_view record_key_at(const RecordDtype& dtype, const void* address, std::string& scratch);

// numpy.asarray (a borrowed reference, imported once): a NumPy record as the 0-d array
// viewing its bytes, writeable where the record's array is.
PyObject* numpy_asarray();

void bind_records(nb::module_& m);

}  // namespace simt::python
