@simt.kernel
def k_activemask(out):
    m = cuda.activemask()
    out[cuda.grid(1)] = m
