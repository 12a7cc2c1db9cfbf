@simt.kernel
def g_add(a, idx, vals, old):
    i = cuda.grid(1)
    if i < idx.size:
        old[i] = cuda.atomic.add(a, idx[i], vals[i])
