@simt.kernel
def k_tuples(a, b, out):
    i = cuda.grid(1)
    if i < a.shape[0]:
        x, y = a[i], b[i]
        x, y = y, x
        s = 0.0
        for c in (1, 2.5, -3):
            s += c * x
        pair = (x, y)
        p, q = pair
        out[i, 0] = x - y
        out[i, 1] = s
        out[i, 2] = p * 10 + q
        out[i, 3] = y if x > y else -y
