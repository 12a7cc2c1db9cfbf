@simt.func
def inv_r3(dx, dy, eps):
    r2 = dx * dx + dy * dy + eps
    return 1.0 / (r2 * math.sqrt(r2))
