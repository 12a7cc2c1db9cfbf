# signature: complex64[::1], complex64[::1], float32[::1]
# signature: complex128[::1], complex128[::1], float64[::1]
def complex_ops(a, b, out):
    i = cuda.grid(1)
    if i < a.size:
        z = a[i] * b[i] + a[i] / (b[i] + 1j) - 2
        b[i] = -z
        out[i] = abs(z) + z.real - z.imag + (1.0 if z == a[i] else 0.0)
