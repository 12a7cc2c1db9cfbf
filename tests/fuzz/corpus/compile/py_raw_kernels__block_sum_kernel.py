@simt.kernel
def _block_sum_kernel(x, out):
    sm = simt.shared.array(256, simt.int64)
    sm[simt.threadIdx.x] = x[simt.grid(1)]
    simt.syncthreads()
    out[0] = sm[0]
