@cuda.jit
def arith(a, b, c, out, sel):
    i = cuda.grid(1)
    if i < a.size:
        out[i] = cuda.fma(a[i], b[i], c[i])
        sel[i] = cuda.selp(a[i] > b[i], a[i], b[i]) + cuda.cbrt(c[i])
