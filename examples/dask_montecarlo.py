"""Monte Carlo estimate of pi over the chunks of a Dask array, on a local dask.distributed
cluster of worker processes, each worker sampling its chunks with a simt kernel on its own
device; the count of hits is checked against NumPy's, sample for sample.

Each sample is a point of the unit square drawn from a counter-based hash of (seed, its
index): any worker draws any chunk's points without a shared generator, and NumPy draws
the very same ones for the check. The points never leave the device: each chunk's hits
are counted there, and only the counts come to the host to be added.

    python examples/dask_montecarlo.py [--samples N] [--chunk N] [--workers 2]
                                       [--devices cpu[,opencl:0,cuda:0,...]]

Worker k uses device k of --devices (round robin): ``cpu`` on any machine, one GPU per
worker with ``--devices cuda:0,cuda:1``.
"""

import argparse
import sys
import time

import dask.array as da
import numpy as np

import simt
import simt.dask  # noqa: F401  (simt arrays as Dask chunks, also if Dask came second)

# splitmix64's constants: the hash that turns (seed, index) into 64 random bits.
GOLDEN = np.uint64(0x9E3779B97F4A7C15)
MIX1 = np.uint64(0xBF58476D1CE4E5B9)
MIX2 = np.uint64(0x94D049BB133111EB)
BITS = 24  # per coordinate: integers below 2**24, so x*x + y*y is exact in int64


@simt.kernel
def sample_hits(seed, first, hits):
    # hits[k] = 1 when sample first + k falls inside the quarter circle, else 0.
    k = simt.grid(1)
    if k < hits.shape[0]:
        z = simt.uint64(seed) + simt.uint64(first + k) * GOLDEN
        z = (z ^ (z >> simt.uint64(30))) * MIX1
        z = (z ^ (z >> simt.uint64(27))) * MIX2
        z = z ^ (z >> simt.uint64(31))
        x = simt.int64(z >> simt.uint64(64 - BITS))
        y = simt.int64((z >> simt.uint64(64 - 2 * BITS)) & simt.uint64((1 << BITS) - 1))
        hits[k] = 1 if x * x + y * y < (1 << (2 * BITS)) else 0


def numpy_hits(seed, first, count):
    """The same samples drawn by NumPy: 1 for a hit, else 0."""
    with np.errstate(over="ignore"):
        z = np.uint64(seed) + np.arange(first, first + count, dtype=np.uint64) * GOLDEN
        z = (z ^ (z >> np.uint64(30))) * MIX1
        z = (z ^ (z >> np.uint64(27))) * MIX2
        z = z ^ (z >> np.uint64(31))
    x = (z >> np.uint64(64 - BITS)).astype(np.int64)
    y = ((z >> np.uint64(64 - 2 * BITS)) & np.uint64((1 << BITS) - 1)).astype(np.int64)
    return (x * x + y * y < (1 << (2 * BITS))).astype(np.int8)


def _worker_device(devices):
    # A worker's device: its place among the cluster's workers, round robin over
    # `devices`; the calling process's current device outside a cluster.
    try:
        from distributed import get_worker

        worker = get_worker()
    except (ImportError, ValueError):
        return simt.current_device()
    return simt.get_device(devices[int(worker.name) % len(devices)])


def _chunk_hits(seed, devices, block_info=None):
    first, stop = block_info[None]["array-location"][0]
    hits = simt.empty(stop - first, np.int8, device=_worker_device(devices))
    threads = 256
    sample_hits[(hits.size + threads - 1) // threads, threads](seed, first, hits)
    return hits


def hits(samples, chunk, seed, devices=("cpu",)):
    """A Dask array of `samples` hits (1 or 0), its chunks simt arrays made by the kernel
    on the workers' devices."""
    chunks = (tuple(min(chunk, samples - start) for start in range(0, samples, chunk)),)
    return da.map_blocks(_chunk_hits, seed, list(devices), chunks=chunks, dtype=np.int8,
                         meta=simt.empty((0,), np.int8))


def _count(block_hits):
    # One chunk's hits summed on its device: a 1-element simt array.
    return simt.reshape(simt.sum(block_hits, dtype=np.int64), (1,))


def _to_numpy(block):
    return block.get()


def estimate(samples, chunk, seed, devices=("cpu",)):
    """(hits as a Python int, pi's estimate) computed by the current Dask scheduler.

    Each chunk's hits are counted on its device, and the counts brought to NumPy to be
    added: chunks on different devices (one GPU per worker) never meet in one simt
    operation, which would need an explicit copy.
    """
    x = hits(samples, chunk, seed, devices)
    counts = x.map_blocks(_count, chunks=((1,) * x.numblocks[0],), dtype=np.int64,
                          meta=simt.empty((0,), np.int64))
    count = int(counts.map_blocks(_to_numpy, meta=np.empty((0,), np.int64)).sum().compute())
    return count, 4.0 * count / samples


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--samples", type=int, default=20_000_000)
    parser.add_argument("--chunk", type=int, default=2_000_000)
    parser.add_argument("--workers", type=int, default=2)
    parser.add_argument("--devices", default="cpu", help="comma-separated simt device ids")
    parser.add_argument("--seed", type=int, default=None)
    args = parser.parse_args(argv)
    from distributed import Client, LocalCluster

    devices = [d.strip() for d in args.devices.split(",") if d.strip()]
    seed = args.seed if args.seed is not None else int(np.random.SeedSequence().entropy % 2**63)
    with LocalCluster(n_workers=args.workers, threads_per_worker=1, processes=True,
                      dashboard_address=None) as cluster, Client(cluster):
        start = time.perf_counter()
        count, pi = estimate(args.samples, args.chunk, seed, devices)
        seconds = time.perf_counter() - start
    expected = sum(int(numpy_hits(seed, first, min(args.chunk, args.samples - first)).sum())
                   for first in range(0, args.samples, args.chunk))
    same = count == expected
    print(f"pi ~ {pi:.6f} from {args.samples} samples in {seconds:.2f} s on {args.workers} "
          f"workers ({', '.join(devices)}); NumPy's count {'equal' if same else 'DIFFERS'} "
          f"({count} vs {expected}, seed {seed})")
    return 0 if same else 1


if __name__ == "__main__":
    sys.exit(main())
