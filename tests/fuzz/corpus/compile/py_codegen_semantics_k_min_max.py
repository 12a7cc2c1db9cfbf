@simt.kernel
def k_min_max(a, b, c, lo, hi, lo3):
    i = cuda.grid(1)
    if i < a.shape[0]:
        lo[i] = min(a[i], b[i])
        hi[i] = max(a[i], b[i])
        lo3[i] = min(a[i], b[i], c[i])
