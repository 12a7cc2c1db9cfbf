@simt.kernel
def k_simt_names(x, out, count):
    sh = simt.shared.array(BLOCK, simt.int32)
    loc = simt.local.array(2, simt.int32)
    tid = simt.threadIdx.x
    i = simt.grid(1)
    loc[0] = x[i]
    sh[tid] = loc[0]
    simt.syncthreads()
    out[i] = sh[simt.blockDim.x - 1 - tid]
    c = simt.syncthreads_count(x[i] > 0)
    if tid == 0:
        simt.atomic.add(count, 0, c)
