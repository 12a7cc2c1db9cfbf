@simt.kernel
def k_add_into_view(view, idx):
    i = cuda.grid(1)
    if i < idx.size:
        cuda.atomic.add(view, idx[i], 1)
