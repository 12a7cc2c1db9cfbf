@simt.kernel
def k_int8_shift_literal(a, out1, out2):
    i = cuda.grid(1)
    if i < a.shape[0]:
        out1[i] = a[i] << 3
        out2[i] = a[i] >> 1
