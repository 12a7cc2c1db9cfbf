@simt.kernel
def k_local_counts(x, out):
    i = cuda.grid(1)
    counts = cuda.local.array((2, 4), np.int32)
    for p in range(2):
        for b in range(4):
            counts[p, b] = 0
    if i < x.shape[0]:
        for j in range(x.shape[1]):
            counts[j % 2, x[i, j]] += 1
        for p in range(2):
            for b in range(4):
                out[i, p, b] = counts[p, b]
