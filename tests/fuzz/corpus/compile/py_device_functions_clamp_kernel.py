@simt.kernel
def clamp_kernel(x, out, lo, hi):
    i = cuda.grid(1)
    if i < x.size:
        out[i] = clamp(x[i], lo, hi)
