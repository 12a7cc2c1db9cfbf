@simt.kernel
def k(a):
    pass
