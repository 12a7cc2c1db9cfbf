@simt.kernel
def k_local_zeroed(out):
    i = cuda.grid(1)
    loc = cuda.local.array((3, 5), np.int64)
    acc = 0
    for r in range(3):
        for c in range(5):
            acc += loc[r, c]
    if i < out.size:
        out[i] = acc
    for r in range(3):
        loc[r, r] = i + 1  # dirty the thread's array: later threads must not see it
