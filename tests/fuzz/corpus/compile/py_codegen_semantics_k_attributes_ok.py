@simt.kernel
def k_attributes_ok(a, out):
    i = cuda.grid(1)
    if i == 0:
        for j in range(5):
            pass
        out[0] = j
        out[1] = a.size
        out[2] = a.ndim
        out[3] = a.strides[0]
        out[4] = a.strides[1]
        out[5] = a.itemsize
        out[6] = a.shape[1]
        out[7] = len(a)
        out[8] = a[0, 0] or 5
        out[9] = a[0, 1] or 5
        out[10] = a[0, 1] and 7
        k = 0
        while k < 10:
            k += 3
        out[11] = k
