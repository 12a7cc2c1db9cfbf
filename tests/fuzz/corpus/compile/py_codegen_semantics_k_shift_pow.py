@simt.kernel
def k_shift_pow(a, s, p, lshift, rshift, power):
    i = cuda.grid(1)
    if i < a.shape[0]:
        lshift[i] = a[i] << s[i]
        rshift[i] = a[i] >> s[i]
        power[i] = a[i] ** p[i]
