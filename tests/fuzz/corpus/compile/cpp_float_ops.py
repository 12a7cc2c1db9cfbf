# signature: float32[::1], float32[::1], float32[::1]
# signature: float64[::1], float64[:], float64[::1]
# signature: float16[::1], float16[::1], float16[::1]
def float_ops(a, b, out):
    i = cuda.grid(1)
    if i < out.size:
        x = a[i]
        y = b[i]
        r = x + y - x * y / (y + 3)
        r += x // y + x % y + x ** 2
        r = -r if r < 0 else r
        out[i] = r
