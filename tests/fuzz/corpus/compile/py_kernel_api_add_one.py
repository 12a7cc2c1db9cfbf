@simt.kernel
def add_one(a, out):
    i = cuda.grid(1)
    if i < out.shape[0]:  # @api:add_one:if
        out[i] = a[i] + 1.0  # @api:add_one:store
