"""Host costs that decide how simt feels before and between kernels, on this machine.

Run: python3 bench/launch_overhead.py [--section launch|start|graph|all] [--devices cpu,...]

launch  a warm kernel launch on the CPU backend against Numba's @njit call: the median over
        repeated timing rounds of many launches each.
start   fresh processes with a warm kernel cache (bench/warm_start_child.py): import simt,
        the first device use (the backend starting and the first allocation) and the first
        launch (+ synchronize), medians; for each device named and for the device simt
        chooses itself ("default"); CuPy's beside simt's on CUDA devices.
graph   a sequence of 100 small kernels (64 elements each) replayed from a graph
        (simt.graph(), g.launch()) against the same launches in a Python loop, per kernel,
        rounds of the whole sequence then a synchronize, on each device.
"""

import argparse
import json
import os
import subprocess
import sys
import tempfile
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


def launch_rows():
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


CHILD = os.path.join(os.path.dirname(os.path.abspath(__file__)), "warm_start_child.py")


def _child_medians(side, device_id, env, runs, keys):
    """The medians of `keys` over `runs` fresh processes of the start child for `side` on
    `device_id`, after one that fills the cache (those before a failing process, which is
    said); None where none ran."""
    results = []
    for run in range(runs + 1):
        out = subprocess.run([sys.executable, CHILD, side, device_id], capture_output=True,
                             text=True, env=env)
        if out.returncode != 0:
            print(f"{side + ' ' + device_id:<34} failed: "
                  f"{out.stderr.strip().splitlines()[-1:]}")
            break
        if run:
            results.append(json.loads(out.stdout.strip().splitlines()[-1]))
    if not results:
        return None
    return {k: statistics.median(r[k] for r in results) for k in keys}


def start_rows(device_ids, runs=7):
    """Fresh processes, warm kernel cache: medians of import / first device use / first
    launch, per device id; on CUDA devices CuPy's (RawKernel and ElementwiseKernel, its
    own disk cache warm too) in the same run, and simt's total as a fraction of theirs
    (issue 41: <= 0.8x, and the first device use <= CuPy's)."""
    print(f"\n{'fresh process, warm cache (ms)':<34} {'import':>8} {'device':>8} "
          f"{'1st launch':>11} {'total':>8}")
    keys = ("import_ms", "device_ms", "first_ms")
    with tempfile.TemporaryDirectory(prefix="simt-start-") as cache:
        env = dict(os.environ, SIMT_CACHE_DIR=cache, POCL_CACHE_DIR=os.path.join(cache, "pocl"),
                   CUPY_CACHE_DIR=os.path.join(cache, "cupy"))
        for device_id in device_ids:
            sides = ["simt"]
            if device_id.startswith("cuda"):
                sides += ["cupy-raw", "cupy-elementwise"]
            medians = {}
            for side in sides:
                med = _child_medians(side, device_id, env, runs, keys)
                if med is None:
                    continue
                medians[side] = med
                print(f"{side + ' ' + device_id:<34} {med['import_ms']:8.1f} "
                      f"{med['device_ms']:8.1f} {med['first_ms']:11.1f} "
                      f"{sum(med.values()):8.1f}", flush=True)
            for peer in sides[1:]:
                if "simt" in medians and peer in medians:
                    mine, theirs = medians["simt"], medians[peer]
                    print(f"  simt / {peer}: total {sum(mine.values()) / sum(theirs.values()):.2f}x"
                          f" (target <= 0.8), first device use "
                          f"{mine['device_ms'] / theirs['device_ms']:.2f}x (target <= 1)")


@simt.kernel
def scale_by(y, s):
    i = simt.grid(1)
    if i < y.shape[0]:
        y[i] = y[i] * s


def graph_rows(device_ids, kernels=100, repeats=15):
    """Per kernel: a Python loop of `kernels` launches vs one replay of a graph of them."""
    print(f"\n{'sequence of ' + str(kernels) + ' small kernels, us per kernel':<44} "
          f"{'python loop':>12} {'graph':>8} {'ratio':>7}")
    for device_id in device_ids:
        device = simt.get_device(device_id)
        y = simt.to_device(np.ones(64, np.float32), device=device)
        launch = scale_by[1, 64]
        factors = [np.float32(1.001), np.float32(1 / 1.001)]

        def python_loop():
            for k in range(kernels):
                launch(y, factors[k & 1])
            device.synchronize()

        with simt.graph(device) as g:
            for k in range(kernels):
                launch(y, factors[k & 1])

        def replay():
            g.launch()
            device.synchronize()

        loop = per_call(python_loop, repeats, 50) / kernels
        graph = per_call(replay, repeats, 50) / kernels
        print(f"{device_id:<44} {loop * 1e6:12.3f} {graph * 1e6:8.3f} {loop / graph:7.2f}x")


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--section", choices=("launch", "start", "graph", "all"), default="all")
    parser.add_argument("--devices", default=None,
                        help="comma-separated device ids (default: every device)")
    args = parser.parse_args()
    ids = args.devices.split(",") if args.devices else [d.id for d in simt.devices()]
    if args.section in ("launch", "all"):
        if any(d.id == "cpu" for d in simt.devices()):
            launch_rows()
        else:  # builds without LLVM (the GPU machines') have no cpu device
            print("(launch rows skipped: this build has no cpu device; bench/gpu.py has the "
                  "GPU's)")
    if args.section in ("start", "all"):
        start_rows(ids + ["default"])
    if args.section in ("graph", "all"):
        graph_rows(ids)


if __name__ == "__main__":
    main()
