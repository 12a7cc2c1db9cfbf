@simt.kernel
def g_and_(a, idx, vals, old):
    i = cuda.grid(1)
    if i < idx.size:
        old[i] = cuda.atomic.and_(a, idx[i], vals[i])
