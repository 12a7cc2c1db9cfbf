@simt.kernel
def by_factor(x, out):
    i = simt.grid(1)
    if i < x.size:
        out[i] = x[i] * factor
