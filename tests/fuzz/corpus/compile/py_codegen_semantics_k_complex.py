@simt.kernel
def k_complex(a, b, add, sub, mul, div, absolute, eq):
    i = cuda.grid(1)
    if i < a.shape[0]:
        add[i] = a[i] + b[i]
        sub[i] = a[i] - b[i]
        mul[i] = a[i] * b[i]
        div[i] = a[i] / b[i]
        absolute[i] = abs(a[i])
        eq[i] = a[i] == b[i]
