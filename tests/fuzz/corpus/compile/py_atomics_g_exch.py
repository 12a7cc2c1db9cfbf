@simt.kernel
def g_exch(a, idx, vals, old):
    i = cuda.grid(1)
    if i < idx.size:
        old[i] = cuda.atomic.exch(a, idx[i], vals[i])
