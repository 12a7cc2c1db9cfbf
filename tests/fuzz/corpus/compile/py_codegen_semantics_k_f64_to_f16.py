@simt.kernel
def k_f64_to_f16(x, out):
    i = cuda.grid(1)
    if i < x.shape[0]:
        out[i] = np.float16(x[i])
