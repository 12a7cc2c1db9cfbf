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
