@simt.func
def wrap(i, n, step=1):
    return (i + step) % n
