@simt.kernel
def k_add(a, b, out):
    x = a[0] + b[0]
    y = a[0] * b[0]
    z = a[0] - 1
    w = b[0] * 2.5
