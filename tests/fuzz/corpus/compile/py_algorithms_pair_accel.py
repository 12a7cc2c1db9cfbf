@simt.func
def pair_accel(xi, yi, zi, xj, yj, zj, mj, eps2):
    """Acceleration of body i caused by body j (softened gravity, G = 1)."""
    dx = xj - xi
    dy = yj - yi
    dz = zj - zi
    r2 = dx * dx + dy * dy + dz * dz + eps2
    inv_r = 1.0 / math.sqrt(r2)
    s = mj * inv_r * inv_r * inv_r
    return dx * s, dy * s, dz * s
