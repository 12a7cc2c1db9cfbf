@simt.kernel
def k_ticket(counter, old):
    i = cuda.grid(1)
    if i < old.size:
        old[i] = cuda.atomic.add(counter, 0, 1)
