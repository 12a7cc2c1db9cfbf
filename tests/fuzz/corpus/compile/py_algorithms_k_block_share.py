@simt.kernel
def k_block_share(x, out):
    sh = cuda.shared.array(BLOCK, np.int64)
    i = cuda.grid(1)
    v = x[i] if i < x.size else 0
    total = block_sum(sh, v)
    if i < x.size:
        out[i] = v * 1000 + total % 1000
