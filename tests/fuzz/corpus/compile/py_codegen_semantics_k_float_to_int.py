@simt.kernel
def k_float_to_int(f, i64, i32, i8, u8, u64):
    i = cuda.grid(1)
    if i < f.shape[0]:
        i64[i] = int(f[i])
        i32[i] = np.int32(f[i])
        i8[i] = np.int8(f[i])
        u8[i] = np.uint8(f[i])
        u64[i] = np.uint64(f[i])
