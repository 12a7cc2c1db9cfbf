@simt.kernel
def g_min(a, idx, vals, old):
    i = cuda.grid(1)
    if i < idx.size:
        old[i] = cuda.atomic.min(a, idx[i], vals[i])
