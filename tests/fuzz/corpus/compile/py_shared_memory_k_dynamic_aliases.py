@simt.kernel
def k_dynamic_aliases(x, bits, same):
    f = cuda.shared.array(0, np.float32)
    u = cuda.shared.array(0, np.uint32)
    g = cuda.shared.array(0, np.float32)
    tid = cuda.threadIdx.x
    i = cuda.grid(1)
    if i < x.size:
        f[tid] = x[i]
    cuda.syncthreads()
    if i < x.size:
        bits[i] = u[tid]
        same[i] = g[tid]
