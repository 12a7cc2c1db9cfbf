@simt.kernel("void(float32[::1], float32)")
def fill(out, v):
    i = cuda.grid(1)
    if i < out.size:
        out[i] = v
