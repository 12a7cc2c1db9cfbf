@simt.kernel
def g_cas(a, idx, cmp, vals, old):
    i = cuda.grid(1)
    if i < idx.size:
        old[i] = cuda.atomic.cas(a, idx[i], cmp[i], vals[i])
