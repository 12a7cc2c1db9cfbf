@simt.kernel
def g_inc(a, idx, vals, old):
    i = cuda.grid(1)
    if i < idx.size:
        old[i] = cuda.atomic.inc(a, idx[i], vals[i])
