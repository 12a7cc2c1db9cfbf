@simt.kernel
def k_cas_bits(a, cmp, vals, old):
    i = cuda.grid(1)
    if i < a.size:
        old[i] = cuda.atomic.cas(a, i, cmp[i], vals[i])
