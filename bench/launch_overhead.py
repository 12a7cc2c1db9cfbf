"""Host cost of a warm kernel launch on the CPU backend, against Numba's @njit call.

Run: python3 bench/launch_overhead.py
Prints the median over repeated timing rounds of many launches each.
"""

import statistics
import time

import numpy as np

import simt


@simt.kernel
def empty0():
    pass


@simt.kernel
def empty4(a, b, c, d):
    pass


def per_call(fn, repeats=20, inner=20000):
    for _ in range(inner):  # warm-up
        fn()
    rounds = []
    for _ in range(repeats):
        start = time.perf_counter()
        for _ in range(inner):
            fn()
        rounds.append((time.perf_counter() - start) / inner)
    return statistics.median(rounds)


def main():
    x = np.zeros(16, np.float32)
    y = simt.to_device(x, device="cpu")
    with simt.use_device("cpu"):
        launch0 = empty0[1, 1]
        launch4 = empty4[1, 1]
        rows = [
            ("simt, 0 args", per_call(lambda: launch0())),
            ("simt, 4 args (ndarray, Array, float, int)", per_call(lambda: launch4(x, y, 1.0, 2))),
            ("simt, 4 args incl. kernel[1, 1]", per_call(lambda: empty4[1, 1](x, y, 1.0, 2))),
        ]
    try:
        import numba

        @numba.njit
        def nb0():
            pass

        @numba.njit
        def nb4(a, b, c, d):
            pass

        nb0()
        nb4(x, x, 1.0, 2)
        rows.append(("numba @njit call, 0 args", per_call(lambda: nb0())))
        rows.append(("numba @njit call, 4 args", per_call(lambda: nb4(x, x, 1.0, 2))))
    except ImportError:
        rows.append(("numba (not installed)", float("nan")))
    print(f"{'launch':<44} {'us per call':>12}")
    for name, seconds in rows:
        print(f"{name:<44} {seconds * 1e6:12.3f}")


if __name__ == "__main__":
    main()
