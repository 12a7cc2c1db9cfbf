@simt.kernel
def k_int_conversions(n, i8, u16, i32, u64, f16, b):
    i = cuda.grid(1)
    if i < n.shape[0]:
        i8[i] = np.int8(n[i])
        u16[i] = np.uint16(n[i])
        i32[i] = n[i]
        u64[i] = n[i]
        f16[i] = n[i]
        b[i] = n[i]
