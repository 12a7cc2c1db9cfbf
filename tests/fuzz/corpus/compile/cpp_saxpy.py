# signature: float32, float32[::1], float32[::1], float32[::1]
# signature: float64, float64[:], float64[:], float64[:]
@simt.kernel
def saxpy(a, x, y, out):
    i = cuda.grid(1)
    if i < out.size:
        out[i] = a * x[i] + y[i]
