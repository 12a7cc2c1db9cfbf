@simt.func
def block_sum(sh, v):
    """The sum of v over the block (every thread gets it), through the shared array sh."""
    tid = cuda.threadIdx.x
    sh[tid] = v
    cuda.syncthreads()
    s = cuda.blockDim.x // 2
    while s > 0:
        if tid < s:
            sh[tid] += sh[tid + s]
        cuda.syncthreads()
        s //= 2
    total = sh[0]
    cuda.syncthreads()
    return total
