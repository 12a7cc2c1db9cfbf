@simt.kernel
def k_chained(lo, a, hi, out1, out2):
    i = cuda.grid(1)
    if i < a.shape[0]:
        out1[i] = lo[i] < a[i] <= hi[i]
        out2[i] = lo[i] != a[i] == hi[i] > 0
