@simt.kernel
def k_barrier_in_tile_loop(x, out, n_tiles):
    sh = cuda.shared.array(BLOCK, np.int64)
    tid = cuda.threadIdx.x
    bdim = cuda.blockDim.x
    i = cuda.grid(1)
    acc = 0
    for k in range(n_tiles):
        j = k * bdim + tid
        sh[tid] = x[j] if j < x.size else 0
        cuda.syncthreads()
        acc += sh[(tid + k) % bdim]
        cuda.syncthreads()
    if i < out.size:
        out[i] = acc
