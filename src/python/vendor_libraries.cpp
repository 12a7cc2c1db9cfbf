// The CUDA toolkit's libraries simt calls on cuda devices (cuBLAS for matmul,
// cuFFT for simt.fft): whether and where they were found (`python -m simt
// info`), and thin handles the Python side keeps (python/simt/_cuda_libraries.py):
// a cuBLAS handle per (device, thread), cuFFT plans in a bounded cache. Work is
// queued on the device's default stream, where simt's array operations run.
#include <nanobind/stl/string.h>
#include <nanobind/stl/vector.h>

#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include "backends/cuda/cublas.h"
#include "backends/cuda/cuda_device.h"
#include "backends/cuda/cufft.h"
#include "python/bindings.h"

namespace simt::python {

namespace {

// The CUDA device behind a simt device; ValueError naming `what` otherwise.
cuda::CudaDevice& cuda_device(const PyDevice& device, const char* what) {
  if (device.device->info().backend != runtime::BackendKind::Cuda) {
    throw nb::value_error(
        (std::string(what) + ": needs a cuda device, not " + device.device->info().id).c_str());
  }
  return static_cast<cuda::CudaDevice&>(*device.device);
}

// The device's default stream, told what is queued next: a fault found at a later
// synchronization then names the library call, not the last simt kernel.
cuda::CUstream default_stream(cuda::CudaDevice& device, const std::string& work) {
  auto& stream = static_cast<cuda::CudaStream&>(device.default_stream());
  stream.note_launch(work);
  return stream.handle();
}

template <class Library>
nb::dict library_status(const Library* library, const std::string& reason) {
  nb::dict out;
  out["available"] = library != nullptr;
  if (library == nullptr) {
    out["reason"] = reason;
    return out;
  }
  out["version"] = library->version();
  out["path"] = library->library_path();
  return out;
}

template <class Library>
const Library& require_library(const char* name) {
  std::string reason;
  const Library* library = Library::get(&reason);
  if (library == nullptr) throw nb::value_error((std::string(name) + ": " + reason).c_str());
  return *library;
}

// What Python keeps: the library object and the device (whose default stream
// the work goes to; the handle itself holds the context).
struct PyCublasHandle {
  std::shared_ptr<runtime::Device> device;
  std::unique_ptr<cuda::CublasHandle> handle;
};

struct PyCufftPlan {
  std::shared_ptr<runtime::Device> device;
  std::unique_ptr<cuda::CufftPlan> plan;
};

struct FftTypeName {
  const char* name;
  cuda::cufftType type;
};

constexpr FftTypeName kFftTypes[] = {
    {"C2C", cuda::CUFFT_C2C}, {"Z2Z", cuda::CUFFT_Z2Z}, {"R2C", cuda::CUFFT_R2C},
    {"D2Z", cuda::CUFFT_D2Z}, {"C2R", cuda::CUFFT_C2R}, {"Z2D", cuda::CUFFT_Z2D},
};

cuda::cufftType fft_type(const std::string& name) {
  for (const FftTypeName& row : kFftTypes)
    if (name == row.name) return row.type;
  throw nb::value_error(("cuFFT: unknown transform type '" + name + "'").c_str());
}

void* address(uint64_t pointer) { return reinterpret_cast<void*>(static_cast<uintptr_t>(pointer)); }

}  // namespace

void bind_vendor_libraries(nb::module_& m) {
  m.def(
      "cublas_status",
      [] {
        std::string reason;
        const cuda::Cublas* cublas = cuda::Cublas::get(&reason);
        return library_status(cublas, reason);
      },
      "The cuBLAS cuda devices use: {available, reason | version, path} (loads it, no GPU "
      "needed).");
  m.def(
      "cufft_status",
      [] {
        std::string reason;
        const cuda::Cufft* cufft = cuda::Cufft::get(&reason);
        return library_status(cufft, reason);
      },
      "The cuFFT cuda devices use: {available, reason | version, path} (loads it, no GPU "
      "needed).");

  nb::class_<PyCublasHandle>(m, "CublasHandle")
      .def(
          "__init__",
          [](PyCublasHandle* self, const PyDevice& device) {
            cuda::CudaDevice& cuda = cuda_device(device, "cuBLAS");
            const cuda::Cublas& cublas = require_library<cuda::Cublas>("cuBLAS");
            new (self) PyCublasHandle{device.device,
                                      std::make_unique<cuda::CublasHandle>(cublas, cuda.context())};
          },
          nb::arg("device"), "A cuBLAS handle on `device`'s primary context (one per thread).")
      .def(
          "gemm",
          [](PyCublasHandle& self, int type, int64_t m, int64_t n, int64_t k, uint64_t a,
             bool a_transposed, int64_t lda, int64_t stride_a, uint64_t b, bool b_transposed,
             int64_t ldb, int64_t stride_b, uint64_t c, int64_t ldc, int64_t stride_c,
             int64_t batch) {
            cuda::GemmCall call;
            call.type = static_cast<cuda::cudaDataType>(type);
            call.m = m;
            call.n = n;
            call.k = k;
            call.batch = batch;
            call.a = {address(a), a_transposed, lda, stride_a};
            call.b = {address(b), b_transposed, ldb, stride_b};
            call.c = address(c);
            call.ldc = ldc;
            call.stride_c = stride_c;
            auto& device = static_cast<cuda::CudaDevice&>(*self.device);
            self.handle->gemm(call, default_stream(device, "cuBLAS GEMM (" + std::to_string(m) +
                                                               " x " + std::to_string(n) + " x " +
                                                               std::to_string(k) + ")"));
          },
          nb::arg("type"), nb::arg("m"), nb::arg("n"), nb::arg("k"), nb::arg("a"),
          nb::arg("a_transposed"), nb::arg("lda"), nb::arg("stride_a"), nb::arg("b"),
          nb::arg("b_transposed"), nb::arg("ldb"), nb::arg("stride_b"), nb::arg("c"),
          nb::arg("ldc"), nb::arg("stride_c"), nb::arg("batch"),
          "Queues C[i] = op(A[i]) op(B[i]) (column-major, cuBLAS's terms; `type` a "
          "cudaDataType) on the device's default stream.");

  nb::class_<PyCufftPlan>(m, "CufftPlan")
      .def(
          "__init__",
          [](PyCufftPlan* self, const PyDevice& device, const std::string& type,
             std::vector<int64_t> n, int64_t batch) {
            cuda::CudaDevice& cuda = cuda_device(device, "cuFFT");
            const cuda::Cufft& cufft = require_library<cuda::Cufft>("cuFFT");
            cuda::cufftType kind = fft_type(type);
            std::unique_ptr<cuda::CufftPlan> plan;
            {
              nb::gil_scoped_release release;  // planning may take milliseconds
              plan = std::make_unique<cuda::CufftPlan>(cufft, cuda.context(), kind, std::move(n),
                                                       batch);
            }
            new (self) PyCufftPlan{device.device, std::move(plan)};
          },
          nb::arg("device"), nb::arg("type"), nb::arg("n"), nb::arg("batch"),
          "A cuFFT plan of `type` ('C2C', 'Z2Z', 'R2C', 'D2Z', 'C2R', 'Z2D') for `batch` "
          "C-contiguous transforms of sizes n (1 to 3 of them).")
      .def(
          "execute",
          [](PyCufftPlan& self, uint64_t in, uint64_t out, bool forward) {
            auto& device = static_cast<cuda::CudaDevice&>(*self.device);
            self.plan->execute(address(in), address(out), forward,
                               default_stream(device, std::string("a cuFFT transform (") +
                                                          (forward ? "forward" : "inverse") + ")"));
          },
          nb::arg("input"), nb::arg("output"), nb::arg("forward"),
          "Queues the transform on the device's default stream (C2R overwrites `input`).")
      .def_prop_ro("work_size", [](const PyCufftPlan& self) { return self.plan->work_size(); });
}

}  // namespace simt::python
