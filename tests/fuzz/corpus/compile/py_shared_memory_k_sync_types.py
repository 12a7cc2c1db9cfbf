@simt.kernel
def k_sync_types(p, out):
    i = cuda.grid(1)
    c = cuda.syncthreads_count(p[i])
    a = cuda.syncthreads_and(p[i])
    o = cuda.syncthreads_or(p[i])
    out[i] = c + a + o
