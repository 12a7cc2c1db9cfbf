@simt.kernel
def k_arith(a, b, add, sub, mul):
    i = cuda.grid(1)
    if i < a.shape[0]:
        add[i] = a[i] + b[i]
        sub[i] = a[i] - b[i]
        mul[i] = a[i] * b[i]
