@simt.kernel
def k_sync_count_side_effect(counter, counts):
    i = cuda.grid(1)
    c = cuda.syncthreads_count(cuda.atomic.add(counter, 0, 1) % 3 == 0)
    counts[i] = c
