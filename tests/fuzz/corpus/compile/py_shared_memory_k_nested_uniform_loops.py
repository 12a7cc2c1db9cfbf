@simt.kernel
def k_nested_uniform_loops(x, out, n_outer, stop_at):
    sh = cuda.shared.array(BLOCK, np.int64)
    tid = cuda.threadIdx.x
    bdim = cuda.blockDim.x
    i = cuda.grid(1)
    v = x[i]
    for a in range(n_outer):
        if a == stop_at:  # uniform: a loop counter and a parameter
            break
        if a % 2 == 1:
            continue
        b = 0
        while b < 2:
            sh[tid] = v
            cuda.syncthreads()
            v = sh[(tid + 1) % bdim] + a
            cuda.syncthreads()
            b += 1
    for k in range(cuda.blockIdx.x + 1):  # trip count differs between blocks, not threads
        sh[tid] = v
        cuda.syncthreads()
        v = sh[bdim - 1 - tid] * 3 + k
        cuda.syncthreads()
    out[i] = v
