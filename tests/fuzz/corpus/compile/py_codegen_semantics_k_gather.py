@simt.kernel
def k_gather(a, idx, out):
    i = cuda.grid(1)
    if i < idx.shape[0]:
        out[i] = a[idx[i]]
