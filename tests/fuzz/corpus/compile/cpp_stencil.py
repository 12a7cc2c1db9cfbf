# signature: float32[:, ::1], float32[:, ::1], float32
# signature: float64[:, :], float64[:, :], float64
def heat_step(u, out, alpha):
    i, j = cuda.grid(2)
    n, m = u.shape
    if 0 < i < n - 1 and 0 < j < m - 1:
        lap = u[i - 1, j] + u[i + 1, j] + u[i, j - 1] + u[i, j + 1] - 4 * u[i, j]
        out[i, j] = u[i, j] + alpha * lap
    elif i < n and j < m:
        out[i, j] = u[i, j]
