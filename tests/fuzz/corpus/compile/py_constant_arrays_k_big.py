@simt.kernel
def k_big(out):
    out[0] = big[0]
