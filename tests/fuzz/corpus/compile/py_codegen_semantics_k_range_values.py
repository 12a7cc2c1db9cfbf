@simt.kernel
def k_range_values(bounds, out, count):
    i = cuda.grid(1)
    if i == 0:
        c = 0
        for j in range(bounds[0], bounds[1], bounds[2]):
            out[c] = j
            c += 1
            if c >= out.shape[0]:
                break
        count[0] = c
