"""One Numba-CUDA program, run by numba-cuda and by simt (`from simt import cuda`), each in
fresh processes of the same run: the first call (import, device start-up, compile,
launch), the warm launch cost, and kernel times by CUDA events.

The program (PROGRAM below) is written as Numba's documentation writes kernels: a
vector add, the shared-memory tiled matmul of Numba's docs (`fast_matmul`), and an
empty kernel for the launch cost. Its only line that differs between the two runs is
the import. simt runs twice: with an empty disk cache (compiles, as numba-cuda does in
every process without cache=True) and with the cache the first run filled.

    python3 bench/numba_port.py [--device cuda:0] [--repeat 3]

Each figure is the median over --repeat fresh processes; kernel times are medians of 20
event-timed launches after a warm-up, launch cost the host time per launch of 2000
back-to-back launches of the empty kernel (then one synchronize). Results are checked
against NumPy in each process. numba-cuda needs `np.row_stack` under NumPy 2.5; the
program sets it before importing numba.
"""

import argparse
import json
import os
import statistics
import subprocess
import sys
import tempfile

PROGRAM = r'''
import json, sys, time
T0 = time.perf_counter()
import numpy as np
if not hasattr(np, "row_stack"):
    np.row_stack = np.vstack  # numba-cuda under NumPy 2.5
IMPORT
import math

TPB = 16

@cuda.jit
def add(x, y, out):
    i = cuda.grid(1)
    if i < out.size:
        out[i] = x[i] + y[i]

@cuda.jit
def empty(x):
    pass

@cuda.jit
def fast_matmul(A, B, C):
    sA = cuda.shared.array(shape=(TPB, TPB), dtype=np.float32)
    sB = cuda.shared.array(shape=(TPB, TPB), dtype=np.float32)
    x, y = cuda.grid(2)
    tx = cuda.threadIdx.x
    ty = cuda.threadIdx.y
    bpg = cuda.gridDim.x
    tmp = np.float32(0.)
    for i in range(bpg):
        sA[ty, tx] = 0
        sB[ty, tx] = 0
        if y < A.shape[0] and (tx + i * TPB) < A.shape[1]:
            sA[ty, tx] = A[y, tx + i * TPB]
        if x < B.shape[1] and (ty + i * TPB) < B.shape[0]:
            sB[ty, tx] = B[ty + i * TPB, x]
        cuda.syncthreads()
        for j in range(TPB):
            tmp += sA[ty, j] * sB[j, tx]
        cuda.syncthreads()
    if y < C.shape[0] and x < C.shape[1]:
        C[y, x] = tmp

rng = np.random.default_rng(0)
n = 1 << 24
x = cuda.to_device(rng.standard_normal(n).astype(np.float32))
y = cuda.to_device(rng.standard_normal(n).astype(np.float32))
out = cuda.device_array(n, np.float32)
add[(n + 255) // 256, 256](x, y, out)
cuda.synchronize()
first_call = time.perf_counter() - T0
assert np.array_equal(out.copy_to_host(), x.copy_to_host() + y.copy_to_host())

def event_ms(launch, repeats=20):
    launch()
    cuda.synchronize()
    times = []
    for _ in range(repeats):
        start, stop = cuda.event(timing=True), cuda.event(timing=True)
        start.record()
        launch()
        stop.record()
        stop.synchronize()
        times.append(cuda.event_elapsed_time(start, stop))
    return sorted(times)[len(times) // 2]

m = 1024
A = rng.standard_normal((m, m)).astype(np.float32)
B = rng.standard_normal((m, m)).astype(np.float32)
dA, dB, dC = cuda.to_device(A), cuda.to_device(B), cuda.device_array((m, m), np.float32)
grid = ((m + TPB - 1) // TPB, (m + TPB - 1) // TPB)
matmul_first = time.perf_counter()
fast_matmul[grid, (TPB, TPB)](dA, dB, dC)
cuda.synchronize()
matmul_first = time.perf_counter() - matmul_first
assert np.allclose(dC.copy_to_host(), A @ B, rtol=1e-3, atol=1e-2)
result = {
    "first_call_s": first_call,
    "matmul_first_call_s": matmul_first,
    "add_ms": event_ms(lambda: add[(n + 255) // 256, 256](x, y, out)),
    "matmul_ms": event_ms(lambda: fast_matmul[grid, (TPB, TPB)](dA, dB, dC)),
}
tiny = cuda.device_array(1, np.float32)
empty[1, 1](tiny)
cuda.synchronize()
start = time.perf_counter()
for _ in range(2000):
    empty[1, 1](tiny)
result["launch_us"] = (time.perf_counter() - start) / 2000 * 1e6
cuda.synchronize()
print("RESULT " + json.dumps(result))
'''

IMPORTS = {"numba-cuda": "from numba import cuda", "simt": "from simt import cuda"}


def run_side(side, env, directory):
    path = os.path.join(directory, f"program_{side.replace('-', '_')}.py")
    with open(path, "w") as f:
        f.write(PROGRAM.replace("IMPORT", IMPORTS[side.split(" ")[0]]))
    done = subprocess.run([sys.executable, path], capture_output=True, text=True, env=env,
                          timeout=600)
    for line in done.stdout.splitlines():
        if line.startswith("RESULT "):
            return json.loads(line[len("RESULT "):])
    raise RuntimeError(f"{side} failed:\n{done.stdout[-2000:]}\n{done.stderr[-3000:]}")


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--device", default="cuda:0", help="simt's device (SIMT_DEVICE)")
    parser.add_argument("--repeat", type=int, default=3, help="fresh processes per side")
    options = parser.parse_args()
    results = {}
    with tempfile.TemporaryDirectory() as directory:
        cache = os.path.join(directory, "simt-cache")
        base = dict(os.environ, SIMT_DEVICE=options.device)
        sides = [("numba-cuda", base),
                 ("simt (empty cache)", dict(base, SIMT_CACHE_DIR=cache)),
                 ("simt (warm cache)", dict(base, SIMT_CACHE_DIR=cache))]
        for _ in range(options.repeat):
            for side, env in sides:
                if side == "simt (empty cache)":
                    subprocess.run(["rm", "-rf", cache], check=True)
                try:
                    result = run_side(side, env, directory)
                except Exception as error:  # report the side and go on
                    print(f"{side}: {str(error)[-600:]}", file=sys.stderr)
                    continue
                results.setdefault(side, []).append(result)
    keys = [("first_call_s", "first call, s", 1), ("matmul_first_call_s", "matmul first call, s", 1),
            ("launch_us", "warm launch, µs", 1), ("add_ms", "add 2^24, ms", 1),
            ("matmul_ms", "matmul 1024^2, ms", 1)]
    print(f"{'':26}" + "".join(f"{side:>22}" for side in results))
    for key, label, _ in keys:
        row = f"{label:26}"
        for side, runs in results.items():
            row += f"{statistics.median(r[key] for r in runs):22.4f}"
        print(row)
    if "numba-cuda" in results:
        numba = {k: statistics.median(r[k] for r in results["numba-cuda"]) for k, _, _ in keys}
        for side, runs in results.items():
            if side == "numba-cuda":
                continue
            ratios = ", ".join(
                f"{label.split(',')[0]} {numba[k] / statistics.median(r[k] for r in runs):.2f}x"
                for k, label, _ in keys)
            print(f"numba-cuda / {side}: {ratios}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
