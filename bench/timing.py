"""How the benchmarks time things: host costs of warm calls, CUDA-event device times."""

import statistics
import time


def host_us(fn, rounds=15, inner=5000, sync=None):
    """Median over `rounds` of the host time per call of `inner` warm calls, in µs
    (`sync`, when given, runs after each round, outside the timed region)."""
    for _ in range(inner):
        fn()
    samples = []
    for _ in range(rounds):
        start = time.perf_counter()
        for _ in range(inner):
            fn()
        samples.append((time.perf_counter() - start) / inner)
        if sync:
            sync()
    return statistics.median(samples) * 1e6


def event_ms(cp, fn, repeats=20):
    """Median device time of fn() between two CUDA events (CuPy's), after a warm-up, in ms."""
    fn()
    cp.cuda.Device().synchronize()
    start, stop = cp.cuda.Event(), cp.cuda.Event()
    samples = []
    for _ in range(repeats):
        start.record()
        fn()
        stop.record()
        stop.synchronize()
        samples.append(cp.cuda.get_elapsed_time(start, stop))
    return statistics.median(samples)
