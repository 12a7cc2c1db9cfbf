@simt.kernel
def scale_in_place(x, factor):
    i = cuda.grid(1)
    if i < x.size:
        x[i] = x[i] * factor
