@simt.func
def force(px, py, qx, qy, eps=1e-3):
    dx = qx - px
    dy = qy - py
    s = inv_r3(dx, dy, eps)  # a device function calling another
    return dx * s, dy * s
