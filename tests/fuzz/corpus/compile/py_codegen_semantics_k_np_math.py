@simt.kernel
def k_np_math(a, b, s, c, e, lg, sq, at, hy):
    i = cuda.grid(1)
    if i < a.shape[0]:
        s[i] = np.sin(a[i])
        c[i] = np.cos(a[i])
        e[i] = np.exp(a[i])
        lg[i] = np.log(b[i])
        sq[i] = np.sqrt(b[i])
        at[i] = np.arctan2(a[i], b[i])
        hy[i] = np.hypot(a[i], b[i])
