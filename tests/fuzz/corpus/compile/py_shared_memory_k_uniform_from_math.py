@simt.kernel
def k_uniform_from_math(x, out):
    sh = cuda.shared.array(BLOCK, np.int64)
    tid = cuda.threadIdx.x
    start = cuda.blockIdx.x * cuda.blockDim.x
    valid = min(cuda.blockDim.x, x.size - start)  # pure math on shapes and block values
    steps = int(math.log2(cuda.blockDim.x))
    i = start + tid
    sh[tid] = x[i] if tid < valid else 0
    cuda.syncthreads()
    offset = 1
    for _ in range(steps):
        if offset < valid:
            v = sh[tid]
            if tid >= offset:
                v += sh[tid - offset]
            cuda.syncthreads()
            sh[tid] = v
            cuda.syncthreads()
        offset *= 2
    if tid < valid:
        out[i] = sh[tid]
