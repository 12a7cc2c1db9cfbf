@simt.kernel
def g_sub(a, idx, vals, old):
    i = cuda.grid(1)
    if i < idx.size:
        old[i] = cuda.atomic.sub(a, idx[i], vals[i])
