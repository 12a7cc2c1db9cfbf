@simt.kernel
def k_block_scan_double_buffer(x, out):
    """Hillis-Steele inclusive scan ping-ponging between two shared buffers."""
    b0 = cuda.shared.array(BLOCK, np.float64)
    b1 = cuda.shared.array(BLOCK, np.float64)
    tid = cuda.threadIdx.x
    i = cuda.grid(1)
    b0[tid] = x[i] if i < x.size else 0
    cuda.syncthreads()
    offset = 1
    src = 0
    while offset < cuda.blockDim.x:
        if src == 0:
            v = b0[tid]
            if tid >= offset:
                v += b0[tid - offset]
            b1[tid] = v
        else:
            v = b1[tid]
            if tid >= offset:
                v += b1[tid - offset]
            b0[tid] = v
        cuda.syncthreads()
        src = 1 - src
        offset *= 2
    if i < x.size:
        if src == 0:
            out[i] = b0[tid]
        else:
            out[i] = b1[tid]
