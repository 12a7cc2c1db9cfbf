"""MPI through mpi4py, run under Open MPI's mpirun in subprocesses: simt arrays as the
buffers of mpi4py's methods (cpu arrays without a copy), pickled simt arrays through its
lowercase methods, and examples/mpi_heat.py on 2 and 4 ranks equal to a single-process
run, on fresh random inputs."""

import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

import simt
import simt.mpi

REPO = Path(__file__).resolve().parents[2]
MPIRUN = shutil.which("mpirun")

needs_mpi = pytest.mark.skipif(
    MPIRUN is None or not __import__("importlib").util.find_spec("mpi4py"),
    reason="needs Open MPI's mpirun and mpi4py (apt install openmpi-bin libopenmpi-dev; "
           "pip install mpi4py; scripts/setup.sh installs both)")


def mpirun(ranks, *command, timeout=180):
    """Runs `command` (after the Python interpreter) on `ranks` ranks; the completed run."""
    launcher = [MPIRUN, "-n", str(ranks)]
    if hasattr(os, "geteuid") and os.geteuid() == 0:
        launcher.append("--allow-run-as-root")  # CI's containers run as root
    if ranks > (os.cpu_count() or 1):
        launcher.append("--oversubscribe")
    if "PYTHONPATH" in os.environ:
        launcher += ["-x", "PYTHONPATH"]
    return subprocess.run(launcher + [sys.executable, *map(str, command)], capture_output=True,
                          text=True, timeout=timeout, cwd=REPO)


_BUFFERS = '''
import sys
import numpy as np
from mpi4py import MPI
import simt, simt.mpi

comm = MPI.COMM_WORLD
rank, other = comm.rank, 1 - comm.rank
rng = np.random.default_rng(int(sys.argv[1]))
values = rng.standard_normal((2, 1000))          # the same on both ranks
mine = values[rank]

# Send/Recv: a cpu array is the buffer itself, written in place.
if rank == 0:
    comm.Send(simt.asarray(mine, device="cpu"), dest=1)
else:
    received = simt.full(1000, np.nan, device="cpu")
    pointer = received.__array_interface__["data"][0]
    comm.Recv(received, source=0)
    assert received.__array_interface__["data"][0] == pointer
    np.testing.assert_array_equal(received.get(), values[0])

# Sendrecv of rows of a matrix (contiguous views), and Allreduce.
matrix = simt.asarray(np.stack([mine, 2 * mine]), device="cpu")
incoming = simt.empty(1000, device="cpu")
comm.Sendrecv(matrix[1], dest=other, recvbuf=incoming, source=other)
np.testing.assert_array_equal(incoming.get(), 2 * values[other])
total = simt.empty(1000, device="cpu")
comm.Allreduce(simt.mpi.ready(simt.asarray(mine, device="cpu")), total, op=MPI.SUM)
np.testing.assert_allclose(total.get(), values[0] + values[1], rtol=1e-15)

# A column is not contiguous: mpi4py refuses it rather than send the wrong bytes.
try:
    comm.Send(matrix[:, 3], dest=other)
    raise AssertionError("a strided view was sent")
except BufferError as error:
    assert "contiguous" in str(error), error

# Lowercase methods pickle simt arrays, which arrive on the same kind of device.
device = sys.argv[2]
gathered = comm.gather(simt.asarray(mine, device=device), root=0)
if rank == 0:
    assert all(g.device.id == device for g in gathered), [g.device for g in gathered]
    np.testing.assert_array_equal(simt.stack(gathered).get(), values)
if device.startswith("opencl"):
    try:
        comm.Send(simt.asarray(mine, device=device), dest=other)
        raise AssertionError("an OpenCL array was sent")
    except BufferError as error:
        assert "OpenCL memory has no DLPack device pointer" in str(error), error
comm.Barrier()
print(f"rank {rank} ok")
'''


@needs_mpi
def test_simt_arrays_are_mpi4py_buffers(tmp_path, seed):
    script = tmp_path / "buffers.py"
    script.write_text(_BUFFERS)
    others = [d.id for d in simt.devices() if d.id != "cpu"]
    run = mpirun(2, script, seed, others[0] if others else "cpu")
    assert run.returncode == 0, run.stdout + run.stderr
    assert "rank 0 ok" in run.stdout and "rank 1 ok" in run.stdout


@needs_mpi
@pytest.mark.parametrize("ranks, device_id", [(2, "cpu"), (4, "cpu"), (2, "opencl:0")])
def test_the_heat_example_equals_a_single_process_run(ranks, device_id, seed):
    if device_id not in [d.id for d in simt.devices()]:
        pytest.skip(f"no {device_id} here")
    run = mpirun(ranks, REPO / "examples" / "mpi_heat.py", "--rows", 61, "--columns", 37,
                 "--steps", 25, "--device", device_id, "--seed", seed)
    assert run.returncode == 0, run.stdout + run.stderr
    assert f"on {ranks} ranks ({device_id}" in run.stdout
    assert "equal to a single-process run" in run.stdout


def test_ready_waits_and_refuses_opencl_memory(device, rng):
    x = simt.asarray(rng.standard_normal(10), device=device)
    y = x + 1
    if device.backend == "opencl":
        with pytest.raises(TypeError, match=f"MPI cannot address the memory of an array on "
                                            f"{device.id}"):
            simt.mpi.ready(y)
        return
    assert simt.mpi.ready(y) is y
    assert simt.mpi.ready(x, y) == (x, y)
    with pytest.raises(TypeError, match="simt.mpi.ready takes simt arrays, not ndarray"):
        simt.mpi.ready(simt.zeros(3, device=device).get())
