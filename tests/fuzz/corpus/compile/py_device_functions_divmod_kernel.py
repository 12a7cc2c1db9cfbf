@simt.kernel
def divmod_kernel(a, b, q, r):
    i = cuda.grid(1)
    if i < a.size:
        q[i], r[i] = divmod_floor(a[i], b[i])
