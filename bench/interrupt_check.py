"""The cost of Ctrl-C's cancellation check in CPU kernels.

Generated CPU code reads a flag at the top of every `while` loop's body
except counted ones (`while i < n: ...; i += 1`; docs/architecture.md,
"Interrupting kernels"), and the backend counts the running kernels around
each launch. This times while-loop kernels: one that keeps the check
(Collatz steps, data-dependent), counted ones (a latency-bound scalar loop,
and loops the compiler vectorizes, which a check would prevent), and the
warm launch of an empty kernel. Run it with two builds
(the one to measure, and one without the check, e.g. the main checkout's) and
compare: `python3 bench/interrupt_check.py` prints milliseconds per launch,
the median of 15 timed launches after a warm one (µs for the empty launch,
the median of batches of 2000).
"""

import statistics
import time

import numpy as np

import simt


@simt.kernel
def lcg(out, n):
    i = simt.grid(1)
    if i < out.shape[0]:
        x = i
        k = 0
        while k < n:
            x = (x * 1103515245 + 12345) % 2147483648
            k += 1
        out[i] = x


@simt.kernel
def collatz(out, start):
    # A loop no compiler can count: it keeps the check.
    i = simt.grid(1)
    if i < out.shape[0]:
        v = start + i
        steps = 0
        while v != 1:
            if v % 2 == 0:
                v = v // 2
            else:
                v = 3 * v + 1
            steps += 1
        out[i] = steps


@simt.kernel
def row_sums(a, out):
    i = simt.grid(1)
    if i < a.shape[0]:
        acc = a[i, 0] - a[i, 0]
        j = 0
        while j < a.shape[1]:
            acc += a[i, j]
            j += 1
        out[i] = acc


@simt.kernel
def empty():
    pass


def median_ms(launch, repeats=15):
    launch()
    simt.get_device("cpu").synchronize()
    times = []
    for _ in range(repeats):
        start = time.perf_counter()
        launch()
        times.append(time.perf_counter() - start)
    return statistics.median(times) * 1e3


def main():
    print("simt from", simt.__file__)
    with simt.use_device("cpu"):
        out = simt.zeros(4096, dtype=np.int64)
        out1m = simt.zeros(1 << 20, dtype=np.int64)
        print(f"lcg while loop, 4096 threads x 20000 steps: {median_ms(lambda: lcg[16, 256](out, 20000)):8.3f} ms")
        print(f"collatz while loop, 1M threads:            {median_ms(lambda: collatz[4096, 256](out1m, 1)):8.3f} ms")
        a = simt.asarray(np.random.default_rng(0).random((2048, 4096), dtype=np.float32))
        sums = simt.zeros(2048, dtype=np.float32)
        print(f"row sums while loop, 2048 x 4096 float32:   {median_ms(lambda: row_sums[8, 256](a, sums)):8.3f} ms")
        # Integer sums may be reordered, so this loop vectorizes without the check.
        ai = simt.asarray(np.random.default_rng(0).integers(0, 100, (2048, 4096), dtype=np.int32))
        isums = simt.zeros(2048, dtype=np.int32)
        print(f"row sums while loop, 2048 x 4096 int32:     {median_ms(lambda: row_sums[8, 256](ai, isums)):8.3f} ms")
        empty[1, 1]()
        batches = []
        for _ in range(7):
            start = time.perf_counter()
            for _ in range(2000):
                empty[1, 1]()
            batches.append((time.perf_counter() - start) / 2000)
        print(f"empty kernel, warm launch:                  {statistics.median(batches) * 1e6:8.3f} us")


if __name__ == "__main__":
    main()
