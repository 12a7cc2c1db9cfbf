"""The price of checked kernels: boundscheck=True and debug=True against the same kernel
unchecked, on each device, in one run; on the cpu device also racecheck=True (the race and
barrier checker, which runs only there).

Kernels:
  saxpy      out[i] = a * x[i] + y[i], float32, 1-D (one check per access)
  stencil    5-point average of a float32 grid, 2-D indices (two checks per access)
  rowsum     out[i] = sum of row i of a float32 matrix, an inner loop over the row
             (the loop also tests the record each pass)
  transpose  through a 32x33 shared tile (shared-memory accesses checked too)

Time: the median wall time of one launch and the wait for its end (a checked launch
waits for its kernel anyway: it reads the record), after a warm-up, the variants
taking turns sample by sample. `spread` is the largest interquartile range over the
median of the variants, the noise a ratio must beat. Each variant's output is checked
against NumPy first. A race-checked launch runs its blocks one after another on one thread
(the plain one on every core) and keeps a 32-byte shadow cell per 4 bytes touched: on the
cpu device the full sizes need about 2 GiB of shadow, so run it with --quick there.

    python3 bench/checks.py [--device ID ...] [--quick]
"""

import argparse
import statistics
import sys
import time

import numpy as np

import simt

TILE = 32


def saxpy(a, x, y, out):
    i = simt.grid(1)
    if i < x.shape[0]:
        out[i] = a * x[i] + y[i]


def stencil(src, dst):
    i, j = simt.grid(2)
    if 0 < i < src.shape[0] - 1 and 0 < j < src.shape[1] - 1:
        dst[i, j] = 0.2 * (src[i, j] + src[i - 1, j] + src[i + 1, j] + src[i, j - 1]
                           + src[i, j + 1])


def rowsum(m, out):
    i = simt.grid(1)
    if i < m.shape[0]:
        total = 0.0
        j = 0
        while j < m.shape[1]:
            total += m[i, j]
            j += 1
        out[i] = total


def transpose(src, dst):
    tile = simt.shared.array((TILE, TILE + 1), np.float32)
    tx = simt.threadIdx.x
    ty = simt.threadIdx.y
    x = simt.blockIdx.x * TILE + tx
    y = simt.blockIdx.y * TILE + ty
    if y < src.shape[0] and x < src.shape[1]:
        tile[ty, tx] = src[y, x]
    simt.syncthreads()
    x = simt.blockIdx.y * TILE + tx
    y = simt.blockIdx.x * TILE + ty
    if y < dst.shape[0] and x < dst.shape[1]:
        dst[y, x] = tile[tx, ty]


def cases(device, quick, rng):
    n = (1 << 20) if quick else (1 << 24)
    side = 1024 if quick else 4096
    rows = 4096 if quick else 16384
    x = rng.standard_normal(n).astype(np.float32)
    y = rng.standard_normal(n).astype(np.float32)
    grid2 = rng.standard_normal((side, side)).astype(np.float32)
    m = rng.standard_normal((rows, 256)).astype(np.float32)

    d = {"x": simt.to_device(x, device=device), "y": simt.to_device(y, device=device),
         "out": simt.zeros(n, np.float32, device=device),
         "grid": simt.to_device(grid2, device=device),
         "out2": simt.zeros((side, side), np.float32, device=device),
         "m": simt.to_device(m, device=device),
         "rows": simt.zeros(rows, np.float32, device=device)}

    def expected_stencil():
        e = np.zeros_like(grid2)
        e[1:-1, 1:-1] = 0.2 * (grid2[1:-1, 1:-1] + grid2[:-2, 1:-1] + grid2[2:, 1:-1]
                               + grid2[1:-1, :-2] + grid2[1:-1, 2:])
        return e

    blocks2 = ((side + 15) // 16, (side + 15) // 16)
    tiles = ((side + TILE - 1) // TILE, (side + TILE - 1) // TILE)
    return [
        ("saxpy", saxpy,
         lambda k: k[(n + 255) // 256, 256](np.float32(2.0), d["x"], d["y"], d["out"]),
         lambda: (d["out"], 2.0 * x + y, ...)),
        ("stencil", stencil, lambda k: k[blocks2, (16, 16)](d["grid"], d["out2"]),
         lambda: (d["out2"], expected_stencil(), (slice(1, -1), slice(1, -1)))),
        ("rowsum", rowsum, lambda k: k[(rows + 127) // 128, 128](d["m"], d["rows"]),
         lambda: (d["rows"], m.sum(axis=1, dtype=np.float64), ...)),
        ("transpose", transpose, lambda k: k[tiles, (TILE, TILE)](d["grid"], d["out2"]),
         lambda: (d["out2"], grid2.T, ...)),
    ]


def run_device(device, quick, samples):
    rng = np.random.default_rng(0)
    print(f"\n{device.id} ({device.name})")
    race = device.id == "cpu"
    print(f"{'kernel':10} {'plain ms':>10} {'boundscheck':>12} {'debug':>10} "
          f"{'bounds/plain':>13} {'debug/plain':>12}" + (f" {'race ms':>10} {'race/plain':>11}"
                                                         if race else "") + f" {'spread':>7}")
    for name, function, launch, check in cases(device, quick, rng):
        kernels = {"plain": simt.kernel(function),
                   "boundscheck": simt.kernel(boundscheck=True)(function),
                   "debug": simt.kernel(debug=True)(function)}
        if race:
            kernels["racecheck"] = simt.kernel(racecheck=True)(function)
        times = {k: [] for k in kernels}
        for variant, kernel in kernels.items():
            got, want, region = check()
            got[...] = np.nan
            launch(kernel)
            device.synchronize()
            if not np.allclose(got.get()[region], want[region], rtol=1e-4, atol=1e-3):
                print(f"  {name} {variant}: WRONG RESULT")
        for _ in range(samples):
            for variant, kernel in kernels.items():
                start = time.perf_counter()
                launch(kernel)
                device.synchronize()
                times[variant].append((time.perf_counter() - start) * 1e3)
        med = {k: statistics.median(v) for k, v in times.items()}
        spread = max((np.percentile(v, 75) - np.percentile(v, 25)) / statistics.median(v)
                     for v in times.values())
        race_columns = (f" {med['racecheck']:10.3f} {med['racecheck'] / med['plain']:11.1f}"
                        if race else "")
        print(f"{name:10} {med['plain']:10.3f} {med['boundscheck']:12.3f} {med['debug']:10.3f} "
              f"{med['boundscheck'] / med['plain']:13.2f} {med['debug'] / med['plain']:12.2f}"
              f"{race_columns} {spread:7.2f}")


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--device", action="append", help="device id (default: every device)")
    parser.add_argument("--quick", action="store_true", help="smaller inputs, fewer samples")
    options = parser.parse_args()
    devices = [simt.get_device(i) for i in options.device] if options.device else simt.devices()
    samples = 7 if options.quick else 21
    for device in devices:
        try:
            run_device(device, options.quick, samples)
        except Exception as error:  # report and go on with the next device
            print(f"{device.id}: {type(error).__name__}: {error}", file=sys.stderr)
    return 0


if __name__ == "__main__":
    sys.exit(main())
