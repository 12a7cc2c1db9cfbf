@simt.kernel
def g_or_(a, idx, vals, old):
    i = cuda.grid(1)
    if i < idx.size:
        old[i] = cuda.atomic.or_(a, idx[i], vals[i])
