// Host cost of a warm cuLaunchKernel of an empty kernel from C++: the floor
// simt's launch path is compared with. Build: nvcc -O2 raw_launch.cpp -lcuda
// Usage: raw_launch kernels.cubin [launches per round]. Rounds of up to a few
// hundred launches stay below the driver's queue depth (about 1000 pending
// launches), so they time the host's cost; long rounds fill the queue and
// time the GPU's rate of empty kernels instead.
#include <cuda.h>

#include <algorithm>
#include <chrono>
#include <cstdlib>
#include <cstdio>
#include <vector>

#define CHECK(x)                                                    \
  do {                                                              \
    CUresult r = (x);                                               \
    if (r != CUDA_SUCCESS) {                                        \
      const char* name;                                             \
      cuGetErrorName(r, &name);                                     \
      std::fprintf(stderr, "%s failed: %s\n", #x, name);            \
      return 1;                                                     \
    }                                                               \
  } while (0)

int main(int argc, char** argv) {
  const char* cubin = argc > 1 ? argv[1] : "kernels.cubin";
  const int inner = argc > 2 ? std::atoi(argv[2]) : 256;
  CUdevice dev;
  CUcontext ctx;
  CUmodule mod;
  CUfunction f0, f4;
  CHECK(cuInit(0));
  CHECK(cuDeviceGet(&dev, 0));
  CHECK(cuDevicePrimaryCtxRetain(&ctx, dev));
  CHECK(cuCtxSetCurrent(ctx));
  CHECK(cuModuleLoad(&mod, cubin));
  CHECK(cuModuleGetFunction(&f0, mod, "empty0"));
  CHECK(cuModuleGetFunction(&f4, mod, "empty4"));
  CUdeviceptr p;
  CHECK(cuMemAlloc(&p, 1024));
  float a = 1;
  long long n = 16;
  void* args4[] = {&p, &p, &a, &n};
  for (int which = 0; which < 2; ++which) {
    CUfunction f = which ? f4 : f0;
    void** args = which ? args4 : nullptr;
    std::vector<double> rounds;
    for (int r = 0; r < 101; ++r) {
      auto t = std::chrono::steady_clock::now();
      for (int i = 0; i < inner; ++i) CHECK(cuLaunchKernel(f, 1, 1, 1, 1, 1, 1, 0, 0, args, nullptr));
      double us = std::chrono::duration<double, std::micro>(std::chrono::steady_clock::now() - t).count() / inner;
      rounds.push_back(us);
      CHECK(cuCtxSynchronize());
    }
    std::sort(rounds.begin(), rounds.end());
    std::printf("raw_cuLaunchKernel_%d_args_us %.3f\n", which ? 4 : 0, rounds[rounds.size() / 2]);
  }
  return 0;
}
