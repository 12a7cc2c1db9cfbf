@simt.kernel
def k_warp0_reduction(x, out):
    """The usual form: the block's partial sums in shared memory, then warp 0 alone
    finishes with shuffles (legal CUDA: the whole warp takes the branch)."""
    s = cuda.shared.array(BLOCK, np.float64)
    t = cuda.threadIdx.x
    i = cuda.grid(1)
    s[t] = x[i] if i < x.size else 0.0
    cuda.syncthreads()
    if t < 32:
        v = s[t] + s[t + 32] + s[t + 64] + s[t + 96]
        offset = 16
        while offset > 0:
            v += cuda.shfl_down_sync(FULL, v, offset)
            offset //= 2
        if t == 0:
            out[cuda.blockIdx.x] = v
