@simt.kernel
def k_3d(a, out):
    x, y, z = cuda.grid(3)
    nx, ny, nz = out.shape
    if x < nx and y < ny and z < nz:
        out[x, y, z] = a[x, y, z] + x * 10000 + y * 100 + z
