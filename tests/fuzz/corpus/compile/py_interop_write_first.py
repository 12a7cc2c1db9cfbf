@simt.kernel
def write_first(x):
    x[0] = 1
