@simt.kernel
def k_cube(out):
    c = cuda.const.array_like(CUBE)
    i = cuda.grid(1)
    if i < out.size:
        out[i] = c[i // 12, (i // 4) % 3, i % 4] + c.shape[2] + c.size
