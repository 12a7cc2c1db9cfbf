@simt.kernel
def g_max(a, idx, vals, old):
    i = cuda.grid(1)
    if i < idx.size:
        old[i] = cuda.atomic.max(a, idx[i], vals[i])
