@simt.kernel
def k_uniform_return(x, out, active_blocks):
    sh = cuda.shared.array(BLOCK, np.float32)
    if cuda.blockIdx.x >= active_blocks:  # whole blocks leave: uniform
        return
    tid = cuda.threadIdx.x
    i = cuda.grid(1)
    sh[tid] = x[i]
    cuda.syncthreads()
    out[i] = sh[cuda.blockDim.x - 1 - tid]
