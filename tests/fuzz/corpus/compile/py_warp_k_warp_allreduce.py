@simt.kernel
def k_warp_allreduce(x, out):
    i = cuda.grid(1)
    v = x[i] if i < x.size else np.float32(0)
    mask = 1
    while mask < cuda.warpsize:
        v += cuda.shfl_xor_sync(FULL, v, mask)
        mask *= 2
    if i < x.size:
        out[i] = v
