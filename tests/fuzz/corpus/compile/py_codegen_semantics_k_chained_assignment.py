@simt.kernel
def k_chained_assignment(a, out, out2):
    i = cuda.grid(1)
    if i < out.shape[0]:
        y = z = 1
        z = a[i] + 2j
        out[i] = y + z.real + z.imag
        acc = 0j
        for w in (3, 0.5j):  # items of other types than the loop variable's
            acc = acc + w * a[i]
        out2[i] = acc.real - acc.imag
