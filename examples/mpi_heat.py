"""A 2-D heat equation (explicit Euler steps) over MPI ranks: each rank holds a slab of
rows as a simt array, exchanges its edge rows with its neighbours (halo exchange through
mpi4py, simt arrays as the buffers) and updates its rows with a simt kernel. Rank 0
gathers the slabs and checks them against a single-process run of the same kernel (equal,
bit for bit) and against NumPy.

    mpirun -n 2 python examples/mpi_heat.py [--rows N] [--columns M] [--steps S]
                                            [--device cpu|opencl:0|cuda] [--cuda-aware]

(As root, Open MPI also wants --allow-run-as-root; more ranks than cores --oversubscribe.)
``--device cuda`` gives rank r the GPU cuda:(r mod GPUs). Halos go straight from the
arrays' memory where MPI can address it (cpu arrays always; CUDA arrays with
--cuda-aware, for MPI builds with CUDA support), else through host copies.
"""

import argparse
import sys

import numpy as np
from mpi4py import MPI

import simt
import simt.mpi


@simt.kernel
def heat_rows(u, out, alpha, first_row, grid_rows):
    # One step for the rank's rows 1..n-2 of u (rows 0 and n-1 are its neighbours' edge
    # rows); u's row i is row first_row + i of the whole grid, whose edges stay as they are.
    j, i = simt.grid(2)
    n, m = u.shape
    if i < n and j < m:
        g = first_row + i
        if 0 < i < n - 1 and 0 < g < grid_rows - 1 and 0 < j < m - 1:
            out[i, j] = u[i, j] + alpha * (u[i - 1, j] + u[i + 1, j] + u[i, j - 1]
                                           + u[i, j + 1] - 4 * u[i, j])
        else:
            out[i, j] = u[i, j]


def rows_of(rank, ranks, rows):
    """The rows [lo, hi) rank `rank` of `ranks` owns: as even a split as there is."""
    base, extra = divmod(rows, ranks)
    lo = rank * base + min(rank, extra)
    return lo, lo + base + (1 if rank < extra else 0)


def _sendrecv(comm, send, dest, receive, source, direct):
    # send (a row) to dest while receiving source's row into `receive`.
    if direct:
        comm.Sendrecv(send, dest, recvbuf=receive, source=source)
        return
    incoming = np.empty(receive.shape, receive.dtype)
    comm.Sendrecv(send.get(), dest, recvbuf=incoming, source=source)
    if source != MPI.PROC_NULL:
        receive.set(incoming)


def exchange_halos(comm, u, direct):
    """Fills u's first and last rows with the neighbouring ranks' edge rows."""
    up = comm.rank - 1 if comm.rank > 0 else MPI.PROC_NULL
    down = comm.rank + 1 if comm.rank < comm.size - 1 else MPI.PROC_NULL
    if direct:
        simt.mpi.ready(u)  # MPI reads and writes now: the last step's kernel first
    n = u.shape[0]
    _sendrecv(comm, u[1], up, u[n - 1], down, direct)
    _sendrecv(comm, u[n - 2], down, u[0], up, direct)


def solve(u0, steps, alpha, device, comm=None, direct=True):
    """This rank's rows of the grid u0 after `steps` steps (a simt array on `device`);
    the whole grid without `comm`."""
    rank, ranks = (comm.rank, comm.size) if comm is not None else (0, 1)
    rows, columns = u0.shape
    lo, hi = rows_of(rank, ranks, rows)
    local = np.zeros((hi - lo + 2, columns), u0.dtype)
    local[1:-1] = u0[lo:hi]
    u = simt.asarray(local, device=device)
    out = simt.empty_like(u)
    block = (32, 8)
    grid = ((columns + block[0] - 1) // block[0], (local.shape[0] + block[1] - 1) // block[1])
    for _ in range(steps):
        if comm is not None and ranks > 1:
            exchange_halos(comm, u, direct)
        heat_rows[grid, block](u, out, alpha, lo - 1, rows)
        u, out = out, u
    return u[1:-1]


def numpy_solve(u0, steps, alpha):
    u = u0.copy()
    for _ in range(steps):
        nxt = u.copy()
        nxt[1:-1, 1:-1] = u[1:-1, 1:-1] + alpha * (
            u[:-2, 1:-1] + u[2:, 1:-1] + u[1:-1, :-2] + u[1:-1, 2:] - 4 * u[1:-1, 1:-1])
        u = nxt
    return u


def rank_device(spec, rank):
    if spec == "cuda":
        gpus = [d for d in simt.devices() if d.backend == "cuda"]
        if not gpus:
            raise SystemExit("--device cuda: this machine has no CUDA device")
        return gpus[rank % len(gpus)]
    return simt.get_device(spec)


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--rows", type=int, default=512)
    parser.add_argument("--columns", type=int, default=512)
    parser.add_argument("--steps", type=int, default=100)
    parser.add_argument("--device", default="cpu")
    parser.add_argument("--cuda-aware", action="store_true",
                        help="pass CUDA arrays to MPI as they are (CUDA-aware MPI builds)")
    parser.add_argument("--seed", type=int, default=1)
    args = parser.parse_args(argv)
    comm = MPI.COMM_WORLD
    if args.rows < comm.size:
        raise SystemExit(f"--rows {args.rows}: fewer rows than the {comm.size} ranks")
    device = rank_device(args.device, comm.rank)
    direct = device.host_accessible or (device.backend == "cuda" and args.cuda_aware)
    u0 = np.random.default_rng(args.seed).random((args.rows, args.columns))
    alpha = 0.2

    mine = solve(u0, args.steps, alpha, device, comm, direct)
    # The total heat, added over the ranks with the simt arrays as MPI's buffers.
    local_sum = simt.reshape(simt.sum(mine), (1,))
    if direct:
        total = simt.empty(1, device=device)
        comm.Allreduce(simt.mpi.ready(local_sum), total, op=MPI.SUM)
        total = float(total.get()[0])
    else:
        total = comm.allreduce(float(local_sum.get()[0]), op=MPI.SUM)
    # The slabs travel pickled (through host memory) onto rank 0's device.
    slabs = comm.gather(mine, root=0)
    verdict = None
    if comm.rank == 0:
        whole = simt.concatenate(slabs)
        single = solve(u0, args.steps, alpha, device)
        same = bool(np.array_equal(whole.get(), single.get()))
        error = float(np.max(np.abs(whole.get() - numpy_solve(u0, args.steps, alpha))))
        total_ok = abs(total - float(single.get().sum())) <= 1e-9 * abs(total)
        verdict = same and error < 1e-12 and total_ok
        print(f"heat {args.rows}x{args.columns}, {args.steps} steps on {comm.size} ranks "
              f"({device.id}{', halos through host copies' if not direct else ''}): "
              f"{'equal to' if same else 'DIFFERENT from'} a single-process run; "
              f"max |simt - NumPy| {error:.1e}; total heat {total:.6f}"
              f"{'' if total_ok else ' (DIFFERS from the single run)'}")
    verdict = comm.bcast(verdict, root=0)
    return 0 if verdict else 1


if __name__ == "__main__":
    sys.exit(main())
