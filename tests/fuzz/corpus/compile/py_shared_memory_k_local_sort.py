@simt.kernel
def k_local_sort(x, out):
    i = cuda.grid(1)
    if i < x.shape[0]:
        buf = cuda.local.array(LOCAL_N, np.float32)
        for j in range(LOCAL_N):
            buf[j] = x[i, j]
        for j in range(1, LOCAL_N):  # insertion sort
            v = buf[j]
            k = j - 1
            while k >= 0 and buf[k] > v:
                buf[k + 1] = buf[k]
                k -= 1
            buf[k + 1] = v
        for j in range(LOCAL_N):
            out[i, j] = buf[j]
