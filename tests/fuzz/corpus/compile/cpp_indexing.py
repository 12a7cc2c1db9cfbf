# signature: float32[:, ::1], int64[::1], uint32, float16
# signature: float64[::1, :], int64[:], uint32, float16
def indexing(m, idx, mask, h):
    """Negative indices, element updates, annotations, casts and continuations."""
    i = cuda.grid(1)
    rows, cols = m.shape
    if i >= rows:
        return
    acc: np.float32 = 0
    m[i, -1] += 1.5  # the last column, as in Python
    m[i, 0] -= m[-1 - i, cols - 1] * 2
    total = m[i, 0] + \
        m[i, cols // 2]  # a continued line
    bits = (mask >> 3) & 0xFF | (mask << 29)
    if 0 <= i < len(idx) and not (bits == 0):
        idx[i] = int(total) + (idx[-1] if i > 0 else -idx[0]) + bits % 7
    k = cols - 1
    while k >= 0 and k > cols - 4:
        acc += m[i, k] * h
        k -= 1
    idx[i % len(idx)] += round(acc) + (True + True)
