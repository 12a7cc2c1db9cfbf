@simt.kernel
def k_float_sum(x, slot, total):
    i = cuda.grid(1)
    if i < x.size:
        cuda.atomic.add(total, slot[i], x[i])
