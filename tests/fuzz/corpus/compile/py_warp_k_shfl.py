@simt.kernel
def k_shfl(x, src, bsrc, bcast, gather):
    i = cuda.grid(1)
    v = x[i]
    bcast[i] = cuda.shfl_sync(FULL, v, bsrc[i // cuda.warpsize])
    gather[i] = cuda.shfl_sync(FULL, v, src[i])
