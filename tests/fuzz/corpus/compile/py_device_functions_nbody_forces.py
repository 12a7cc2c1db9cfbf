@simt.kernel
def nbody_forces(pos, acc):
    i = cuda.grid(1)
    n = pos.shape[0]
    if i < n:
        ax = 0.0
        ay = 0.0
        for j in range(n):
            if j != i:
                fx, fy = force(pos[i, 0], pos[i, 1], pos[j, 0], pos[j, 1])
                ax += fx
                ay += fy
        acc[i, 0] = ax
        acc[i, 1] = ay
