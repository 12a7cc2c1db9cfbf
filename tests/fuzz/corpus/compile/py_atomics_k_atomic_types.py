@simt.kernel
def k_atomic_types(a, out):
    o = cuda.atomic.add(a, 0, 1)
    m = cuda.atomic.max(a, 0, 1)
    e = cuda.atomic.exch(a, 0, a[0])
    out[0] = o + m + e
