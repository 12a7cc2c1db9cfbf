@simt.kernel
def uses_namespaces(a, out):
    i = simt.grid(1)
    j = cuda.grid(1)
    t = threadIdx.x + cuda.blockIdx.x * simt.block_dim.x + simt.gridDim.x
    x = math.sqrt(a[i]) + sqrt(a[j]) + np.sqrt(a[i]) + numpy.float32(t) + SCALE
    y = np.float32(x)
    z = math.pi + np.pi
    out[i] = y + z
