"""Pickling simt arrays (multiprocessing, dask.distributed, mpi4py's lowercase methods):
the values travel through host memory and come back onto the same kind of device.

The pickle holds a NumPy array of the values (a view of the memory for an array the host
reads, so protocol 5's out-of-band buffers send it without a copy), the device's id and
its backend. The receiving process puts it on, in this order:

1. the device of the same id (``cuda:0`` in a dask-cuda worker is that worker's GPU);
2. else the receiving thread's current device when it is of the same backend;
3. else the first device of that backend.

A process with no device of that backend raises ValueError naming the array's device and
the devices there are: simt never moves an array to another kind of memory behind the
user's back. Send NumPy arrays (``.get()``) to processes without that kind of device.
"""

import numpy as np

from ._array import Array, to_device
from ._device import current_device, devices

__all__ = []


def _reduce(self):
    if self._impl.host_visible:
        self._impl.device.synchronize()  # queued writers finish before pickle reads
        values = np.asarray(self)
    else:
        values = self.get()
    return _unpickle, (values, self.device.id, self.device.backend, self.readonly)


def receiving_device(device_id, backend):
    """The device of this process that an array pickled on `device_id` comes back on."""
    available = devices()
    for device in available:
        if device.id == device_id:
            return device
    current = current_device()
    if current.backend == backend:
        return current
    for device in available:
        if device.backend == backend:
            return device
    raise ValueError(
        f"unpickling a simt array of {device_id}: this process has no {backend} device (it "
        f"has {', '.join(d.id for d in available) or 'none'}); send NumPy arrays (.get()) to "
        f"processes without one")


def _unpickle(values, device_id, backend, readonly):
    array = to_device(values, device=receiving_device(device_id, backend))
    return Array._wrap(array._impl.readonly_view()) if readonly else array


Array.__reduce__ = _reduce
