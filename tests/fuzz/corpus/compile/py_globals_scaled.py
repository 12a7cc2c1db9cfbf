@simt.kernel
def scaled(x, out):
    i = simt.grid(1)
    if i < x.size:
        out[i] = x[i] * SCALE
