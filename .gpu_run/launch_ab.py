"""Warm launch host cost of simt on cuda:0 (what bench/gpu.py's 'warm launch' rows time),
one configuration per process; run alternately for the baseline and this tree."""
import statistics
import sys
import time

import numpy as np

import simt


@simt.kernel
def empty0():
    pass


@simt.kernel
def empty4(a, b, c, d):
    pass


def per_call(fn, rounds=31, inner=5000):
    for _ in range(inner):
        fn()
    samples = []
    for _ in range(rounds):
        start = time.perf_counter()
        for _ in range(inner):
            fn()
        samples.append((time.perf_counter() - start) / inner)
    return statistics.median(samples) * 1e6


x = simt.to_device(np.zeros(16, np.float32))
y = simt.to_device(np.zeros(16, np.float32))
l0, l4 = empty0[1, 1], empty4[1, 1]
rows = [per_call(lambda: l0()), per_call(lambda: l4(x, y, 1.0, 2)),
        per_call(lambda: empty4[1, 1](x, y, 1.0, 2))]
simt.synchronize() if hasattr(simt, "synchronize") else None
print(sys.argv[1], " ".join(f"{r:.3f}" for r in rows))
