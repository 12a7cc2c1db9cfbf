@simt.kernel
def k_scalar_args(a, s, f, t, h, c, flag, out):
    i = cuda.grid(1)
    if i < a.shape[0]:
        x = a[i] * s + f + t[0] * t[1] + h
        if flag:
            x = x + c.real
        out[i] = x
