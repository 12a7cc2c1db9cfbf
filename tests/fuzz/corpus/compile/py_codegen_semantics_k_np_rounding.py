@simt.kernel
def k_np_rounding(a, fl, ce, tr, ri, cs, fin):
    i = cuda.grid(1)
    if i < a.shape[0]:
        fl[i] = np.floor(a[i])
        ce[i] = np.ceil(a[i])
        tr[i] = np.trunc(a[i])
        ri[i] = np.rint(a[i])
        cs[i] = np.copysign(np.absolute(a[i]), -1.0)
        fin[i] = np.isfinite(a[i])
