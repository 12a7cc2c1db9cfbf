@simt.kernel
def k_reverse_segments(a, out):
    sh = cuda.shared.array(0, np.float32)
    tid = cuda.threadIdx.x
    start = cuda.blockIdx.x * cuda.blockDim.x
    i = start + tid
    seg = min(cuda.blockDim.x, a.size - start)
    if i < a.size:
        sh[tid] = a[i]
    cuda.syncthreads()
    if tid < seg:
        out[i] = sh[seg - 1 - tid]
