@simt.kernel
def k_weak_literals(a, out1, out2, out3):
    i = cuda.grid(1)
    if i < a.shape[0]:
        out1[i] = a[i] * 2.5 + 0.1
        out2[i] = a[i] * 3 - 1
        out3[i] = (a[i] + 1) / 3
