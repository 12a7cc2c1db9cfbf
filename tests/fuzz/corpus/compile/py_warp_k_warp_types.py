@simt.kernel
def k_warp_types(x, out):
    i = cuda.grid(1)
    lane = cuda.laneid
    size = cuda.warpsize
    mask = cuda.activemask()
    b = cuda.ballot_sync(FULL, x[i] > 0)
    a = cuda.all_sync(FULL, x[i] > 0)
    y = cuda.any_sync(FULL, x[i] > 0)
    v = cuda.shfl_sync(FULL, x[i], 0)
    out[i] = lane + size + mask + b + a + y + v
