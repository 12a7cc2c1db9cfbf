@simt.kernel
def k_array_attributes(out):
    sh = cuda.shared.array((3, 5), np.float32)
    loc = cuda.local.array(7, np.int16)
    dyn = cuda.shared.array(0, np.float64)
    if cuda.grid(1) == 0:
        out[0] = sh.size
        out[1] = sh.shape[0]
        out[2] = sh.shape[1]
        out[3] = sh.ndim
        out[4] = loc.size
        out[5] = len(loc)
        out[6] = sh.itemsize
        out[7] = dyn.ndim
