@cuda.jit("void(float64[:], float64, float64)")
def clamp_all(x, low, high):
    i = cuda.grid(1)
    if i < x.size:
        x[i] = clamp(x[i], low, high)
