@simt.func
def inv_r3(r2):
    inv = 1.0 / math.sqrt(r2)
    return inv * inv * inv
