@simt.kernel
def k_static_and_dynamic(x, y, ox, oy):
    st = cuda.shared.array(BLOCK, np.int32)
    dyn = cuda.shared.array(0, np.int32)
    tid = cuda.threadIdx.x
    bdim = cuda.blockDim.x
    i = cuda.grid(1)
    st[tid] = x[i]
    dyn[tid] = y[i]
    cuda.syncthreads()
    ox[i] = st[bdim - 1 - tid]
    oy[i] = dyn[bdim - 1 - tid]
