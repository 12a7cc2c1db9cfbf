@simt.kernel
def k_early_exit(x, out, counts, n_active):
    sh = cuda.shared.array(BLOCK, np.int32)
    tid = cuda.threadIdx.x
    if tid >= n_active:  # these threads leave; the others meet at the barriers
        return
    sh[tid] = x[tid]
    cuda.syncthreads()
    out[tid] = sh[n_active - 1 - tid]
    counts[tid] = cuda.syncthreads_count(x[tid] > 0)
