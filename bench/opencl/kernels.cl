// The benchmark kernels written by hand in OpenCL C, built by PyOpenCL with
// the driver's default options: the reference simt's generated OpenCL C is
// measured against (bench/opencl.py). Same algorithms, operation order and
// types as the simt kernels in examples/ and as bench/cuda/kernels.cu, with
// the indexing a person would write (one flat index, no shape/stride structs).
#if defined(cl_khr_fp64)
#pragma OPENCL EXTENSION cl_khr_fp64 : enable
#endif

// simt computes as NumPy does, without contracting a * b + c into an fma;
// so do these by default, and the results must then agree bit for bit.
// bench/opencl.py --contract builds them with contraction allowed (the
// compiler's default), to show what fma would be worth.
#ifndef BENCH_CONTRACT
#pragma OPENCL FP_CONTRACT OFF
#endif

__kernel void saxpy(float a, __global const float* x, __global const float* y,
                    __global float* out, long n) {
  long i = get_global_id(0);
  if (i < n) out[i] = a * x[i] + y[i];
}

// One explicit Euler step of the 2-D heat equation on a C-order n x m grid;
// boundary cells are copied. Dimension 0 runs along a row (coalesced on GPUs).
__kernel void heat_step(__global const float* u, __global float* out, float alpha, long n,
                        long m) {
  long j = get_global_id(0);
  long i = get_global_id(1);
  if (0 < i && i < n - 1 && 0 < j && j < m - 1) {
    float lap = u[(i - 1) * m + j] + u[(i + 1) * m + j] + u[i * m + j - 1] + u[i * m + j + 1] -
                4.0f * u[i * m + j];
    out[i * m + j] = u[i * m + j] + alpha * lap;
  } else if (i < n && j < m) {
    out[i * m + j] = u[i * m + j];
  }
}

// Escape-time count per pixel in double precision; |z| <= 2 through hypot, as
// Python's abs(complex) (and simt's) computes it.
__kernel void mandelbrot(__global int* image, double x0, double y0, double dx, double dy,
                         int max_iter, long height, long width) {
  long px = get_global_id(0);
  long py = get_global_id(1);
  if (px >= width || py >= height) return;
  double cr = x0 + px * dx, ci = y0 + py * dy, zr = 0.0, zi = 0.0;
  int n = 0;
  while (n < max_iter && hypot(zr, zi) <= 2.0) {
    double t = zr * zr - zi * zi + cr;
    zi = zr * zi + zi * zr + ci;
    zr = t;
    ++n;
  }
  image[py * width + px] = n;
}

__kernel void empty0(void) {}

// An array and three scalars, as simt's empty4(x, float32, int, float).
__kernel void empty4(__global float* x, float b, long c, double d) {}
