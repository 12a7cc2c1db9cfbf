@simt.kernel
def k_block_1024(x, out):
    sh = cuda.shared.array(1024, np.float64)
    tid = cuda.threadIdx.x
    i = cuda.grid(1)
    a = x[i]
    b = a * 2
    c = a - 1
    sh[tid] = a
    cuda.syncthreads()
    s = cuda.blockDim.x // 2
    while s > 0:
        if tid < s:
            sh[tid] += sh[tid + s]
        cuda.syncthreads()
        s //= 2
    out[i] = sh[0] + b * 1000 + c * 1000000
