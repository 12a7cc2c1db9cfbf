"""simt.Array: an n-dimensional array in a device's memory, NumPy-like."""

import operator

import numpy as np

from . import _core, _transfer, _types
from ._device import get_device
from ._dlpack import DLDeviceType, dlpack_device


_dtype_names = {}  # what was passed as a dtype (np.float32, "f4", a dtype) -> simt's name
_record_dtypes = {}  # a record dtype's simt name (its text) -> the NumPy dtype


def _record_name(dt):
    try:
        name = _types.record_text(dt)
    except TypeError as error:
        raise TypeError(f"dtype {dt} is not supported by simt: {error}") from None
    # Dtypes of one text have the same fields at the same offsets, and differ at most in
    # field titles or NumPy's align flag: arrays of either give back the first.
    _record_dtypes.setdefault(name, dt)
    return name


def c_contiguous(shape, strides, itemsize):
    """Whether data of these strides covers exactly shape's elements in C order."""
    expected = itemsize
    for extent, stride in zip(reversed(shape), reversed(strides)):
        if extent != 1 and stride != expected:
            return False
        expected *= extent
    return True


_numpy_dtypes = {}  # simt's dtype names -> their NumPy dtypes, made once


def _numpy_dtype(name):
    """The NumPy dtype of simt's name for it (Array.dtype: np.dtype(name) on every read
    cost more than most array operations' own Python)."""
    dt = _numpy_dtypes.get(name)
    if dt is None:
        dt = _record_dtypes.get(name)
        if dt is None:
            dt = np.dtype(name)
        _numpy_dtypes[name] = dt
    return dt


def _dtype_name(dtype):
    # Allocation loops pass the same few dtypes: resolving one costs more
    # than the allocation itself.
    try:
        return _dtype_names[dtype]
    except (KeyError, TypeError):
        pass
    dt = np.dtype(dtype)
    try:
        name = _record_name(dt) if dt.names is not None else _core.normalize_type(dt.name)
    except ValueError:
        raise TypeError(f"dtype {dt} is not supported by simt") from None
    try:
        if len(_dtype_names) < 256:
            _dtype_names[dtype] = name
    except TypeError:  # unhashable
        pass
    return name


_MAX_EXTENT = 2 ** 63 - 1  # an extent is an int64, as NumPy's npy_intp


def _shape_tuple(shape):
    if isinstance(shape, (int, np.integer)):
        shape = (shape,)
    try:
        extents = tuple(operator.index(s) for s in shape)
    except TypeError:
        raise TypeError(f"shape must be an int or a tuple of ints, not {shape!r}") from None
    if any(extent > _MAX_EXTENT for extent in extents):
        raise ValueError(f"Maximum allowed dimension exceeded: shape {extents} (an extent "
                         f"is at most 2**63 - 1)")
    return extents


class Array:
    """An array in the memory of one device.

    Create one with simt.to_device, simt.empty, simt.zeros, simt.full or
    simt.empty_like; bring it back with .get(). Indexing with ints and
    slices gives views sharing the memory. On the CPU, numpy.asarray(a)
    views the same memory without copying.
    """

    __slots__ = ("_impl", "__weakref__")

    # Above NumPy's 0 (CuPy's value): code choosing among operands by it (Dask's
    # tensordot) takes simt's functions.
    __array_priority__ = 100

    def __init__(self, *args, **kwargs):
        raise TypeError("create arrays with simt.to_device, simt.empty, simt.zeros or simt.full")

    @classmethod
    def _wrap(cls, impl):
        array = object.__new__(cls)
        array._impl = impl
        return array

    shape = property(lambda self: tuple(self._impl.shape))
    strides = property(lambda self: tuple(self._impl.strides), doc="In bytes, as NumPy's.")
    dtype = property(lambda self: _numpy_dtype(self._impl.dtype))
    ndim = property(lambda self: len(self._impl.shape))
    itemsize = property(lambda self: self._impl.itemsize)
    device = property(lambda self: self._impl.device)

    @property
    def size(self):
        n = 1
        for s in self._impl.shape:
            n *= s
        return n

    @property
    def nbytes(self):
        return self.size * self.itemsize

    def __len__(self):
        if not self._impl.shape:
            raise TypeError("len() of a 0-d array")
        return self._impl.shape[0]

    @property
    def __array_interface__(self):
        if not self._impl.host_visible:
            raise AttributeError(
                f"an array on {self._impl.device.id} is not host memory; use .get() to copy it")
        self._impl.device.synchronize()  # a host reader comes after the queued work
        return {
            "version": 3,
            "shape": self.shape,
            "strides": self.strides,
            "typestr": self.dtype.str,
            "descr": self.dtype.descr,  # a record dtype's fields (typestr is '|V<n>')
            # The protocol's pointer for an array without elements is 0.
            "data": (self._impl.host_ptr if self.size else 0, self._impl.readonly),
        }

    @property
    def __cuda_array_interface__(self):
        if self._impl.device.backend != "cuda":
            raise AttributeError(f"an array on {self._impl.device.id} is not CUDA memory")
        return {
            "version": 3,
            "shape": self.shape,
            "strides": None if self._contiguous() else self.strides,
            "typestr": self.dtype.str,
            "descr": self.dtype.descr,
            # The protocol's pointer for an array without elements is 0.
            "data": (self._impl.data_ptr if self.size else 0, self._impl.readonly),
            # simt's default stream is the legacy one, and its own streams are
            # blocking ones: work a consumer queues on stream 1 comes after
            # all of simt's work.
            "stream": 1,
        }

    @property
    def device_ctypes_pointer(self):
        """The address of the first element as a ctypes.c_void_p (Numba's device arrays'
        name), on CUDA devices; AttributeError elsewhere, as __cuda_array_interface__."""
        if self._impl.device.backend != "cuda":
            raise AttributeError(f"an array on {self._impl.device.id} is not CUDA memory")
        import ctypes
        return ctypes.c_void_p(self._impl.data_ptr)

    def __dlpack_device__(self):
        """(DLPack device type, index) of the array's memory: kDLCPU for cpu,
        kDLCUDA for cuda:N, kDLOpenCL for opencl:N (which __dlpack__ cannot export)."""
        return dlpack_device(self.device)

    def __dlpack__(self, *, stream=None, max_version=None, dl_device=None, copy=None):
        """A DLPack capsule viewing the array (the array API's protocol; numpy.from_dlpack,
        torch.from_dlpack and cupy.from_dlpack call it). The capsule keeps the memory alive.

        `stream` (CUDA): the consumer's stream; None or 1 mean the legacy default stream,
        -1 asks for no synchronization. `dl_device` other than the array's own, or
        ``copy=True``, gives a copy (never with ``copy=False``: BufferError).
        """
        own = dlpack_device(self.device)
        if copy not in (None, True, False):
            raise TypeError(f"copy must be None, True or False, not {copy!r}")
        versioned = max_version is not None and tuple(max_version)[0] >= 1
        source, copied = self, False
        if dl_device is not None and (int(dl_device[0]), int(dl_device[1])) != own:
            kind, index = int(dl_device[0]), int(dl_device[1])
            if copy is False:
                raise BufferError(f"the array is on {self.device.id}, not DLPack device "
                                  f"{(kind, index)}, and copy=False forbids a copy")
            if kind == DLDeviceType.kDLCPU:
                try:
                    host_device = get_device("cpu")
                except ValueError:
                    # A build without the cpu device: a NumPy copy exports itself.
                    return np.ascontiguousarray(self.get()).__dlpack__(max_version=max_version)
                # Copied once, from the device into an array of the cpu device.
                source = empty(self.shape, self.dtype, host_device)
                self.get(out=np.asarray(source))
            elif kind == DLDeviceType.kDLCUDA:
                source = to_device(self, device=f"cuda:{index}")
            else:
                raise BufferError(f"simt cannot export to DLPack device {(kind, index)}")
            copied, own = True, (kind, index)
        elif copy:
            source, copied = self.copy(), True
        if own[0] == DLDeviceType.kDLCUDA:
            if stream == 0:
                raise ValueError("stream 0 is ambiguous in the DLPack protocol: pass 1 for the "
                                 "legacy default stream or 2 for the per-thread default stream")
            # simt's default stream is the legacy one and its own streams are
            # blocking ones: a consumer on the legacy stream (None, 1) comes
            # after all of that work; -1 asks for nothing. Other streams (the
            # per-thread default stream 2 included) do not wait for simt's
            # streams, so the device finishes its queued work first.
            if stream not in (None, -1, 1):
                source.device.synchronize()
        elif stream is not None and own[0] != DLDeviceType.kDLOpenCL:
            # (OpenCL memory is never exported: export_dlpack says why, whatever the stream.)
            raise BufferError(f"arrays on {source.device.id} have no streams: stream must be "
                              f"None, not {stream!r}")
        if own[0] == DLDeviceType.kDLCPU:
            source.device.synchronize()  # a host consumer reads at once: CPU streams first
        return _core.export_dlpack(source._impl, versioned, copied)

    def _host_view(self):
        """numpy.asarray of an array the host reads, in its own dtype: the array interface
        describes a record dtype's padding as fields of its own (named 'f2', ...)."""
        view = np.asarray(self)
        return view if view.dtype == self.dtype else view.view(self.dtype)

    def _contiguous(self):
        impl = self._impl
        return c_contiguous(impl.shape, impl.strides, impl.itemsize)

    def get(self, stream=None, out=None):
        """A NumPy copy of the array.

        With a `stream`, the copy is queued on it: `out` (or the returned
        array) holds the data once the stream has reached the copy, and the
        copy overlaps other work when `out` is pinned (simt.pinned_empty).
        """
        if out is not None:
            if not isinstance(out, np.ndarray) or out.shape != self.shape or \
                    out.dtype != self.dtype or not out.flags.c_contiguous:
                raise ValueError(f"out must be a C-contiguous NumPy array of shape {self.shape} "
                                 f"and dtype {self.dtype}")
        if self._contiguous():
            out = np.empty(self.shape, self.dtype) if out is None else out
            self._impl.copy_to_host(out, stream)
            return out
        if out is not None:
            out[...] = self.get()
            return out
        if self._impl.device.host_accessible:
            self._impl.device.synchronize()  # work queued on streams comes first
            return np.array(self._host_view(), copy=True)
        if self.size == 0:
            return np.empty(self.shape, self.dtype)
        # A strided view: copy the bytes it spans, then view them as NumPy would.
        low = sum(min(0, (n - 1) * s) for n, s in zip(self.shape, self.strides))
        high = sum(max(0, (n - 1) * s) for n, s in zip(self.shape, self.strides)) + self.itemsize
        raw = np.empty(high - low, np.uint8)
        self._impl.copy_buffer_bytes_to_host(self._impl.offset + low, raw)
        view = np.ndarray(self.shape, self.dtype, buffer=raw, offset=-low, strides=self.strides)
        # In the view's own order (F stays F), as the host-memory path's copy and Numba's.
        return np.array(view, copy=True, order="K")

    def copy_to_host(self, ary=None, stream=None):
        """Numba's name for get(): copies into `ary` when given."""
        return self.get(stream=stream, out=ary)

    def set(self, source, stream=None):
        """Copies a NumPy array of the same shape into this (contiguous) array."""
        host = np.ascontiguousarray(source, dtype=self.dtype)
        if host.shape != self.shape:
            raise ValueError(f"set: the source has shape {host.shape}, the array {self.shape}")
        if not self._contiguous():
            raise ValueError("set: the array is a strided view; set a contiguous array")
        self._impl.copy_from_host(host.reshape(-1), stream)

    copy_from_host = set

    def copy(self, stream=None):
        """A new array on the same device with the same contents (copied on the device)."""
        if not self._contiguous():
            return to_device(self.get(), device=self.device)
        out = empty(self.shape, self.dtype, self.device)
        out._impl.copy_from_device(self._impl, stream)
        return out

    @property
    def readonly(self):
        """Whether the array is read-only (imported from a producer that marked it so)."""
        return self._impl.readonly


def empty(shape, dtype=np.float64, device=None, order="C"):
    """An uninitialized array on `device` (default: the current device)."""
    impl = _core.empty(list(_shape_tuple(shape)), _dtype_name(dtype), get_device(device), order)
    return Array._wrap(impl)


def full(shape, fill_value, dtype=None, device=None, order="C"):
    """An array filled with `fill_value` (dtype defaults to NumPy's for the value)."""
    dtype = np.asarray(fill_value).dtype if dtype is None else np.dtype(dtype)
    dtype = dtype.newbyteorder("=")  # simt arrays hold native byte order: '>f8' is float64
    array = empty(shape, dtype, device, order)
    array._impl.fill(np.asarray(fill_value, dtype=dtype).tobytes())
    return array


def zeros(shape, dtype=np.float64, device=None, order="C"):
    return full(shape, 0, dtype, device, order)


def empty_like(array, dtype=None, device=None):
    """An uninitialized array with the shape (and by default dtype and device) of `array`."""
    device = device if device is not None else getattr(array, "device", None)
    return empty(np.shape(array), dtype if dtype is not None else array.dtype, device)


def zeros_like(array, dtype=None, device=None):
    device = device if device is not None else getattr(array, "device", None)
    return zeros(np.shape(array), dtype if dtype is not None else array.dtype, device)


def to_device(obj, device=None, stream=None):
    """Copies a NumPy array (or anything numpy.asarray accepts), or a simt array on any
    device, to `device`.

    With a `stream` (default: the stream's device), the copy is queued on it,
    asynchronous when `obj` is pinned (simt.pinned_empty).
    """
    if device is None and stream is not None and not isinstance(stream, int):
        device = stream.device
    if isinstance(obj, Array):
        if obj._contiguous():
            array = empty(obj.shape, obj.dtype, device)
            _transfer.copy_contiguous(obj._impl, array._impl, stream)
            return array
        obj = obj.get()  # a strided view: gathered on the host, in its own order
    host = np.asarray(obj)
    if not host.dtype.isnative:  # the values, in the byte order kernels read
        host = host.astype(host.dtype.newbyteorder("="))
    order = "F" if host.flags.f_contiguous and not host.flags.c_contiguous else "C"
    array = empty(host.shape, host.dtype, device, order)
    array._impl.copy_from_host(np.asarray(host, order=order).reshape(-1, order=order), stream)
    return array


_core._register_array_type(Array)
