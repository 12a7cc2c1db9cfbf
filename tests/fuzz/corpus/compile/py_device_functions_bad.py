@simt.func
def bad(x):
    return x & 1.5
