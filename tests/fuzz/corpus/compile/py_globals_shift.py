@simt.kernel
def shift(x, out):
    i = simt.grid(1)
    if i < x.size:
        out[i] = _shifted(x[i])
