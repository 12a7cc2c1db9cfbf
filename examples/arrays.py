"""Arrays and a kernel together: standardize the columns of a matrix with array
operations, then count, per row, the entries beyond two standard deviations with a
kernel; checked against NumPy."""

import time

import numpy as np

import simt


@simt.kernel
def count_outliers(z, limit, counts):
    row = simt.grid(1)
    if row < z.shape[0]:
        n = 0
        j = 0
        while j < z.shape[1]:
            if abs(z[row, j]) > limit:
                n += 1
            j += 1
        counts[row] = n


def run(rows=4096, columns=256, device=None):
    """Returns (seconds, whether simt's results equal NumPy's)."""
    rng = np.random.default_rng()
    x = rng.standard_normal((rows, columns)).astype(np.float32) * 3 + 1
    device = simt.get_device(device)
    start = time.perf_counter()
    a = simt.asarray(x, device=device)
    z = (a - a.mean(axis=0)) / a.std(axis=0)  # array operations, on the device
    counts = simt.zeros(rows, np.int32, device)
    count_outliers[(rows + 127) // 128, 128](z, np.float32(2.0), counts)  # a kernel
    total = int(simt.sum(counts))
    seconds = time.perf_counter() - start
    zh = (x - x.mean(axis=0)) / x.std(axis=0)
    expected = (np.abs(zh) > 2.0).sum(axis=1)
    # Values within rounding of the limit may land on either side of it.
    near = (np.abs(np.abs(zh) - 2.0) < 1e-4).sum(axis=1)
    ok = bool(np.all(np.abs(counts.get() - expected) <= near)) and \
        abs(total - int(expected.sum())) <= int(near.sum())
    return seconds, ok


if __name__ == "__main__":
    seconds, ok = run()
    print(f"arrays + kernel on {simt.current_device().id}: {seconds * 1e3:.1f} ms, "
          f"{'matches NumPy' if ok else 'MISMATCH'}")
