"""MPI through mpi4py: simt arrays are buffers of its uppercase methods (Send, Recv,
Sendrecv, Allreduce, Bcast, Gatherv, ...); its lowercase methods (send, bcast, gather)
pickle them, through host memory, onto the same kind of device.

How mpi4py (3.1 and later) reads a simt array: through DLPack (``__dlpack__``), without
a copy. (simt.Array offers no buffer protocol: a Python class can only from Python 3.12,
and a type that offers it hides DLPack from mpi4py, which tries the buffer protocol first
and would then refuse CUDA arrays.)

- ``cpu`` arrays: the memory itself; simt's DLPack export first waits for the work
  queued on the device.
- ``cuda:N`` arrays: the device pointer, for CUDA-aware MPI builds (Open MPI built with
  CUDA, MVAPICH2-GDR, ...); a build that is not CUDA-aware must be given host copies
  (``a.get()``). mpi4py asks for no stream synchronization (DLPack's stream -1), so the
  rule is: **the work queued on the array's device is done before the MPI call** —
  ``comm.Send(simt.mpi.ready(a), dest=1)``, or ``a.device.synchronize()``.
- ``opencl:N`` arrays: not addressable by MPI (an OpenCL buffer is not an address); copy
  them to the host (``a.get()``, ``a.set(received)``).

MPI reads a contiguous buffer: pass C-contiguous arrays or views (a row of a C-ordered
matrix is one; a column is not, and mpi4py says so).
"""

from ._array import Array

__all__ = ["ready"]


def ready(*arrays):
    """Waits for the work queued on the devices of `arrays` (each device once), so MPI may
    read and write them now; returns the array, or a tuple of them for several.

    Raises TypeError for an OpenCL array, whose memory MPI cannot address."""
    waited = []
    for array in arrays:
        if not isinstance(array, Array):
            raise TypeError(f"simt.mpi.ready takes simt arrays, not {type(array).__name__} "
                            f"(NumPy arrays need no wait)")
        device = array.device
        if device.backend == "opencl":
            raise TypeError(f"MPI cannot address the memory of an array on {device.id}: send "
                            f"a host copy (a.get()) and receive into one (a.set(received))")
        if device not in waited:
            device.synchronize()
            waited.append(device)
    return arrays[0] if len(arrays) == 1 else arrays
