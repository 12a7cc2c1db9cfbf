@simt.kernel("(float32[::1],)")
def bad(out):
    out[0] = out
