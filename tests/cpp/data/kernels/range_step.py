# signature: float32[::1], float32[::1], int64, int64
# signature: float64[:], float64[:], int32, int32
@simt.kernel
def range_step(x, out, start, step):
    """range() with a run-time step: plain loops for each sign, the counted form else."""
    for i in range(start + cuda.grid(1), x.shape[0], step):
        out[i] = 2 * x[i] + 1
        for j in range(0, i, step):  # nested: the inner loop is the one copied
            if j == 3:
                continue
            out[i] += x[j] * 0
