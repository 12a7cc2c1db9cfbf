@simt.kernel
def k_hist2d_shared(r, c, counts):
    local = cuda.shared.array((4, 6), np.int64)
    tid = cuda.threadIdx.x
    if tid < 24:
        local[tid // 6, tid % 6] = 0
    cuda.syncthreads()
    i = cuda.grid(1)
    if i < r.size:
        cuda.atomic.add(local, (r[i], c[i]), 1)
    cuda.syncthreads()
    if tid < 24:
        cuda.atomic.add(counts, (tid // 6, tid % 6), local[tid // 6, tid % 6])
