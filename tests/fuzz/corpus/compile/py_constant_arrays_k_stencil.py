@simt.kernel
def k_stencil(x, out):
    w = cuda.const.array_like(x)  # an argument, not a global array: an error
    i = cuda.grid(1)
    out[i] = x[i] * w[0]
