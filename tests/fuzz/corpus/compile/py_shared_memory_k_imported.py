@simt.kernel
def k_imported(x, out, total):
    sh = shared.array(BLOCK, np.float32)
    loc = local.array(1, np.float32)
    tid = cuda.threadIdx.x
    i = cuda.grid(1)
    loc[0] = x[i]
    sh[tid] = loc[0]
    syncthreads()
    out[i] = sh[(tid + 1) % cuda.blockDim.x]
    atomic.add(total, 0, 1)
