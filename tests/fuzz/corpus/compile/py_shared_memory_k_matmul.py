@simt.kernel
def k_matmul(a, b, c):
    sa = cuda.shared.array((TILE, TILE), np.float32)
    sb = cuda.shared.array(shape=(TILE, TILE), dtype=simt.float32)
    tx = cuda.threadIdx.x
    ty = cuda.threadIdx.y
    row = cuda.blockIdx.y * TILE + ty
    col = cuda.blockIdx.x * TILE + tx
    n, k = a.shape
    m = b.shape[1]
    acc = np.float32(0)
    for t in range((k + TILE - 1) // TILE):
        kk = t * TILE
        if row < n and kk + tx < k:
            sa[ty, tx] = a[row, kk + tx]
        else:
            sa[ty, tx] = 0
        if kk + ty < k and col < m:
            sb[ty, tx] = b[kk + ty, col]
        else:
            sb[ty, tx] = 0
        cuda.syncthreads()
        for j in range(TILE):
            acc += sa[ty, j] * sb[j, tx]
        cuda.syncthreads()
    if row < n and col < m:
        c[row, col] = acc
