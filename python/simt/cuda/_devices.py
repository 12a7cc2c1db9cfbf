"""numba.cuda's devices, contexts, streams and events for `simt.cuda`.

`cuda.gpus` lists the CUDA devices when there are any; on a machine without CUDA it
lists the one device simt runs on there (the default: an OpenCL GPU, else the CPU), so
that Numba programs that select and query a device run unchanged and say which device
they got. Streams and events are simt's (`simt.Stream`, `simt.Event`).
"""

import contextlib
import os

from .. import _core, _device, _stream

# CUDA's attribute names (what Numba's Device exposes) -> how simt's Device answers them.
_ATTRIBUTES = {
    "MAX_THREADS_PER_BLOCK": lambda d: d.max_threads_per_block,
    "MAX_BLOCK_DIM_X": lambda d: d.max_block_dim[0],
    "MAX_BLOCK_DIM_Y": lambda d: d.max_block_dim[1],
    "MAX_BLOCK_DIM_Z": lambda d: d.max_block_dim[2],
    "MAX_GRID_DIM_X": lambda d: d.max_grid_dim[0],
    "MAX_GRID_DIM_Y": lambda d: d.max_grid_dim[1],
    "MAX_GRID_DIM_Z": lambda d: d.max_grid_dim[2],
    "MULTIPROCESSOR_COUNT": lambda d: d.compute_units,
    "MAX_SHARED_MEMORY_PER_BLOCK": lambda d: d.max_shared_memory_per_block,
    "WARP_SIZE": lambda d: 32,  # what cuda.warpsize reads in kernels on every backend
}


class Device:
    """A device as numba.cuda describes one: id, name, compute_capability, CUDA's
    attribute names; also a context manager that makes it current."""

    def __init__(self, device=None, number=None):
        # CuPy's forms: Device() is the current device, Device(i) the i-th of cuda.gpus;
        # a simt.Device or an id string names one directly.
        if number is None:
            if device is None:
                device = _device.current_device()
            elif isinstance(device, int) and not isinstance(device, bool):
                listed = _listed()
                if not -len(listed) <= device < len(listed):
                    raise ValueError(f"cuda.Device({device}): simt.cuda lists {len(listed)} "
                                     f"({', '.join(d.id for d in listed)})")
                device, number = listed[device], device % len(listed)
            else:
                device = _device.get_device(device)
            if number is None:
                listed = _listed()
                number = listed.index(device) if device in listed else 0
        self._device = device
        self.id = number

    @property
    def name(self):
        return self._device.name

    @property
    def compute_capability(self):
        """(major, minor) on CUDA devices; (0, 0) on others, which have none."""
        return _device.compute_capability(self._device)

    @property
    def simt_device(self):
        """The simt.Device this describes."""
        return self._device

    def __getattr__(self, attribute):
        query = _ATTRIBUTES.get(attribute)
        if query is None:
            raise AttributeError(f"{type(self).__name__} has no attribute {attribute!r} "
                                 f"(simt answers {', '.join(sorted(_ATTRIBUTES))})")
        return query(self._device)

    def use(self):
        """Makes the device current in this thread (CuPy's Device.use)."""
        _core.set_current_device(self._device)
        return self

    def synchronize(self):
        """Waits for all work queued on the device."""
        self._device.synchronize()

    @property
    def mem_info(self):
        """(free, total) bytes, as Context.get_memory_info."""
        return Context(self._device).get_memory_info()

    def __eq__(self, other):
        return isinstance(other, Device) and other._device == self._device

    def __hash__(self):
        return hash(self._device)

    def __int__(self):
        return self.id

    def reset(self):
        """Waits for the device's work and frees the memory simt's pool caches for it."""
        self._device.synchronize()
        _device.free_cached_memory(self._device)

    def __enter__(self):
        self._using = _device.use_device(self._device)
        self._using.__enter__()
        return self

    def __exit__(self, *exc):
        return self._using.__exit__(*exc)

    def __repr__(self):
        return f"<CUDA device {self.id} '{self.name}' (simt {self._device.id})>"


def _listed():
    return _device.backend_devices("cuda") or [_device.get_device(None)]


class _Gpus:
    """cuda.gpus: the devices, indexable, iterable and sized; `with cuda.gpus[1]:` runs
    the block with that device current."""

    def __getitem__(self, index):
        listed = _listed()
        if not -len(listed) <= index < len(listed):
            raise IndexError(f"cuda.gpus[{index}]: there {'is' if len(listed) == 1 else 'are'} "
                             f"{len(listed)} ({', '.join(d.id for d in listed)})")
        return Device(listed[index], index % len(listed))

    def __len__(self):
        return len(_listed())

    def __iter__(self):
        return (Device(d, k) for k, d in enumerate(_listed()))

    @property
    def current(self):
        return get_current_device()

    def __repr__(self):
        return f"<simt.cuda.gpus: {', '.join(d.id for d in _listed())}>"


gpus = _Gpus()


def is_available():
    """Whether a device is there to run kernels (with no CUDA: the CPU or OpenCL device)."""
    # CUDA first: on a GPU host the answer needs no other backend to start.
    return bool(_device.backend_devices("cuda")) or bool(_device.devices())


def list_devices():
    return list(gpus)


def select_device(number):
    """Makes device `number` of cuda.gpus current, and returns it."""
    found = gpus[number]
    _core.set_current_device(found.simt_device)
    return found


def get_current_device():
    current = _device.current_device()
    for number, device in enumerate(_listed()):
        if device == current:
            return Device(device, number)
    return Device(current, 0)


def detect():
    """Prints the devices simt found (as Numba's detect does) and returns whether any."""
    listed = _listed()
    print(f"Found {len(listed)} device{'s' if len(listed) != 1 else ''} (simt)")
    for number, device in enumerate(listed):
        print(f"id {number:2d} {device.name!r:>40s} [{device.id}]")
    others = [d for d in _device.devices() if d not in listed]
    if others:
        print("Other simt devices: " + ", ".join(d.id for d in others))
    return bool(listed)


class Context:
    """The current device's context: memory information and synchronization."""

    def __init__(self, device):
        self.device = Device(device, get_current_device().id)
        self._device = device

    def get_memory_info(self):
        """(free, total) bytes: the device's memory less what simt's pool holds on it
        (memory other processes or libraries hold is not counted, where CUDA's own figure
        would count it); on the CPU, the host's available and total memory."""
        if self._device.backend == "cpu":  # the host's memory, as the OS counts it
            page = os.sysconf("SC_PAGE_SIZE")
            return os.sysconf("SC_AVPHYS_PAGES") * page, os.sysconf("SC_PHYS_PAGES") * page
        total = self._device.total_memory
        return max(total - _device.memory_stats(self._device)["held"], 0), total

    def synchronize(self):
        self._device.synchronize()

    def reset(self):
        self.device.reset()


def current_context():
    return Context(_device.current_device())


def synchronize():
    """Waits for all work queued on the current device."""
    _device.current_device().synchronize()


def close():
    """Waits for the current device and frees the memory simt's pool caches for it."""
    current_context().reset()


def stream():
    """A new stream on the current device."""
    return _stream.Stream()


def default_stream():
    return _stream.default_stream()


# simt's default stream has CUDA's legacy semantics; there is no per-thread one.
legacy_default_stream = default_stream
per_thread_default_stream = default_stream


def event(timing=True):
    """A new event on the current device (always timing-capable)."""
    return _stream.Event()


def event_elapsed_time(evtstart, evtend):
    """Milliseconds between two recorded events."""
    return evtstart.elapsed_time(evtend)


@contextlib.contextmanager
def defer_cleanup():
    """Numba delays freeing device memory inside this block; simt frees an array when its
    last reference goes, stream-ordered, so the block needs nothing done."""
    yield
