@simt.kernel
def scale_add(x, factor, offset):
    i = simt.grid(1)
    if i < x.shape[0]:
        x[i] = x[i] * factor + offset
