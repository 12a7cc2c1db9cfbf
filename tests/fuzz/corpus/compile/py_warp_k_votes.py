@simt.kernel
def k_votes(p, x, ballot, ballot_cmp, all_, any_):
    i = cuda.grid(1)
    ballot[i] = cuda.ballot_sync(FULL, p[i])
    ballot_cmp[i] = cuda.ballot_sync(FULL, x[i] > 0.0)
    all_[i] = cuda.all_sync(FULL, p[i])
    any_[i] = cuda.any_sync(FULL, p[i])
