@simt.kernel
def k_globals(a, out):
    i = cuda.grid(1)
    if i < a.shape[0]:
        s = a[i] * SCALE + OFFSET32
        for w in WEIGHTS:
            s += w
        out[i] = s
