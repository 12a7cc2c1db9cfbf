@simt.kernel
def k_rotate(x, out):
    sh = cuda.shared.array(BLOCK, DT)
    tid = cuda.threadIdx.x
    i = cuda.grid(1)
    sh[tid] = x[i]
    cuda.syncthreads()
    out[i] = sh[(tid + 1) % cuda.blockDim.x]
