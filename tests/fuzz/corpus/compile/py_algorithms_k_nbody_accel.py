@simt.kernel
def k_nbody_accel(pos, mass, acc, eps2):
    sp = cuda.shared.array((NB_TILE, 3), np.float32)
    sm = cuda.shared.array(NB_TILE, np.float32)
    tid = cuda.threadIdx.x
    i = cuda.grid(1)
    n = pos.shape[0]
    me = min(i, n - 1)
    xi = pos[me, 0]
    yi = pos[me, 1]
    zi = pos[me, 2]
    ax = np.float32(0)
    ay = np.float32(0)
    az = np.float32(0)
    for t in range((n + NB_TILE - 1) // NB_TILE):
        j = t * NB_TILE + tid
        if j < n:
            sp[tid, 0] = pos[j, 0]
            sp[tid, 1] = pos[j, 1]
            sp[tid, 2] = pos[j, 2]
            sm[tid] = mass[j]
        else:
            sp[tid, 0] = 0
            sp[tid, 1] = 0
            sp[tid, 2] = 0
            sm[tid] = 0  # a massless body pulls nothing
        cuda.syncthreads()
        for k in range(NB_TILE):
            fx, fy, fz = pair_accel(xi, yi, zi, sp[k, 0], sp[k, 1], sp[k, 2], sm[k], eps2)
            ax += fx
            ay += fy
            az += fz
        cuda.syncthreads()
    if i < n:
        acc[i, 0] = ax
        acc[i, 1] = ay
        acc[i, 2] = az
