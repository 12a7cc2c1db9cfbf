@simt.kernel
def k_operand_side_effects(counter, out):
    i = cuda.grid(1)
    v = cuda.shfl_sync(FULL, cuda.atomic.add(counter, 0, 1), 0)
    out[i] = v
