@simt.kernel
def k_int_pow_negative(a, b, out):
    i = cuda.grid(1)
    if i < a.shape[0]:
        out[i] = a[i] ** b[i]
