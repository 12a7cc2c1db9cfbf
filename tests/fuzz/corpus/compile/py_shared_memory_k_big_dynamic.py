@simt.kernel
def k_big_dynamic(x, out, per):
    buf = cuda.shared.array(0, np.float32)
    tid = cuda.threadIdx.x
    bdim = cuda.blockDim.x
    i = cuda.grid(1)
    for j in range(per):
        buf[j * bdim + tid] = x[i] * (j + 1)
    cuda.syncthreads()
    acc = np.float32(0)
    for j in range(per):
        acc += buf[j * bdim + (bdim - 1 - tid)]
    out[i] = acc
