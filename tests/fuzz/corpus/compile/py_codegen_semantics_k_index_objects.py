@simt.kernel
def k_index_objects(out):
    x, y = cuda.grid(2)
    w, h = cuda.gridsize(2)
    if x < out.shape[0] and y < out.shape[1]:
        out[x, y, 0] = cuda.threadIdx.x + 10 * cuda.threadIdx.y
        out[x, y, 1] = cuda.blockIdx.x + 10 * cuda.blockIdx.y
        out[x, y, 2] = cuda.blockDim.x + 10 * cuda.blockDim.y
        out[x, y, 3] = cuda.gridDim.x + 10 * cuda.gridDim.y
        out[x, y, 4] = w + 1000 * h
