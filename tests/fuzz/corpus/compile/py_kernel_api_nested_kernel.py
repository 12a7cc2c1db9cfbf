@simt.kernel
def nested_kernel(a, out):
    i = cuda.grid(1)
    if i < 10:
        out[i] = a[i] - 1  # @api:nested
