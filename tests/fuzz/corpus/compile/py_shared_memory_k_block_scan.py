@simt.kernel
def k_block_scan(x, out):
    """Hillis-Steele inclusive scan in one buffer: read, barrier, write, barrier."""
    sh = cuda.shared.array(BLOCK, np.int32)
    tid = cuda.threadIdx.x
    i = cuda.grid(1)
    sh[tid] = x[i] if i < x.size else 0
    cuda.syncthreads()
    offset = 1
    while offset < cuda.blockDim.x:
        v = sh[tid]
        if tid >= offset:
            v += sh[tid - offset]
        cuda.syncthreads()
        sh[tid] = v
        cuda.syncthreads()
        offset *= 2
    if i < x.size:
        out[i] = sh[tid]
