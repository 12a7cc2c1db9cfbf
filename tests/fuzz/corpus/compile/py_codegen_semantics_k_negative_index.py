@simt.kernel
def k_negative_index(a, m, out):
    i = cuda.grid(1)
    if i == 0:
        out[0] = a[-1]
        out[1] = a[-a.shape[0]]
        out[2] = m[-1, -2]
        out[3] = m[-2][1]
        out[-1] = a[-2]
