// The kernels of bench/algorithms.py written by hand in CUDA C, compiled by nvcc
// (-O3 -arch=sm_90 -cubin): the reference simt's generated code for shared
// memory, barriers, atomics and warp shuffles is measured against. Same
// algorithms, launch geometry and operation order as the simt kernels in
// bench/algorithms.py and as bench/opencl/algorithms.cl, with the types a
// person would write: int for matrix coordinates, long long for element
// indices over a whole array (as kernels.cu does).

// Tiled SGEMM: C = A @ B, n x n C-order float32, n a multiple of SGEMM_TILE;
// blocks of SGEMM_TILE x SGEMM_TILE threads, one output element per thread,
// both operand tiles staged through shared memory. The k sum runs in order,
// so the result is the same whatever the tile. Two builds of one body: with
// nvcc's default contraction of a * b + c into an fma (sgemm_tiled), and with
// every product and sum rounded separately (sgemm_tiled_nofma, __fmul_rn and
// __fadd_rn are never contracted): the arithmetic simt emits without
// fastmath=True, so that one must agree bit for bit.
#define SGEMM_TILE 16

template <bool kFma>
__device__ __forceinline__ void sgemm_tiled_body(const float* a, const float* b, float* c, int n) {
  __shared__ float sa[SGEMM_TILE][SGEMM_TILE];
  __shared__ float sb[SGEMM_TILE][SGEMM_TILE];
  int tx = threadIdx.x, ty = threadIdx.y;
  int col = blockIdx.x * SGEMM_TILE + tx;
  int row = blockIdx.y * SGEMM_TILE + ty;
  float acc = 0.0f;
  for (int t = 0; t < n; t += SGEMM_TILE) {
    sa[ty][tx] = a[row * n + t + tx];
    sb[ty][tx] = b[(t + ty) * n + col];
    __syncthreads();
    for (int k = 0; k < SGEMM_TILE; ++k) {
      if (kFma)
        acc += sa[ty][k] * sb[k][tx];
      else
        acc = __fadd_rn(acc, __fmul_rn(sa[ty][k], sb[k][tx]));
    }
    __syncthreads();
  }
  c[row * n + col] = acc;
}

extern "C" __global__ void sgemm_tiled(const float* a, const float* b, float* c, int n) {
  sgemm_tiled_body<true>(a, b, c, n);
}

extern "C" __global__ void sgemm_tiled_nofma(const float* a, const float* b, float* c, int n) {
  sgemm_tiled_body<false>(a, b, c, n);
}

// Transpose through a padded shared tile (NVIDIA's transposeCoalesced): out =
// a.T for a rows x cols C-order float32 matrix; blocks of TR_DIM x TR_ROWS
// threads, each moving TR_DIM / TR_ROWS elements in and out; the extra column
// keeps the column reads free of bank conflicts. Guarded for any shape.
#define TR_DIM 32
#define TR_ROWS 8

extern "C" __global__ void transpose_tiled(const float* a, float* out, int rows, int cols) {
  __shared__ float tile[TR_DIM][TR_DIM + 1];
  int tx = threadIdx.x, ty = threadIdx.y;
  int x = blockIdx.x * TR_DIM + tx;
  int y = blockIdx.y * TR_DIM + ty;
  for (int j = 0; j < TR_DIM; j += TR_ROWS)
    if (x < cols && y + j < rows) tile[ty + j][tx] = a[(y + j) * cols + x];
  __syncthreads();
  x = blockIdx.y * TR_DIM + tx;
  y = blockIdx.x * TR_DIM + ty;
  for (int j = 0; j < TR_DIM; j += TR_ROWS)
    if (x < rows && y + j < cols) out[(y + j) * rows + x] = tile[tx][ty + j];
}

// Histogram of bytes into NBINS uint32 counts (added to what bins holds), a
// grid-stride loop over the data. hist_global: one global atomic per element.
// hist_shared: a per-block histogram in shared memory, merged into bins with
// one global atomic per bin and block.
#define NBINS 256

extern "C" __global__ void hist_global(const unsigned char* data, unsigned int* bins, long long n) {
  long long stride = (long long)gridDim.x * blockDim.x;
  for (long long i = (long long)blockIdx.x * blockDim.x + threadIdx.x; i < n; i += stride)
    atomicAdd(&bins[data[i]], 1u);
}

extern "C" __global__ void hist_shared(const unsigned char* data, unsigned int* bins, long long n) {
  __shared__ unsigned int h[NBINS];
  for (int j = threadIdx.x; j < NBINS; j += blockDim.x) h[j] = 0;
  __syncthreads();
  long long stride = (long long)gridDim.x * blockDim.x;
  for (long long i = (long long)blockIdx.x * blockDim.x + threadIdx.x; i < n; i += stride)
    atomicAdd(&h[data[i]], 1u);
  __syncthreads();
  for (int j = threadIdx.x; j < NBINS; j += blockDim.x) atomicAdd(&bins[j], h[j]);
}

// Sum of n float32 added into out[0]: each thread sums a grid-stride slice,
// the block's RED_BLOCK partial sums are halved in shared memory down to one
// warp, __shfl_down_sync finishes them, and thread 0 adds the block's sum
// with one atomic. Launched with RED_BLOCK threads per block.
// reduce_sum runs the shuffles in every warp (only warp 0's sum is used), so
// that all threads of the block reach them: simt's CPU backend takes warp
// operations only there, and the bench keeps one kernel for every device.
// reduce_sum_warp0 is the usual form, the shuffles in warp 0 alone.
#define RED_BLOCK 256

__device__ __forceinline__ void block_partial_sums(const float* x, float* s, long long n) {
  int t = threadIdx.x;
  float acc = 0.0f;
  long long stride = (long long)gridDim.x * blockDim.x;
  for (long long i = (long long)blockIdx.x * blockDim.x + t; i < n; i += stride) acc += x[i];
  s[t] = acc;
  __syncthreads();
  for (int step = blockDim.x / 2; step >= warpSize; step /= 2) {
    if (t < step) s[t] += s[t + step];
    __syncthreads();
  }
}

extern "C" __global__ void reduce_sum(const float* x, float* out, long long n) {
  __shared__ float s[RED_BLOCK];
  block_partial_sums(x, s, n);
  float v = s[threadIdx.x];
  for (int offset = warpSize / 2; offset > 0; offset /= 2)
    v += __shfl_down_sync(0xffffffffu, v, offset);
  if (threadIdx.x == 0) atomicAdd(out, v);
}

extern "C" __global__ void reduce_sum_warp0(const float* x, float* out, long long n) {
  __shared__ float s[RED_BLOCK];
  block_partial_sums(x, s, n);
  if (threadIdx.x < warpSize) {
    float v = s[threadIdx.x];
    for (int offset = warpSize / 2; offset > 0; offset /= 2)
      v += __shfl_down_sync(0xffffffffu, v, offset);
    if (threadIdx.x == 0) atomicAdd(out, v);
  }
}

// Loops as users write them (issue 20): the same algorithms as the simt kernels
// reduce_sum_while, scale_step, first_above and box_blur of bench/algorithms.py.
// reduce_sum_while's twin is reduce_sum_warp0 above: in C the while loop and the for
// loop are one loop.
extern "C" __global__ void scale_step(const float* x, float* out, long long n, long long start,
                                      long long step) {
  for (long long i = start + (long long)blockIdx.x * blockDim.x + threadIdx.x; i < n; i += step)
    out[i] = 2.0f * x[i] + 1.0f;
}

extern "C" __global__ void first_above(const float* a, long long* out, long long rows,
                                       long long cols, float limit) {
  long long i = (long long)blockIdx.x * blockDim.x + threadIdx.x;
  if (i < rows) {
    long long found = -1;
    for (long long j = 0; j < cols; ++j) {
      if (a[i * cols + j] > limit) {
        found = j;
        break;
      }
    }
    out[i] = found;
  }
}

extern "C" __global__ void box_blur(const float* img, float* out, long long rows,
                                    long long cols) {
  long long x = (long long)blockIdx.x * blockDim.x + threadIdx.x;
  long long y = (long long)blockIdx.y * blockDim.y + threadIdx.y;
  if (y < rows && x < cols) {
    float acc = 0.0f;
    for (int di = -2; di < 3; ++di) {
      long long yy = min(max(y + di, 0LL), rows - 1);
      for (int dj = -2; dj < 3; ++dj) {
        long long xx = min(max(x + dj, 0LL), cols - 1);
        acc += img[yy * cols + xx];
      }
    }
    out[y * cols + x] = acc / 25.0f;
  }
}
