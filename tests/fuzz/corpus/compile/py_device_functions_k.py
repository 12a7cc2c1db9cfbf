@simt.kernel
def k(out):
    out[0] = bad(out[0])
