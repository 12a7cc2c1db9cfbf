@simt.kernel
def k_uniform_branches(x, out, flag):
    sh = cuda.shared.array(BLOCK, np.int32)
    tid = cuda.threadIdx.x
    bdim = cuda.blockDim.x
    i = cuda.grid(1)
    sh[tid] = x[i]
    v = 0
    last = cuda.gridDim.x - 1
    if cuda.blockIdx.x == last:  # derived from gridDim and blockIdx
        cuda.syncthreads()
        v = sh[bdim - 1 - tid]
        cuda.syncthreads()
    elif flag > 0:  # a parameter
        cuda.syncthreads()
        v = sh[(tid + 1) % bdim]
        cuda.syncthreads()
    else:
        v = sh[tid]
    steps = flag * 2 + 1
    while steps > 0:  # a variable computed from a parameter
        sh[tid] = v
        cuda.syncthreads()
        v = sh[(tid + 3) % bdim]
        cuda.syncthreads()
        steps -= 1
    out[i] = v
