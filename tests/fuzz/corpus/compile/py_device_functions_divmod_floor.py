@simt.func
def divmod_floor(a, b):
    return a // b, a % b
