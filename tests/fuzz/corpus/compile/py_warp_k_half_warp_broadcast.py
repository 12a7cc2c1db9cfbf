@simt.kernel
def k_half_warp_broadcast(x, out):
    v = x[cuda.threadIdx.x]
    if cuda.laneid < 16:
        v = cuda.shfl_sync(0x0000FFFF, v, 0)  # lanes 0-15 take lane 0's value
    out[cuda.threadIdx.x] = v
