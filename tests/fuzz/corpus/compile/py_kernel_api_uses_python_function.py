@simt.kernel
def uses_python_function(a, out):
    i = cuda.grid(1)
    out[i] = plain_python_function(a[i])  # @api:function-global
