@simt.kernel
def k_weak_types(a, out):
    i = cuda.grid(1)
    x = a[0] * 2.5
    y = a[0] + 1
    z = a[0] * 1j
    w = a[0] / 2
