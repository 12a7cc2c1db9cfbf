@simt.kernel
def k_big_locals(x, out):
    sh = cuda.shared.array(1024, np.float64)
    loc = cuda.local.array(BIG_LOCAL, np.float64)
    tid = cuda.threadIdx.x
    i = cuda.grid(1)
    for j in range(BIG_LOCAL):
        loc[j] = x[i] + j
    sh[tid] = loc[BIG_LOCAL - 1]
    cuda.syncthreads()
    acc = np.float64(0)
    for j in range(BIG_LOCAL):
        acc += loc[j]
    out[i] = acc + sh[cuda.blockDim.x - 1 - tid]
