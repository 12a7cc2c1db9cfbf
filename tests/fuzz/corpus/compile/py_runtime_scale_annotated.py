@simt.kernel
def scale_annotated(x: np.float32, out):
    i = cuda.grid(1)
    if i < len(out):
        out[i] = out[i] * x
