"""Weak scaling of examples/mpi_heat.py's solver: the same rows per rank on 1, 2 and 4
ranks (Open MPI's mpirun), seconds per step and efficiency (one rank's time over p
ranks'; 1.0 is perfect weak scaling).

    python bench/scale.py [--ranks 1,2,4] [--rows-per-rank 1024] [--columns 1024]
                          [--steps 50] [--device cpu|opencl:0|cuda]

Each run times the steps after a warm-up step (the kernel compiled, the halos
exchanged once) between two barriers, and reports the slowest rank. On the CPU device
the ranks share the machine's cores: more ranks than cores measure oversubscription, not
scaling. With --device cuda, rank r drives cuda:(r mod GPUs).
"""

import argparse
import importlib.util
import json
import os
import shutil
import subprocess
import sys
import time
from pathlib import Path

REPO = Path(__file__).resolve().parents[1]


def _example():
    spec = importlib.util.spec_from_file_location("mpi_heat", REPO / "examples" / "mpi_heat.py")
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def rank_job(args):
    """One rank's part: times `steps` steps of its slab; rank 0 prints the result as JSON."""
    import numpy as np
    from mpi4py import MPI

    heat = _example()
    comm = MPI.COMM_WORLD
    device = heat.rank_device(args.device, comm.rank)
    direct = device.host_accessible or (device.backend == "cuda" and args.cuda_aware)
    rows = args.rows_per_rank * comm.size
    u0 = np.random.default_rng(1).random((rows, args.columns))
    heat.solve(u0, 1, 0.2, device, comm, direct).device.synchronize()  # compile, warm up
    comm.Barrier()
    start = time.perf_counter()
    heat.solve(u0, args.steps, 0.2, device, comm, direct).device.synchronize()
    seconds = comm.reduce(time.perf_counter() - start, op=MPI.MAX, root=0)
    if comm.rank == 0:
        print(json.dumps({"ranks": comm.size, "rows": rows, "columns": args.columns,
                          "seconds_per_step": seconds / args.steps, "device": device.id}))


def launch(ranks, args):
    command = [shutil.which("mpirun"), "-n", str(ranks)]
    if hasattr(os, "geteuid") and os.geteuid() == 0:
        command.append("--allow-run-as-root")
    if ranks > (os.cpu_count() or 1):
        command.append("--oversubscribe")
    if "PYTHONPATH" in os.environ:
        command += ["-x", "PYTHONPATH"]
    command += [sys.executable, __file__, "--rank-job", "--rows-per-rank",
                str(args.rows_per_rank), "--columns", str(args.columns), "--steps",
                str(args.steps), "--device", args.device]
    if args.cuda_aware:
        command.append("--cuda-aware")
    run = subprocess.run(command, capture_output=True, text=True, timeout=1800)
    if run.returncode != 0:
        raise SystemExit(f"mpirun -n {ranks} failed:\n{run.stdout}{run.stderr}")
    return json.loads(run.stdout.strip().splitlines()[-1])


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--ranks", default="1,2,4")
    parser.add_argument("--rows-per-rank", type=int, default=1024)
    parser.add_argument("--columns", type=int, default=1024)
    parser.add_argument("--steps", type=int, default=50)
    parser.add_argument("--device", default="cpu")
    parser.add_argument("--cuda-aware", action="store_true")
    parser.add_argument("--rank-job", action="store_true", help=argparse.SUPPRESS)
    args = parser.parse_args()
    if args.rank_job:
        return rank_job(args)
    if shutil.which("mpirun") is None:
        raise SystemExit("needs Open MPI's mpirun (apt install openmpi-bin) and mpi4py")
    print(f"weak scaling of examples/mpi_heat.py: {args.rows_per_rank} rows x "
          f"{args.columns} columns per rank, {args.steps} steps, device {args.device}, "
          f"{os.cpu_count()} cores")
    print(f"{'ranks':>5} {'grid':>12} {'ms/step':>9} {'efficiency':>10}")
    base = None
    for ranks in (int(r) for r in args.ranks.split(",")):
        result = launch(ranks, args)
        per_step = result["seconds_per_step"]
        base = per_step if base is None else base
        grid = f"{result['rows']}x{result['columns']}"
        print(f"{ranks:>5} {grid:>12} {per_step * 1e3:>9.2f} {base / per_step:>10.2f}")


if __name__ == "__main__":
    main()
