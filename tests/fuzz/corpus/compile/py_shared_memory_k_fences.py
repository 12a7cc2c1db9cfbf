@simt.kernel
def k_fences(x, out):
    sh = cuda.shared.array(BLOCK, np.float32)
    tid = cuda.threadIdx.x
    i = cuda.grid(1)
    sh[tid] = x[i]
    cuda.threadfence_block()
    cuda.threadfence()
    cuda.threadfence_system()
    cuda.syncthreads()
    out[i] = sh[cuda.blockDim.x - 1 - tid]
