@cuda.jit(void(float32[:], int32))
def scale(x, k):
    i = cuda.grid(1)
    if i < x.size:
        tmp = cuda.local.array(2, dtype=float32)
        tmp[0] = float32(k)
        x[i] = x[i] * tmp[0]
