@simt.kernel
def uses_list_global(a, out):
    i = cuda.grid(1)
    out[i] = NOT_A_CONSTANT[0]  # @api:list-global
