@simt.kernel
def k_bool_logic(a, b, out):
    i = cuda.grid(1)
    if i < a.shape[0]:
        out[i, 0] = a[i] > 0 and b[i] > 0
        out[i, 1] = a[i] > 0 or b[i] > 0
        out[i, 2] = not a[i] > 0
        out[i, 3] = (a[i] if b[i] > 0 else b[i]) > 0.5
