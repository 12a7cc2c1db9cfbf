@simt.kernel
def k_block3d(x, out):
    cube = cuda.shared.array((4, 4, 4), np.int32)
    tx = cuda.threadIdx.x
    ty = cuda.threadIdx.y
    tz = cuda.threadIdx.z
    b = cuda.blockIdx.x
    cube[tz, ty, tx] = x[b, tz, ty, tx]
    cuda.syncthreads()
    out[b, tz, ty, tx] = cube[tx, tz, ty]
