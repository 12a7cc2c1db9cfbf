@simt.kernel
def k_cas_counter(counter, old_out):
    i = cuda.grid(1)
    if i < old_out.size:
        old = counter[0]
        while True:
            prev = cuda.atomic.cas(counter, 0, old, old + 1)
            if prev == old:
                break
            old = prev
        old_out[i] = old
