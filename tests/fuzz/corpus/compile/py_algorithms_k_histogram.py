@simt.kernel
def k_histogram(x, w, lo, scale, hist, whist):
    i = cuda.grid(1)
    if i < x.size:
        b = int(math.floor((x[i] - lo) * scale))
        b = min(max(b, 0), hist.size - 1)
        cuda.atomic.add(hist, b, 1)
        cuda.atomic.add(whist, b, w[i])
