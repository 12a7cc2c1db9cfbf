@simt.func
def warp_max(v):
    offset = cuda.warpsize // 2
    while offset > 0:
        v = max(v, cuda.shfl_xor_sync(FULL, v, offset))
        offset //= 2
    return v
