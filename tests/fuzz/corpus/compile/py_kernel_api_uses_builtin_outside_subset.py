@simt.kernel
def uses_builtin_outside_subset(a, out):
    i = cuda.grid(1)
    out[i] = sum(a)  # @api:builtin-global
