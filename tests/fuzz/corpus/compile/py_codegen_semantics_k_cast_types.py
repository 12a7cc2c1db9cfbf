@simt.kernel
def k_cast_types(f, n):
    a = int(f[0])
    b = float(n[0])
    c = np.int32(f[0])
    d = np.float32(n[0])
    e = bool(f[0])
