@simt.kernel
def k_hist2d(r, c, w, counts, wmax, old):
    i = cuda.grid(1)
    if i < r.size:
        old[i] = cuda.atomic.add(counts, (r[i], c[i]), 1)
        cuda.atomic.max(wmax, (r[i], c[i]), w[i])
