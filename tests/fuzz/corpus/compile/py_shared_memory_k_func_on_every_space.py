@simt.kernel
def k_func_on_every_space(x, out):
    sh = cuda.shared.array(BLOCK, np.int64)
    loc = cuda.local.array(4, np.int64)
    tid = cuda.threadIdx.x
    i = cuda.grid(1)
    sh[tid] = x[i]
    for j in range(4):
        loc[j] = x[i] * (j + 1)
    cuda.syncthreads()
    out[i, 0] = sum_first(x, 4)
    out[i, 1] = sum_first(sh, tid + 1)
    out[i, 2] = sum_first(loc, 4)
