@simt.kernel
def f(x, out):
    i = cuda.grid(1)
    if i < x.size:
        out[i] = math.sin(x[i]) * math.exp(-x[i]) + math.sqrt(x[i])
