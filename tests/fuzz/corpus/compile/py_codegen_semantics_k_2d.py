@simt.kernel
def k_2d(a, b, out):
    i, j = cuda.grid(2)
    if i < out.shape[0] and j < out.shape[1]:
        out[i, j] = a[i, j] * 2.0 - b[i, j] + i * 100 + j
