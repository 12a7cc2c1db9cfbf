@simt.kernel
def k_bitwise(a, b, and_, or_, xor):
    i = cuda.grid(1)
    if i < a.shape[0]:
        and_[i] = a[i] & b[i]
        or_[i] = a[i] | b[i]
        xor[i] = a[i] ^ b[i]
