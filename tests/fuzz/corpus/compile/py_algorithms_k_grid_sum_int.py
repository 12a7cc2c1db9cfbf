@simt.kernel
def k_grid_sum_int(x, total):
    sh = cuda.shared.array(BLOCK, np.int64)
    tid = cuda.threadIdx.x
    acc = 0
    for j in range(cuda.grid(1), x.size, cuda.gridsize(1)):
        acc += x[j]
    sh[tid] = acc
    cuda.syncthreads()
    s = cuda.blockDim.x // 2
    while s > 0:
        if tid < s:
            sh[tid] += sh[tid + s]
        cuda.syncthreads()
        s //= 2
    if tid == 0:
        cuda.atomic.add(total, 0, sh[0])
