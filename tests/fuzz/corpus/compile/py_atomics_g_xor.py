@simt.kernel
def g_xor(a, idx, vals, old):
    i = cuda.grid(1)
    if i < idx.size:
        old[i] = cuda.atomic.xor(a, idx[i], vals[i])
