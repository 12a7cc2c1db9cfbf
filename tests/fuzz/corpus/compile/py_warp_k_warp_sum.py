@simt.kernel
def k_warp_sum(x, out):
    i = cuda.grid(1)
    v = x[i] if i < x.size else 0
    offset = cuda.warpsize // 2
    while offset > 0:
        v += cuda.shfl_down_sync(FULL, v, offset)
        offset //= 2
    if cuda.laneid == 0:
        out[i // cuda.warpsize] = v
