@simt.kernel
def k_private_across_barriers(x, out):
    sh = cuda.shared.array(BLOCK, np.int64)
    loc = cuda.local.array(4, np.int64)
    tid = cuda.threadIdx.x
    bdim = cuda.blockDim.x
    i = cuda.grid(1)
    mine = x[i] if i < x.size else 0
    for r in range(4):
        sh[tid] = mine + r
        cuda.syncthreads()
        loc[r] = sh[(tid + r + 1) % bdim]
        cuda.syncthreads()
    if i < x.size:
        for r in range(4):
            out[i, r] = loc[r] * 10 + mine % 7
