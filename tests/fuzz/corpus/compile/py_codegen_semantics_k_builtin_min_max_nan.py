@simt.kernel
def k_builtin_min_max_nan(a, b, lo, hi, nlo, nhi):
    i = cuda.grid(1)
    if i < a.shape[0]:
        lo[i] = min(a[i], b[i])
        hi[i] = max(a[i], b[i])
        nlo[i] = np.minimum(a[i], b[i])
        nhi[i] = np.maximum(a[i], b[i])
