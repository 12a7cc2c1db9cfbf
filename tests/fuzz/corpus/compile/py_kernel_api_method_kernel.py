@simt.kernel
def method_kernel(a, out):
    i = cuda.grid(1)
    out[i] = a[i] * scale  # @api:method
