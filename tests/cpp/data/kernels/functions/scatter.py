@simt.func
def scatter(a, v):
    i = cuda.grid(1)
    if i < a.size:
        a[i] = v
