@simt.kernel
def k_three_static_arrays(x, y, z, ox, oy, oz):
    bytes_ = cuda.shared.array(BLOCK - 1, np.int8)  # odd size: the next must be aligned
    doubles = cuda.shared.array(BLOCK, np.float64)
    ints = cuda.shared.array((2, BLOCK), np.int32)
    tid = cuda.threadIdx.x
    bdim = cuda.blockDim.x
    i = cuda.grid(1)
    if i < x.size:
        doubles[tid] = x[i]
        ints[0, tid] = y[i]
        ints[1, tid] = -y[i]
        if tid < BLOCK - 1:
            bytes_[tid] = z[i]
    cuda.syncthreads()
    if i < x.size:
        j = bdim - 1 - tid
        ox[i] = doubles[j]
        oy[i] = ints[0, j] - ints[1, (tid + 1) % bdim]
        oz[i] = bytes_[(tid + 1) % (BLOCK - 1)] if tid < BLOCK - 1 else 0
