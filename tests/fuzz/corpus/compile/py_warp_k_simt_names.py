@simt.kernel
def k_simt_names(x, lane, nxt, bits):
    i = simt.grid(1)
    lane[i] = simt.laneid + simt.warpsize * 0
    nxt[i] = simt.shfl_down_sync(FULL, x[i], 1)
    bits[i] = simt.ballot_sync(FULL, x[i] > 0)
