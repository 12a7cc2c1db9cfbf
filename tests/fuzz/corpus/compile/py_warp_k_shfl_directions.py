@simt.kernel
def k_shfl_directions(x, delta, up, down, xor_, up1, down16):
    i = cuda.grid(1)
    v = x[i]
    up[i] = cuda.shfl_up_sync(FULL, v, delta)
    down[i] = cuda.shfl_down_sync(FULL, v, delta)
    xor_[i] = cuda.shfl_xor_sync(FULL, v, delta)
    up1[i] = cuda.shfl_up_sync(FULL, v, 1)
    down16[i] = cuda.shfl_down_sync(FULL, v, 16)
