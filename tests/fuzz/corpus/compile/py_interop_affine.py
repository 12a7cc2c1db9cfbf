@simt.kernel
def affine(x, out):
    i = cuda.grid(1)
    if i < out.size:
        out[i] = 2 * x[i] + 1
