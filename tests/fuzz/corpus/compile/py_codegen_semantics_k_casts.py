@simt.kernel
def k_casts(f, n, to_int, to_float, to_i32_from_float, to_i32_from_int, to_f32, to_bool):
    i = cuda.grid(1)
    if i < f.shape[0]:
        to_int[i] = int(f[i])
        to_float[i] = float(n[i])
        to_i32_from_float[i] = np.int32(f[i])
        to_i32_from_int[i] = np.int32(n[i])
        to_f32[i] = np.float32(f[i])
        to_bool[i] = bool(n[i])
