# signature: float32[:, :], float32[::1]
# signature: float64[::1, :], float64[::1]
def row_sums(m, out):
    """Sums each row, with every loop form the language has."""
    row = cuda.grid(1)
    rows, cols = m.shape
    if row >= rows:
        return
    acc = 0.0
    for j in range(cols):
        acc += m[row, j]
    for j in range(cols - 1, -1, -1):
        acc -= m[row, j] * 0
    k = 0
    while True:
        k += 1
        if k > 3:
            break
        if k == 2:
            continue
    for w in (1, 2.5, 3):
        if w > 2:
            break
        acc += w * 0
    r = m[row]
    out[row] = acc + r[0] - m[row, 0] + k - 4
