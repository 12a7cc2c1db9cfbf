@simt.func
def clamp(x, lo, hi):
    return min(max(x, lo), hi)
#---
@simt.func
def divmod_floor(a, b):
    """Python's divmod; (0, 0) for a zero divisor."""
    if b == 0:
        return 0, 0
    return a // b, a % b
#---
@simt.func
def inv_r3(r2):
    inv = 1.0 / math.sqrt(r2)
    return inv * inv * inv
#---
# calls: inv_r3
@simt.func
def pair_force(pos, i, j, eps2):
    dx = pos[j, 0] - pos[i, 0]
    dy = pos[j, 1] - pos[i, 1]
    dz = pos[j, 2] - pos[i, 2]
    s = inv_r3(dx * dx + dy * dy + dz * dz + eps2)
    return dx * s, dy * s, dz * s
#---
@simt.func
def scatter(a, v):
    i = cuda.grid(1)
    if i < a.size:
        a[i] = v
#---
@simt.func
def wrap(i, n, step=1):
    return (i + step) % n
#---
# signature: float32[:, ::1], float32[::1], float32[:, ::1], float32
# signature: float64[:, ::1], float64[::1], float64[:, ::1], float64
@simt.kernel
def nbody(pos, mass, acc, eps2):
    i = cuda.grid(1)
    if i >= pos.shape[0]:
        return
    ax = 0.0
    ay = 0.0
    az = 0.0
    for j in range(pos.shape[0]):
        if j != i:
            fx, fy, fz = pair_force(pos, i, j, eps2)
            ax += fx * mass[j]
            ay += fy * mass[j]
            az += fz * mass[j]
    acc[i, 0] = ax
    acc[i, 1] = ay
    acc[i, 2] = az
