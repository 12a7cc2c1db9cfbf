@simt.kernel
def k_cas_max(x, result):
    i = cuda.grid(1)
    if i < x.size:
        v = x[i]
        old = result[0]
        while old < v:
            prev = cuda.atomic.cas(result, 0, old, v)
            if prev == old:
                break
            old = prev
