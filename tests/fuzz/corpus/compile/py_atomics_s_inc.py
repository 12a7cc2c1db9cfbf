@simt.kernel
def s_inc(a, idx, vals, old, final):
    sh = cuda.shared.array(SLOTS, DT)
    tid = cuda.threadIdx.x
    if tid < SLOTS:
        sh[tid] = a[cuda.blockIdx.x, tid]
    cuda.syncthreads()
    i = cuda.grid(1)
    if i < idx.size:
        old[i] = cuda.atomic.inc(sh, idx[i], vals[i])
    cuda.syncthreads()
    if tid < SLOTS:
        final[cuda.blockIdx.x, tid] = sh[tid]
