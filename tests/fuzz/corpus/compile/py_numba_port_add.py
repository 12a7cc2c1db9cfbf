@cuda.jit([void(f8[::1], f8), "void(float32[::1], float32)"])
def add(x, v):
    i = cuda.grid(1)
    if i < x.size:
        x[i] += v
