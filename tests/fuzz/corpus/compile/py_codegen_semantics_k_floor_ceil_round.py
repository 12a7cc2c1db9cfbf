@simt.kernel
def k_floor_ceil_round(a, fl, ce, ro, flags):
    i = cuda.grid(1)
    if i < a.shape[0]:
        fl[i] = math.floor(a[i])
        ce[i] = math.ceil(a[i])
        ro[i] = round(a[i])
        flags[i, 0] = math.isnan(a[i])
        flags[i, 1] = math.isinf(a[i])
        flags[i, 2] = np.isnan(a[i]) or np.isinf(a[i])
