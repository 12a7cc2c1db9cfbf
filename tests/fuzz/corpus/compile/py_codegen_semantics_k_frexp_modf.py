@simt.kernel
def k_frexp_modf(a, mant, expo, frac, whole):
    i = cuda.grid(1)
    if i < a.shape[0]:
        m, e = math.frexp(a[i])
        mant[i] = m
        expo[i] = e
        f, w = math.modf(a[i])
        frac[i] = f
        whole[i] = w
