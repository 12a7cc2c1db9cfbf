@simt.kernel
def k_annotated_and_augmented(a, out):
    i = cuda.grid(1)
    if i < a.shape[0]:
        x: np.float32 = a[i]
        x += 0.1
        x *= 3
        out[i] = 1
        out[i] += x
        out[i] //= 2
        out[i] **= 2
