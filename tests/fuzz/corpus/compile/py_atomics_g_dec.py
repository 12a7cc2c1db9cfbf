@simt.kernel
def g_dec(a, idx, vals, old):
    i = cuda.grid(1)
    if i < idx.size:
        old[i] = cuda.atomic.dec(a, idx[i], vals[i])
