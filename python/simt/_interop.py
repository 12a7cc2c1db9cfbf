"""Zero-copy exchange with other array libraries.

In: simt.from_dlpack (any DLPack producer: NumPy, PyTorch, CuPy, JAX) and
simt.asarray (also __cuda_array_interface__ producers: CuPy, PyTorch, Numba;
and NumPy arrays or anything numpy.asarray takes). Out: Array.__dlpack__,
Array.__dlpack_device__, Array.__cuda_array_interface__ (in _array.py; DLPack's
device types in _dlpack.py) and numpy.asarray on the CPU.

An imported array views the producer's memory, on the device that memory
belongs to, and keeps the producer alive until the last simt view goes.
"""

import functools

import numpy as np

from . import _core
from ._array import Array, to_device
from ._device import backend_devices, get_device
from ._dlpack import DLDeviceType


def _dlpack_home(device_type, device_id):
    """The simt device whose memory DLPack's (device_type, device_id) names."""
    if device_type in (DLDeviceType.kDLCPU, DLDeviceType.kDLCUDAHost):
        return get_device("cpu")
    if device_type in (DLDeviceType.kDLCUDA, DLDeviceType.kDLCUDAManaged):
        try:
            return get_device(f"cuda:{device_id}")
        except ValueError:
            raise BufferError(f"the data is on CUDA device {device_id}, which simt does not see "
                              "(python -m simt info says why)") from None
    try:
        name = DLDeviceType(device_type).name
    except ValueError:
        name = f"device type {device_type}"
    raise BufferError(f"the data is in DLPack {name} memory, which simt cannot use")


@functools.cache
def _has_cpu_device():
    """Whether this build has the cpu device (asked once: it is built in or not)."""
    try:
        get_device("cpu")
    except ValueError:
        return False
    return True


def _cross_device_error(source, target):
    return ValueError(f"the data is in {source.id}'s memory: an array on {target.id} needs a "
                      f"copy, which copy=False forbids (pass copy=None or True)")


def _capsule(x, home):
    kwargs = {}
    if home.backend == "cuda":
        # simt's default stream is the legacy one (1 in the protocol), which its
        # own (blocking) streams wait for: the producer orders its pending
        # writes before it.
        kwargs["stream"] = 1
    try:
        return x.__dlpack__(max_version=(1, 0), **kwargs)
    except TypeError:
        # A producer older than the 2023 protocol (DLPack 0.x, no max_version).
        return x.__dlpack__(**kwargs)


def from_dlpack(x, /, *, device=None, copy=None):
    """A simt array viewing the memory of `x`, any object with ``__dlpack__`` and
    ``__dlpack_device__`` (NumPy, PyTorch, CuPy, JAX arrays), without copying.

    The array lives on the device that memory belongs to (host memory: ``cpu``;
    CUDA memory: ``cuda:N``) and keeps `x`'s memory alive. `device` another than
    that asks for a copy there (the array API's rule): made with copy=None or True,
    ValueError with ``copy=False``; ``copy=True`` always copies.
    A read-only producer gives a read-only array.
    """
    if copy not in (None, True, False):
        raise TypeError(f"copy must be None, True or False, not {copy!r}")
    if isinstance(x, Array):
        target = x.device if device is None else get_device(device)
        if target == x.device:
            return x.copy() if copy else Array._wrap(
                x._impl.view(x._impl.offset, list(x.shape), list(x.strides)))
        if copy is False:
            raise _cross_device_error(x.device, target)
        return to_device(x, target)
    if not hasattr(x, "__dlpack__") or not hasattr(x, "__dlpack_device__"):
        cai = _cuda_array_interface(x)
        if cai is None:
            raise TypeError(f"simt.from_dlpack takes an array with __dlpack__ and "
                            f"__dlpack_device__ (NumPy, PyTorch, CuPy, JAX...) or "
                            f"__cuda_array_interface__ (Numba), not {type(x).__name__}")
        array = _from_cuda_array_interface(x, cai)
        target = array.device if device is None else get_device(device)
        if target != array.device:
            if copy is False:
                raise _cross_device_error(array.device, target)
            return to_device(array, target)
        return array.copy() if copy else array
    device_type, device_id = x.__dlpack_device__()
    home = _dlpack_home(int(device_type), int(device_id))
    target = home if device is None else get_device(device)
    if target != home:
        if copy is False:
            raise _cross_device_error(home, target)
        return to_device(Array._wrap(_core.import_dlpack(_capsule(x, home), home)), target)
    array = Array._wrap(_core.import_dlpack(_capsule(x, home), home))
    return array.copy() if copy else array


def _cuda_array_interface(obj):
    """obj.__cuda_array_interface__, or None where it has none (PyTorch's CPU tensors
    raise AttributeError)."""
    try:
        return obj.__cuda_array_interface__
    except AttributeError:
        return None


def _cuda_devices():
    return backend_devices("cuda")


def _from_cuda_array_interface(obj, cai):
    """A simt array on the CUDA device holding a __cuda_array_interface__'s memory."""
    what = f"the __cuda_array_interface__ of a {type(obj).__name__}"
    pointer, shape, strides, name, readonly, stream = _core.read_cuda_array_interface(cai, what)
    if pointer:
        cuda = [d for d in _cuda_devices() if _core.device_holds_pointer(d, pointer)]
        if not cuda:
            raise ValueError(f"{what} points at {pointer:#x}, which is not memory of any CUDA "
                             f"device simt sees")
        home = cuda[0]
    else:
        # No elements, so no memory: any CUDA device will do.
        cuda = _cuda_devices()
        if not cuda:
            raise ValueError(f"{what} describes CUDA memory, and simt sees no CUDA device")
        home = cuda[0]

    # The producer's writes pending on another stream than the legacy default one
    # (which simt's streams, all blocking, wait for): the device is synchronized,
    # which the protocol allows.
    if stream:
        home.synchronize()
    impl = _core.import_pointer(pointer, list(shape), strides, name, bool(readonly), home, obj,
                                what)
    return Array._wrap(impl)


def asarray(obj, device=None):
    """`obj` as a simt array: without copying where its memory can stay where it is.

    - a simt.Array: itself (a copy when `device` is another device);
    - an object with ``__dlpack__`` (NumPy, PyTorch, CuPy, JAX): as
      simt.from_dlpack; a NumPy array becomes a view on the ``cpu`` device;
    - else an object with ``__cuda_array_interface__`` (Numba): a view on its
      CUDA device, keeping `obj` alive;
    - anything numpy.asarray accepts (lists, numbers, buffers): through NumPy.

    When `device` is not where the memory is, the data is copied there.
    """
    target = None if device is None else get_device(device)
    if isinstance(obj, Array):
        return obj if target is None or target == obj.device else to_device(obj, target)
    # DLPack first where both are offered: its stream handshake lets the
    # producer order its pending work, where __cuda_array_interface__ (version
    # 2, as PyTorch's) may say nothing of streams.
    cai = None
    if not (hasattr(obj, "__dlpack__") and hasattr(obj, "__dlpack_device__")):
        cai = _cuda_array_interface(obj)
    if cai is not None:
        array = _from_cuda_array_interface(obj, cai)
        if target is None or target == array.device:
            return array
        return asarray(array.get(), target) if target.host_accessible else to_device(array, target)
    if not (hasattr(obj, "__dlpack__") and hasattr(obj, "__dlpack_device__")):
        obj = np.asarray(obj)
    if isinstance(obj, np.ndarray):
        if obj.dtype.kind not in "biufc":
            raise TypeError(f"dtype {obj.dtype} is not supported by simt")
        if not obj.dtype.isnative:
            raise TypeError(f"the array's byte order ({obj.dtype.str}) is not this machine's; "
                            f"convert it with a.astype(a.dtype.newbyteorder('='))")
        if target is not None and not target.host_accessible:
            return to_device(obj, target)
        if not obj.flags.aligned:
            # Kernels read elements at their own alignment: memory that has none (an array
            # unpickled from a network frame) is copied, as no view of it can be used.
            obj = obj.copy()
        if target is None and not _has_cpu_device():
            # A build without the cpu device (no LLVM where it was built): host data goes
            # to the current device, as CuPy's asarray takes it.
            return to_device(obj, get_device())
    device_type, device_id = obj.__dlpack_device__()
    home = _dlpack_home(int(device_type), int(device_id))
    if target is None or target == home:
        return from_dlpack(obj)
    return from_dlpack(obj, device=target, copy=True)
