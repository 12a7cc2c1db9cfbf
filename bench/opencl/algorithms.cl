// The kernels of bench/algorithms.py written by hand in OpenCL C 1.2, built by
// PyOpenCL (PoCL's CPU device on the development machine): the reference for
// simt's CPU backend and its OpenCL backend. Same algorithms, work-group
// sizes and operation order as the simt kernels in bench/algorithms.py and
// bench/cuda/algorithms.cu; see there for what each kernel does.
//
// Two places where OpenCL C 1.2 has no equivalent of a CUDA builtin:
// - float atomic add: a compare-and-swap loop on the bits (what people write);
// - warp shuffles: none without sub-group extensions, which PoCL 3.1 lacks.
//   reduce_sum's shared-memory halving runs down to one partial sum instead
//   of one warp: the CUDA kernel with a warp of one thread.

// simt never contracts a * b + c into an fma outside fastmath=True; nor do these,
// so that the SGEMM results agree bit for bit with simt's and Numba's.
#pragma OPENCL FP_CONTRACT OFF

#define SGEMM_TILE 16
#define TR_DIM 32
#define TR_ROWS 8
#define NBINS 256
#define RED_BLOCK 256

// C = A @ B, n x n, n a multiple of SGEMM_TILE; work-groups SGEMM_TILE x SGEMM_TILE.
__kernel void sgemm_tiled(__global const float* a, __global const float* b, __global float* c,
                          int n) {
  __local float sa[SGEMM_TILE][SGEMM_TILE];
  __local float sb[SGEMM_TILE][SGEMM_TILE];
  int tx = get_local_id(0), ty = get_local_id(1);
  int col = get_group_id(0) * SGEMM_TILE + tx;
  int row = get_group_id(1) * SGEMM_TILE + ty;
  float acc = 0.0f;
  for (int t = 0; t < n; t += SGEMM_TILE) {
    sa[ty][tx] = a[row * n + t + tx];
    sb[ty][tx] = b[(t + ty) * n + col];
    barrier(CLK_LOCAL_MEM_FENCE);
    for (int k = 0; k < SGEMM_TILE; ++k) acc += sa[ty][k] * sb[k][tx];
    barrier(CLK_LOCAL_MEM_FENCE);
  }
  c[row * n + col] = acc;
}

// out = a.T, a rows x cols; work-groups TR_DIM x TR_ROWS.
__kernel void transpose_tiled(__global const float* a, __global float* out, int rows, int cols) {
  __local float tile[TR_DIM][TR_DIM + 1];
  int tx = get_local_id(0), ty = get_local_id(1);
  int x = get_group_id(0) * TR_DIM + tx;
  int y = get_group_id(1) * TR_DIM + ty;
  for (int j = 0; j < TR_DIM; j += TR_ROWS)
    if (x < cols && y + j < rows) tile[ty + j][tx] = a[(y + j) * cols + x];
  barrier(CLK_LOCAL_MEM_FENCE);
  x = get_group_id(1) * TR_DIM + tx;
  y = get_group_id(0) * TR_DIM + ty;
  for (int j = 0; j < TR_DIM; j += TR_ROWS)
    if (x < rows && y + j < cols) out[(y + j) * rows + x] = tile[tx][ty + j];
}

__kernel void hist_global(__global const uchar* data, __global uint* bins, long n) {
  long stride = (long)get_num_groups(0) * get_local_size(0);
  for (long i = get_global_id(0); i < n; i += stride) atomic_add(&bins[data[i]], 1u);
}

__kernel void hist_shared(__global const uchar* data, __global uint* bins, long n) {
  __local uint h[NBINS];
  for (int j = get_local_id(0); j < NBINS; j += get_local_size(0)) h[j] = 0;
  barrier(CLK_LOCAL_MEM_FENCE);
  long stride = (long)get_num_groups(0) * get_local_size(0);
  for (long i = get_global_id(0); i < n; i += stride) atomic_add(&h[data[i]], 1u);
  barrier(CLK_LOCAL_MEM_FENCE);
  for (int j = get_local_id(0); j < NBINS; j += get_local_size(0)) atomic_add(&bins[j], h[j]);
}

inline void atomic_add_float(volatile __global float* p, float v) {
  union {
    uint u;
    float f;
  } old, next;
  do {
    old.f = *p;
    next.f = old.f + v;
  } while (atomic_cmpxchg((volatile __global uint*)p, old.u, next.u) != old.u);
}

// Launched with work-groups of RED_BLOCK.
__kernel void reduce_sum(__global const float* x, __global float* out, long n) {
  __local float s[RED_BLOCK];
  int t = get_local_id(0);
  float acc = 0.0f;
  long stride = (long)get_num_groups(0) * get_local_size(0);
  for (long i = get_global_id(0); i < n; i += stride) acc += x[i];
  s[t] = acc;
  barrier(CLK_LOCAL_MEM_FENCE);
  for (int step = get_local_size(0) / 2; step >= 1; step /= 2) {
    if (t < step) s[t] += s[t + step];
    barrier(CLK_LOCAL_MEM_FENCE);
  }
  if (t == 0) atomic_add_float(out, s[0]);
}
