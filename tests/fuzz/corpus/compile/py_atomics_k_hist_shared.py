@simt.kernel
def k_hist_shared(x, hist):
    local = cuda.shared.array(NBINS_SHARED, np.uint32)
    tid = cuda.threadIdx.x
    for b in range(tid, NBINS_SHARED, cuda.blockDim.x):
        local[b] = 0
    cuda.syncthreads()
    for j in range(cuda.grid(1), x.size, cuda.gridsize(1)):
        cuda.atomic.add(local, x[j], 1)
    cuda.syncthreads()
    for b in range(tid, NBINS_SHARED, cuda.blockDim.x):
        cuda.atomic.add(hist, b, local[b])
