@simt.kernel
def scaled(a, out):
    i = cuda.grid(1)
    if i < a.shape[0]:
        out[i] = a[i] * scale + factor
