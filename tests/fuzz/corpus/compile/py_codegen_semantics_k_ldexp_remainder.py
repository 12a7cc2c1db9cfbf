@simt.kernel
def k_ldexp_remainder(a, b, n, ld, rem):
    i = cuda.grid(1)
    if i < a.shape[0]:
        ld[i] = math.ldexp(a[i], n[i])
        rem[i] = math.remainder(a[i], b[i])
