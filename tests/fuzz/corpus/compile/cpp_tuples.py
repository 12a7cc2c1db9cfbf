# signature: int64[:, :, ::1], (int64, int64)
def tuples(out, offset):
    x, y, z = cuda.grid(3)
    shape = out.shape
    if x < shape[0] and y < shape[1] and z < shape[2]:
        a, b = offset
        a, b = b, a
        t = (x, y)
        k = 1
        out[x, y, z] = t[0] * a + t[1] * b + shape[k] + out.ndim + (z if a > b else -z)
