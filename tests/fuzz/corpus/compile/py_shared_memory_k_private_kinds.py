@simt.kernel
def k_private_kinds(x, m, out_f, out_c, out_h, out_t, out_row, out_b):
    sh = cuda.shared.array(BLOCK, np.float64)
    tid = cuda.threadIdx.x
    i = cuda.grid(1)
    pair = (x[i], i)                       # a tuple
    c = complex(x[i], -x[i])               # complex128
    h = np.float16(x[i])                   # float16
    flag = x[i] > 0                        # bool
    row = m[i % m.shape[0]]                # an array view
    sh[tid] = x[i] * 2
    cuda.syncthreads()
    f = sh[(tid + 5) % cuda.blockDim.x]
    cuda.syncthreads()
    sh[tid] = f
    cuda.syncthreads()
    out_f[i] = sh[tid] + pair[0]
    out_c[i] = c * 2
    out_h[i] = h
    out_t[i] = pair[1]
    out_row[i] = row[0] + row[row.shape[0] - 1]
    out_b[i] = flag
