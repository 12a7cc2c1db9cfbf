// The CUDA toolkit's libraries simt calls on cuda devices (cuBLAS for matmul,
// cuFFT for simt.fft, cuSOLVER for simt.linalg's decompositions): whether and
// where they were found (`python -m simt info`), and thin handles the Python
// side keeps (python/simt/_vendor_libraries.py): a cuBLAS and a cuSOLVER handle
// per (device, thread), cuFFT plans in a bounded cache. Work is queued on the
// device's default stream, where simt's array operations run.
#include <nanobind/stl/string.h>
#include <nanobind/stl/vector.h>

#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include "backends/cuda/cuda_device.h"
#include "backends/cuda/libs/cublas.h"
#include "backends/cuda/libs/cufft.h"
#include "backends/cuda/libs/cusolver.h"
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

// The stream the call goes to (the thread's current one, else the default),
// told what is queued next: a fault found at a later synchronization then names
// the library call, not the last simt kernel.
// A graph cannot record a library's own launches (they bypass the runtime), so
// inside a capture the call is refused rather than run at once.
cuda::CUstream library_stream(cuda::CudaDevice& device, const std::string& work) {
  auto& stream = static_cast<cuda::CudaStream&>(unnamed_stream(device));
  refuse_while_capturing(stream, work,
                         "vendor libraries queue their own kernels, which a graph does not "
                         "record; call it before the capture or after g.launch(), or switch "
                         "the library off for the capture (SIMT_CUBLAS=0, SIMT_CUFFT=0)");
  stream.note_launch(cuda::intern_name(work));
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

struct PyCusolverHandle {
  std::shared_ptr<runtime::Device> device;
  std::unique_ptr<cuda::CusolverHandle> handle;

  cuda::CUstream stream() const {
    return library_stream(static_cast<cuda::CudaDevice&>(*device), "a cuSOLVER routine");
  }
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

int* int_address(uint64_t pointer) { return static_cast<int*>(address(pointer)); }

// cuSOLVER's element type from a cudaDataType code (ValueError for others).
cuda::SolverType solver_type(int type) {
  return cuda::solver_type(static_cast<cuda::cudaDataType>(type));
}

cuda::cublasFillMode_t fill_mode(int uplo) {
  if (uplo != cuda::CUBLAS_FILL_MODE_LOWER && uplo != cuda::CUBLAS_FILL_MODE_UPPER) {
    throw nb::value_error(
        ("cuSOLVER: uplo must be 0 (lower) or 1 (upper), not " + std::to_string(uplo)).c_str());
  }
  return static_cast<cuda::cublasFillMode_t>(uplo);
}

cuda::cublasOperation_t operation(int trans) {
  if (trans < cuda::CUBLAS_OP_N || trans > cuda::CUBLAS_OP_C) {
    throw nb::value_error(
        ("cuSOLVER: trans must be 0 (N), 1 (T) or 2 (C), not " + std::to_string(trans)).c_str());
  }
  return static_cast<cuda::cublasOperation_t>(trans);
}

cuda::cusolverEigMode_t eig_mode(bool vectors) {
  return vectors ? cuda::CUSOLVER_EIG_MODE_VECTOR : cuda::CUSOLVER_EIG_MODE_NOVECTOR;
}

// gesvd's jobu/jobvt: 'A', 'S', 'O' or 'N' (LAPACK's letters).
char svd_job(const std::string& job) {
  if (job.size() != 1 || std::string("ASON").find(job[0]) == std::string::npos) {
    throw nb::value_error(
        ("cuSOLVER gesvd: job must be 'A', 'S', 'O' or 'N', not '" + job + "'").c_str());
  }
  return job[0];
}

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
  m.def(
      "cusolver_status",
      [] {
        std::string reason;
        const cuda::Cusolver* cusolver = cuda::Cusolver::get(&reason);
        return library_status(cusolver, reason);
      },
      "The cuSOLVER cuda devices use: {available, reason | version, path} (loads it, no GPU "
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
            self.handle->gemm(call, library_stream(device, "cuBLAS GEMM (" + std::to_string(m) +
                                                               " x " + std::to_string(n) + " x " +
                                                               std::to_string(k) + ")"));
          },
          nb::arg("type"), nb::arg("m"), nb::arg("n"), nb::arg("k"), nb::arg("a"),
          nb::arg("a_transposed"), nb::arg("lda"), nb::arg("stride_a"), nb::arg("b"),
          nb::arg("b_transposed"), nb::arg("ldb"), nb::arg("stride_b"), nb::arg("c"),
          nb::arg("ldc"), nb::arg("stride_c"), nb::arg("batch"),
          "Queues C[i] = op(A[i]) op(B[i]) (column-major, cuBLAS's terms; `type` a "
          "cudaDataType) on the device's default stream.");

  // One method per cuSOLVER call, in its column-major terms (src/backends/cuda/libs/cusolver.h):
  // `type` a cudaDataType code, `uplo` 0 lower / 1 upper, pointers device addresses,
  // `info` a device int32. The *_buffer_size queries answer lwork in elements of `type`;
  // the rest are queued on the device's default stream.
  nb::class_<PyCusolverHandle>(m, "CusolverHandle")
      .def(
          "__init__",
          [](PyCusolverHandle* self, const PyDevice& device) {
            cuda::CudaDevice& cuda = cuda_device(device, "cuSOLVER");
            const cuda::Cusolver& cusolver = require_library<cuda::Cusolver>("cuSOLVER");
            new (self) PyCusolverHandle{
                device.device, std::make_unique<cuda::CusolverHandle>(cusolver, cuda.context())};
          },
          nb::arg("device"),
          "A cuSOLVER dense handle on `device`'s primary context (one per "
          "thread).")
      .def(
          "potrf_buffer_size",
          [](const PyCusolverHandle& self, int type, int uplo, int64_t n, uint64_t a, int64_t lda) {
            return self.handle->potrf_buffer_size(solver_type(type), fill_mode(uplo), n, address(a),
                                                  lda);
          },
          nb::arg("type"), nb::arg("uplo"), nb::arg("n"), nb::arg("a"), nb::arg("lda"))
      .def(
          "potrf",
          [](const PyCusolverHandle& self, int type, int uplo, int64_t n, uint64_t a, int64_t lda,
             uint64_t work, int64_t lwork, uint64_t info) {
            self.handle->potrf(solver_type(type), fill_mode(uplo), n, address(a), lda,
                               address(work), lwork, int_address(info), self.stream());
          },
          nb::arg("type"), nb::arg("uplo"), nb::arg("n"), nb::arg("a"), nb::arg("lda"),
          nb::arg("work"), nb::arg("lwork"), nb::arg("info"))
      .def(
          "getrf_buffer_size",
          [](const PyCusolverHandle& self, int type, int64_t m, int64_t n, uint64_t a,
             int64_t lda) {
            return self.handle->getrf_buffer_size(solver_type(type), m, n, address(a), lda);
          },
          nb::arg("type"), nb::arg("m"), nb::arg("n"), nb::arg("a"), nb::arg("lda"))
      .def(
          "getrf",
          [](const PyCusolverHandle& self, int type, int64_t m, int64_t n, uint64_t a, int64_t lda,
             uint64_t work, uint64_t ipiv, uint64_t info) {
            self.handle->getrf(solver_type(type), m, n, address(a), lda, address(work),
                               int_address(ipiv), int_address(info), self.stream());
          },
          nb::arg("type"), nb::arg("m"), nb::arg("n"), nb::arg("a"), nb::arg("lda"),
          nb::arg("work"), nb::arg("ipiv"), nb::arg("info"))
      .def(
          "getrs",
          [](const PyCusolverHandle& self, int type, int trans, int64_t n, int64_t nrhs, uint64_t a,
             int64_t lda, uint64_t ipiv, uint64_t b, int64_t ldb, uint64_t info) {
            self.handle->getrs(solver_type(type), operation(trans), n, nrhs, address(a), lda,
                               int_address(ipiv), address(b), ldb, int_address(info),
                               self.stream());
          },
          nb::arg("type"), nb::arg("trans"), nb::arg("n"), nb::arg("nrhs"), nb::arg("a"),
          nb::arg("lda"), nb::arg("ipiv"), nb::arg("b"), nb::arg("ldb"), nb::arg("info"))
      .def(
          "geqrf_buffer_size",
          [](const PyCusolverHandle& self, int type, int64_t m, int64_t n, uint64_t a,
             int64_t lda) {
            return self.handle->geqrf_buffer_size(solver_type(type), m, n, address(a), lda);
          },
          nb::arg("type"), nb::arg("m"), nb::arg("n"), nb::arg("a"), nb::arg("lda"))
      .def(
          "geqrf",
          [](const PyCusolverHandle& self, int type, int64_t m, int64_t n, uint64_t a, int64_t lda,
             uint64_t tau, uint64_t work, int64_t lwork, uint64_t info) {
            self.handle->geqrf(solver_type(type), m, n, address(a), lda, address(tau),
                               address(work), lwork, int_address(info), self.stream());
          },
          nb::arg("type"), nb::arg("m"), nb::arg("n"), nb::arg("a"), nb::arg("lda"), nb::arg("tau"),
          nb::arg("work"), nb::arg("lwork"), nb::arg("info"))
      .def(
          "orgqr_buffer_size",
          [](const PyCusolverHandle& self, int type, int64_t m, int64_t n, int64_t k, uint64_t a,
             int64_t lda, uint64_t tau) {
            return self.handle->orgqr_buffer_size(solver_type(type), m, n, k, address(a), lda,
                                                  address(tau));
          },
          nb::arg("type"), nb::arg("m"), nb::arg("n"), nb::arg("k"), nb::arg("a"), nb::arg("lda"),
          nb::arg("tau"))
      .def(
          "orgqr",
          [](const PyCusolverHandle& self, int type, int64_t m, int64_t n, int64_t k, uint64_t a,
             int64_t lda, uint64_t tau, uint64_t work, int64_t lwork, uint64_t info) {
            self.handle->orgqr(solver_type(type), m, n, k, address(a), lda, address(tau),
                               address(work), lwork, int_address(info), self.stream());
          },
          nb::arg("type"), nb::arg("m"), nb::arg("n"), nb::arg("k"), nb::arg("a"), nb::arg("lda"),
          nb::arg("tau"), nb::arg("work"), nb::arg("lwork"), nb::arg("info"))
      .def(
          "gesvd_buffer_size",
          [](const PyCusolverHandle& self, int type, int64_t m, int64_t n) {
            return self.handle->gesvd_buffer_size(solver_type(type), m, n);
          },
          nb::arg("type"), nb::arg("m"), nb::arg("n"))
      .def(
          "gesvd",
          [](const PyCusolverHandle& self, int type, const std::string& jobu,
             const std::string& jobvt, int64_t m, int64_t n, uint64_t a, int64_t lda, uint64_t s,
             uint64_t u, int64_t ldu, uint64_t vt, int64_t ldvt, uint64_t work, int64_t lwork,
             uint64_t rwork, uint64_t info) {
            self.handle->gesvd(solver_type(type), svd_job(jobu), svd_job(jobvt), m, n, address(a),
                               lda, address(s), address(u), ldu, address(vt), ldvt, address(work),
                               lwork, address(rwork), int_address(info), self.stream());
          },
          nb::arg("type"), nb::arg("jobu"), nb::arg("jobvt"), nb::arg("m"), nb::arg("n"),
          nb::arg("a"), nb::arg("lda"), nb::arg("s"), nb::arg("u"), nb::arg("ldu"), nb::arg("vt"),
          nb::arg("ldvt"), nb::arg("work"), nb::arg("lwork"), nb::arg("rwork"), nb::arg("info"))
      .def(
          "syevd_buffer_size",
          [](const PyCusolverHandle& self, int type, bool vectors, int uplo, int64_t n, uint64_t a,
             int64_t lda, uint64_t w) {
            return self.handle->syevd_buffer_size(solver_type(type), eig_mode(vectors),
                                                  fill_mode(uplo), n, address(a), lda, address(w));
          },
          nb::arg("type"), nb::arg("vectors"), nb::arg("uplo"), nb::arg("n"), nb::arg("a"),
          nb::arg("lda"), nb::arg("w"))
      .def(
          "syevd",
          [](const PyCusolverHandle& self, int type, bool vectors, int uplo, int64_t n, uint64_t a,
             int64_t lda, uint64_t w, uint64_t work, int64_t lwork, uint64_t info) {
            self.handle->syevd(solver_type(type), eig_mode(vectors), fill_mode(uplo), n, address(a),
                               lda, address(w), address(work), lwork, int_address(info),
                               self.stream());
          },
          nb::arg("type"), nb::arg("vectors"), nb::arg("uplo"), nb::arg("n"), nb::arg("a"),
          nb::arg("lda"), nb::arg("w"), nb::arg("work"), nb::arg("lwork"), nb::arg("info"));

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
                               library_stream(device, std::string("a cuFFT transform (") +
                                                          (forward ? "forward" : "inverse") + ")"));
          },
          nb::arg("input"), nb::arg("output"), nb::arg("forward"),
          "Queues the transform on the device's default stream (C2R overwrites `input`).")
      .def_prop_ro("work_size", [](const PyCufftPlan& self) { return self.plan->work_size(); });
}

}  // namespace simt::python
