@simt.kernel
def k_math(a, b, s, c, e, lg, sq, at, hy):
    i = cuda.grid(1)
    if i < a.shape[0]:
        s[i] = math.sin(a[i])
        c[i] = math.cos(a[i])
        e[i] = math.exp(a[i])
        lg[i] = math.log(b[i])
        sq[i] = math.sqrt(b[i])
        at[i] = math.atan2(a[i], b[i])
        hy[i] = math.hypot(a[i], b[i])
