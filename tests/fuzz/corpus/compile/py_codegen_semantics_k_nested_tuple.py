@simt.kernel
def k_nested_tuple(t, out):
    i = cuda.grid(1)
    if i < out.shape[0]:
        inner, last = t
        out[i] = t[1] * 1000 + t[0][2] * 100 + t[-1] * 10 + inner[0] + last + t[-2][-3]
