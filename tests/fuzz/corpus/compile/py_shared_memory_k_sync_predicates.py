@simt.kernel
def k_sync_predicates(pred, x, count, all_, any_, count_gt):
    i = cuda.grid(1)
    p = pred[i]
    count[i] = cuda.syncthreads_count(p)
    all_[i] = cuda.syncthreads_and(p)
    any_[i] = cuda.syncthreads_or(p)
    count_gt[i] = cuda.syncthreads_count(x[i] > 0.5)
