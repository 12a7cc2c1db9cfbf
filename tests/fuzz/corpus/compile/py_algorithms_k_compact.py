@simt.kernel
def k_compact(x, threshold, out, count):
    i = cuda.grid(1)
    if i < x.size and x[i] > threshold:
        slot = cuda.atomic.add(count, 0, 1)
        out[slot] = x[i]
