# signature: float32, float32[::1], float32[::1]
# signature: float64, float64[:], float64[:]
@simt.kernel
def grid_stride(a, x, out):
    stride = cuda.gridsize(1)
    for i in range(cuda.grid(1), x.size, stride):
        out[i] = a * x[i]
    j = cuda.grid(1)
    while j < out.size:
        out[j] += 1
        j += cuda.gridsize(1)
