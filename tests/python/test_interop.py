"""Zero-copy interop: DLPack both ways, __cuda_array_interface__, NumPy on the CPU.

The NumPy tests run everywhere (simt's cpu device is host memory); the
PyTorch and CuPy tests need a CUDA device and the library, and skip otherwise.
Every value is checked against NumPy on fresh random inputs.
"""

import ctypes
import gc
import weakref

import numpy as np
import pytest

import simt
from simt import cuda

DTYPES = [np.bool_, np.int8, np.int16, np.int32, np.int64, np.uint8, np.uint16, np.uint32,
          np.uint64, np.float16, np.float32, np.float64, np.complex64, np.complex128]

# Host memory imports onto the cpu device, which builds without LLVM lack.
needs_cpu = pytest.mark.skipif(
    not any(d.id == "cpu" for d in simt.devices()),
    reason="needs the cpu device (this build of simt has no CPU backend)")


def random_array(rng, shape, dtype):
    dtype = np.dtype(dtype)
    if dtype.kind == "b":
        return rng.integers(0, 2, shape).astype(dtype)
    if dtype.kind in "iu":
        info = np.iinfo(dtype)
        return rng.integers(max(info.min, -1000), min(info.max, 1000), shape, endpoint=True,
                            dtype=dtype)
    if dtype.kind == "c":
        return (rng.standard_normal(shape) + 1j * rng.standard_normal(shape)).astype(dtype)
    return rng.standard_normal(shape).astype(dtype)


@simt.kernel
def affine(x, out):
    i = cuda.grid(1)
    if i < out.size:
        out[i] = 2 * x[i] + 1


@simt.kernel
def scale_in_place(x, factor):
    i = cuda.grid(1)
    if i < x.size:
        x[i] = x[i] * factor


@simt.kernel
def mark2d(out):
    i, j = cuda.grid(2)
    if i < out.shape[0] and j < out.shape[1]:
        out[i, j] = i * 100 + j


@simt.kernel
def write_first(x):
    x[0] = 1


def in_use(device="cpu"):
    return simt.memory_stats(device)["in_use"]


def data_pointer(array):
    return array._impl.data_ptr


# ---------------------------------------------------------------- NumPy <-> simt on the CPU

@needs_cpu
def test_numpy_views_a_simt_array_through_dlpack(rng):
    x = random_array(rng, 1000, np.float32)
    a = simt.to_device(x, device="cpu")
    view = np.from_dlpack(a)
    assert view.ctypes.data == data_pointer(a)
    np.testing.assert_array_equal(view, x)
    view[3] = 42.0                       # written through NumPy, read through simt
    assert a.get()[3] == 42.0
    scale_in_place[4, 256](a, np.float32(3))   # written by a kernel, read through NumPy
    expected = x.copy()
    expected[3] = 42.0
    np.testing.assert_allclose(view, expected * np.float32(3), rtol=1e-6)


@needs_cpu
def test_simt_views_a_numpy_array_through_dlpack(rng):
    x = random_array(rng, 777, np.float64)
    reference = 2 * x + 1
    a = simt.from_dlpack(x)
    assert a.device.id == "cpu"
    assert data_pointer(a) == x.ctypes.data
    assert simt._core.buffer_is_foreign(a._impl)
    x[5] = -1.0                          # written through NumPy, seen by simt
    assert a.get()[5] == -1.0
    x[5] = reference[5] / 2 - 0.5
    out = np.zeros_like(x)
    affine[4, 256](a, simt.from_dlpack(out))     # a kernel writes NumPy's memory
    np.testing.assert_allclose(out, 2 * x + 1)


@needs_cpu
def test_kernel_modifies_the_numpy_array_it_imported(rng):
    x = random_array(rng, 300, np.int32)
    expected = x * 7
    a = simt.from_dlpack(x)
    scale_in_place[2, 256](a, np.int32(7))
    np.testing.assert_array_equal(x, expected)


@needs_cpu
@pytest.mark.parametrize("dtype", DTYPES, ids=lambda d: np.dtype(d).name)
def test_every_dtype_round_trips_both_ways(rng, dtype):
    x = random_array(rng, (5, 7), dtype)
    a = simt.from_dlpack(x)
    assert a.dtype == np.dtype(dtype)
    assert data_pointer(a) == x.ctypes.data
    np.testing.assert_array_equal(a.get(), x)
    b = simt.to_device(x, device="cpu")
    back = np.from_dlpack(b)
    assert back.dtype == np.dtype(dtype)
    assert back.ctypes.data == data_pointer(b)
    np.testing.assert_array_equal(back, x)


@needs_cpu
def test_the_producer_lives_as_long_as_a_simt_view():
    base = np.arange(64, dtype=np.float32)
    alive = weakref.ref(base)
    a = simt.from_dlpack(base)
    view = a[8:16]                       # views share the foreign buffer
    del base, a
    gc.collect()
    assert alive() is not None
    np.testing.assert_array_equal(view.get(), np.arange(8, 16, dtype=np.float32))
    del view
    gc.collect()
    assert alive() is None               # the DLPack deleter ran: NumPy's array is gone


@needs_cpu
def test_a_numpy_view_keeps_the_simt_buffer_alive(rng):
    x = random_array(rng, 4096, np.float64)
    before = in_use()
    a = simt.to_device(x, device="cpu")
    view = np.from_dlpack(a)
    del a
    gc.collect()
    assert in_use() > before             # still held for NumPy
    np.testing.assert_array_equal(view, x)
    del view
    gc.collect()
    assert in_use() == before            # back to the pool


@needs_cpu
def test_an_unconsumed_capsule_frees_its_hold():
    before = in_use()
    a = simt.zeros(1000, device="cpu")
    capsules = [a.__dlpack__(), a.__dlpack__(max_version=(1, 0))]
    del a
    gc.collect()
    assert in_use() > before
    del capsules
    gc.collect()
    assert in_use() == before


@needs_cpu
def test_a_capsule_is_imported_once():
    capsule = np.arange(4.0).__dlpack__()
    cpu = simt.get_device("cpu")
    a = simt._core.import_dlpack(capsule, cpu)
    with pytest.raises(ValueError, match="already consumed"):
        simt._core.import_dlpack(capsule, cpu)
    del a


@needs_cpu
def test_dlpack_versions(rng):
    a = simt.to_device(random_array(rng, 10, np.float32), device="cpu")
    assert "dltensor" in repr(a.__dlpack__())
    assert "dltensor_versioned" in repr(a.__dlpack__(max_version=(1, 0)))
    assert "dltensor_versioned" in repr(a.__dlpack__(max_version=(1, 3)))
    assert "dltensor_versioned" not in repr(a.__dlpack__(max_version=(0, 8)))
    assert a.__dlpack_device__() == (1, 0)


@needs_cpu
def test_readonly_numpy_array_imports_read_only(rng):
    x = random_array(rng, 50, np.float32)
    x.flags.writeable = False
    a = simt.from_dlpack(x)
    assert a.readonly
    assert data_pointer(a) == x.ctypes.data
    with pytest.raises(ValueError, match="read-only"):
        a[0] = 1.0
    with pytest.raises(simt.TypingError, match="read-only"):
        write_first[1, 1](a)
    out = simt.empty_like(a)
    affine[1, 64](a, out)                # reading is fine
    np.testing.assert_allclose(out.get(), 2 * x + 1, rtol=1e-6)
    assert not np.asarray(a).flags.writeable
    assert not np.from_dlpack(a).flags.writeable
    with pytest.raises(BufferError, match="read-only"):
        a.__dlpack__()                   # DLPack 0.x cannot say read-only


@pytest.mark.parametrize(
    "index", [np.s_[::2, ::3], np.s_[::-1, 1::2], np.s_[2:, ::-2], np.s_[:, 3]],
    ids=["step", "reversed", "both", "column"])
@needs_cpu
def test_strided_numpy_views_import_in_place(rng, index):
    base = random_array(rng, (9, 11), np.float64)
    x = base[index]
    a = simt.from_dlpack(x)
    assert a.shape == x.shape and a.strides == x.strides
    np.testing.assert_array_equal(a.get(), x)
    np.testing.assert_array_equal(np.asarray(a), x)
    if x.ndim == 2:
        mark2d[(1, 1), (16, 16)](a)
        i, j = np.indices(x.shape)
        np.testing.assert_array_equal(base[index], i * 100 + j)


@needs_cpu
def test_strided_simt_views_export_in_place(rng):
    x = random_array(rng, (8, 10), np.int64)
    a = simt.to_device(x, device="cpu")
    view = a[1::2, ::-3]
    n = np.from_dlpack(view)
    np.testing.assert_array_equal(n, x[1::2, ::-3])
    assert n.strides == view.strides
    n[...] = -5
    np.testing.assert_array_equal(a.get()[1::2, ::-3], -5)


@needs_cpu
def test_zero_dimensional_and_empty_arrays(rng):
    scalar = np.array(3.5)
    a = simt.from_dlpack(scalar)
    assert a.shape == () and a.get() == 3.5
    z = simt.full((), 7, np.int32, device="cpu")
    assert np.from_dlpack(z).shape == () and np.from_dlpack(z) == 7
    for shape in [(0,), (0, 3), (4, 0, 2)]:
        e = simt.from_dlpack(np.empty(shape, np.float32))
        assert e.shape == shape and e.get().shape == shape
        n = np.from_dlpack(simt.empty(shape, np.float32, device="cpu"))
        assert n.shape == shape


@needs_cpu
def test_unsupported_types_are_clear_errors():
    with pytest.raises(TypeError, match="from_dlpack takes an array"):
        simt.from_dlpack([1, 2, 3])
    with pytest.raises((BufferError, TypeError)):
        simt.from_dlpack(np.array(["a", "b"]))
    with pytest.raises(TypeError, match="not supported by simt"):
        simt.asarray(np.array(["a", "b"]))
    with pytest.raises(TypeError, match="byte order"):
        simt.asarray(np.arange(4, dtype=">f4"))
    with pytest.raises(TypeError, match="copy must be"):
        simt.from_dlpack(np.arange(3), copy="yes")


# A hand-made DLPack producer, for what NumPy never produces.

class _DLTensor(ctypes.Structure):
    _fields_ = [("data", ctypes.c_void_p), ("device_type", ctypes.c_int32),
                ("device_id", ctypes.c_int32), ("ndim", ctypes.c_int32),
                ("code", ctypes.c_uint8), ("bits", ctypes.c_uint8), ("lanes", ctypes.c_uint16),
                ("shape", ctypes.POINTER(ctypes.c_int64)),
                ("strides", ctypes.POINTER(ctypes.c_int64)), ("byte_offset", ctypes.c_uint64)]


_DELETER = ctypes.CFUNCTYPE(None, ctypes.c_void_p)


class _Versioned(ctypes.Structure):
    _fields_ = [("major", ctypes.c_uint32), ("minor", ctypes.c_uint32),
                ("manager_ctx", ctypes.c_void_p), ("deleter", _DELETER),
                ("flags", ctypes.c_uint64), ("dl_tensor", _DLTensor)]


class HandMade:
    """A producer of one versioned capsule over `backing` (kept alive by the test)."""

    def __init__(self, backing, code, bits, lanes=1, major=1, device=(1, 0), strides=None):
        self.backing = backing
        self.shape = (ctypes.c_int64 * backing.ndim)(*backing.shape)
        self.strides = None if strides is None else (ctypes.c_int64 * len(strides))(*strides)
        self.deleted = 0
        self.deleter = _DELETER(self._delete)
        self.managed = _Versioned(major, 0, None, self.deleter, 0, _DLTensor(
            backing.ctypes.data, device[0], device[1], backing.ndim, code, bits, lanes,
            self.shape, self.strides, 0))
        self.device = device

    def _delete(self, _):
        self.deleted += 1

    def __dlpack_device__(self):
        return self.device

    def __dlpack__(self, **kwargs):
        new = ctypes.pythonapi.PyCapsule_New
        new.restype = ctypes.py_object
        new.argtypes = [ctypes.c_void_p, ctypes.c_char_p, ctypes.c_void_p]
        return new(ctypes.addressof(self.managed), b"dltensor_versioned", None)


@needs_cpu
def test_dlpack_types_simt_lacks_are_clear_errors():
    backing = np.zeros(8, np.uint16)
    with pytest.raises(ValueError, match="element type bfloat16 is not a simt dtype"):
        simt.from_dlpack(HandMade(backing, code=4, bits=16))
    with pytest.raises(ValueError, match="float32 x4 lanes"):
        simt.from_dlpack(HandMade(np.zeros((2, 4), np.float32), code=2, bits=32, lanes=4))
    with pytest.raises(ValueError, match="DLPack 2.0; simt reads DLPack 1.x"):
        simt.from_dlpack(HandMade(backing, code=1, bits=16, major=2))
    with pytest.raises(BufferError, match="kDLOpenCL"):
        simt.from_dlpack(HandMade(backing, code=1, bits=16, device=(4, 0)))
    unaligned = np.zeros(9, np.uint8)[1:]            # an odd address read as uint32
    with pytest.raises(ValueError, match="not aligned to 4 bytes"):
        simt.from_dlpack(HandMade(unaligned, code=1, bits=32, strides=[1]))


@needs_cpu
def test_hand_made_producer_deleter_runs_once():
    backing = np.arange(6, dtype=np.int16).reshape(2, 3)
    producer = HandMade(backing, code=0, bits=16, strides=[1, 2])   # Fortran order
    a = simt.from_dlpack(producer)
    assert a.strides == (2, 4)
    np.testing.assert_array_equal(a.get(), np.ndarray((2, 3), np.int16, backing, strides=(2, 4)))
    assert producer.deleted == 0
    del a
    gc.collect()
    assert producer.deleted == 1


# ---------------------------------------------------------------- asarray

@needs_cpu
def test_asarray_of_numpy_on_the_cpu_is_zero_copy(rng):
    x = random_array(rng, (20, 30), np.float32)
    a = simt.asarray(x, device="cpu")
    assert data_pointer(a) == x.ctypes.data and a.shape == x.shape
    assert simt.asarray(a) is a
    b = simt.asarray([[1, 2], [3, 4]], device="cpu")
    np.testing.assert_array_equal(b.get(), [[1, 2], [3, 4]])


@needs_cpu
def test_asarray_of_unaligned_numpy_memory_copies_it(rng):
    # NumPy arrays unpickled from network frames (dask.distributed) may sit at any byte.
    x = random_array(rng, (7,), np.float64)
    raw = np.zeros(x.nbytes + 1, np.uint8)[1:].view(np.float64)
    raw[...] = x
    assert not raw.flags.aligned
    a = simt.asarray(raw, device="cpu")
    assert data_pointer(a) != raw.ctypes.data
    np.testing.assert_array_equal((a * 2).get(), x * 2)
    with pytest.raises(ValueError, match="not aligned to 8 bytes"):
        simt.asarray(raw, copy=False)


def test_asarray_and_from_dlpack_onto_other_devices(device, rng):
    x = random_array(rng, 100, np.float32)
    a = simt.asarray(x, device=device)
    assert a.device == device
    np.testing.assert_array_equal(a.get(), x)
    if device.host_accessible:
        assert data_pointer(a) == x.ctypes.data
        return
    # device= names where the array goes: a copy there (the array API's rule), unless
    # copy=False forbids it
    with pytest.raises(ValueError, match="copy=False"):
        simt.from_dlpack(x, device=device, copy=False)
    for copy in (None, True):
        b = simt.from_dlpack(x, device=device, copy=copy)
        assert b.device == device
        np.testing.assert_array_equal(b.get(), x)
    back = simt.asarray(a, device="cpu")
    np.testing.assert_array_equal(back.get(), x)
    moved = simt.from_dlpack(a, device="cpu")  # a simt array: the same rule
    assert moved.device == simt.get_device("cpu")
    np.testing.assert_array_equal(moved.get(), x)
    with pytest.raises(ValueError, match="copy=False"):
        simt.from_dlpack(a, device="cpu", copy=False)


@needs_cpu
def test_dlpack_export_copy_and_device_requests(rng):
    x = random_array(rng, 64, np.float64)
    a = simt.to_device(x, device="cpu")
    copied = np.from_dlpack(_Capsule(a.__dlpack__(max_version=(1, 0), copy=True)))
    assert copied.ctypes.data != data_pointer(a)
    np.testing.assert_array_equal(copied, x)
    same = np.from_dlpack(_Capsule(a.__dlpack__(max_version=(1, 0), dl_device=(1, 0),
                                                copy=False)))
    assert same.ctypes.data == data_pointer(a)
    with pytest.raises(BufferError, match="no streams"):
        a.__dlpack__(stream=1)
    with pytest.raises(BufferError, match="copy=False"):
        a.__dlpack__(dl_device=(2, 0), copy=False)


class _Capsule:
    """Hands NumPy a capsule made in advance (to test __dlpack__'s keywords)."""

    def __init__(self, capsule):
        self.capsule = capsule

    def __dlpack__(self, **kwargs):
        return self.capsule

    def __dlpack_device__(self):
        return (1, 0)


def opencl_devices():
    return [d for d in simt.devices() if d.backend == "opencl"]


@needs_cpu
@pytest.mark.skipif(not opencl_devices(), reason="no OpenCL device")
def test_opencl_arrays_cannot_be_exported_or_import_foreign_memory(rng):
    d = opencl_devices()[0]
    x = random_array(rng, 16, np.float32)
    a = simt.to_device(x, device=d)
    assert a.__dlpack_device__() == (4, d.index)
    with pytest.raises(BufferError, match="OpenCL memory has no DLPack device pointer"):
        a.__dlpack__()
    with pytest.raises(BufferError, match="OpenCL memory has no DLPack device pointer"):
        a.__dlpack__(max_version=(1, 0))
    with pytest.raises(BufferError, match="OpenCL memory has no DLPack device pointer"):
        a.__dlpack__(stream=-1)  # what mpi4py asks of memory that is not the CPU's
    # Asked for host memory and allowed to copy, it copies.
    host = np.from_dlpack(_Capsule(a.__dlpack__(max_version=(1, 0), dl_device=(1, 0),
                                                 copy=True)))
    np.testing.assert_array_equal(host, x)
    with pytest.raises(ValueError, match="OpenCL devices cannot view"):
        simt._core.import_dlpack(x.__dlpack__(), d)
    with pytest.raises(AttributeError, match="not CUDA memory"):
        a.__cuda_array_interface__


# ---------------------------------------------------------------- __cuda_array_interface__

class FakeCuda:
    def __init__(self, **cai):
        self.__cuda_array_interface__ = {"version": 3, "shape": (4,), "typestr": "<f4",
                                         "data": (0, False), "strides": None, **cai}


@pytest.mark.parametrize("cai, error, match", [
    ({"mask": object()}, NotImplementedError, "has a mask. Masked arrays are not supported"),
    ({"typestr": ">f4"}, TypeError, "byte order"),
    ({"typestr": "<f16"}, TypeError, "typestr '<f16', which is not a dtype simt supports"),
    ({"typestr": "zz"}, TypeError, "not a dtype simt supports"),
    ({"version": 9}, ValueError, "version 9"),
    ({"stream": 0}, ValueError, "stream 0"),
    ({"shape": "four"}, ValueError, "malformed"),
    ({"strides": (4, 4)}, ValueError, "2 strides for 1 dimensions"),
    ({"stream": "s"}, TypeError, "stream 's', not a stream handle"),
    ({"data": ("p", False)}, ValueError, "malformed: 'data' does not start with a pointer"),
    ({"shape": (4, -1)}, ValueError, "negative extent"),
    ({"shape": (2 ** 62, 4)}, ValueError, "more bytes than an int64"),
], ids=["mask", "big-endian", "float128", "typestr", "version", "stream0", "shape", "strides",
        "stream-type", "pointer", "negative", "overflow"])
def test_cuda_array_interface_is_checked(cai, error, match):
    with pytest.raises(error, match=match):
        simt.asarray(FakeCuda(**cai))


def test_kernel_arguments_find_the_interface_wherever_it_can_be():
    """The interface's lookup is skipped only for objects that cannot have it (NumPy's
    arrays and scalars: static types without it, no __dict__): an instance attribute, a
    property of an ndarray subclass, and a class given the attribute later are all read."""
    class Subclass(np.ndarray):
        @property
        def __cuda_array_interface__(self):
            return {"version": 3, "shape": (4, 1), "typestr": "<f4", "data": (0x1000, False)}

    class Later:
        pass

    assert str(simt.typeof(np.zeros(2, np.float32))) == "float32[::1]"
    assert str(simt.typeof(np.float32(1))) == "float32"
    assert str(simt.typeof(np.zeros(2, np.float32).view(Subclass))) == "float32[:, ::1]"
    assert str(simt.typeof(FakeCuda(shape=(2, 3), strides=None))) == "float32[:, ::1]"
    later = Later()
    with pytest.raises(TypeError, match="Later"):
        simt.typeof(later)
    Later.__cuda_array_interface__ = FakeCuda().__cuda_array_interface__
    assert str(simt.typeof(later)) == "float32[::1]"


def cuda_devices():
    return [d for d in simt.devices() if d.backend == "cuda"]


@pytest.mark.skipif(bool(cuda_devices()), reason="a CUDA device is present")
def test_cuda_array_interface_without_cuda_is_a_clear_error():
    with pytest.raises(ValueError, match="no CUDA device|not memory of any CUDA device"):
        simt.asarray(FakeCuda(data=(0x1000, False)))
    with pytest.raises(ValueError, match="no CUDA device"):
        simt.from_dlpack(FakeCuda())     # from_dlpack takes __cuda_array_interface__ too


# ---------------------------------------------------------------- PyTorch and CuPy on CUDA

needs_cuda = pytest.mark.skipif(not cuda_devices(), reason="no CUDA device")


def _torch():
    return pytest.importorskip("torch")


def _cupy():
    return pytest.importorskip("cupy")


@needs_cuda
def test_torch_views_a_simt_cuda_array(rng):
    torch = _torch()
    x = random_array(rng, 5000, np.float32)
    a = simt.to_device(x, device="cuda:0")
    t = torch.from_dlpack(a)
    assert t.device.type == "cuda" and t.data_ptr() == data_pointer(a)
    np.testing.assert_array_equal(t.cpu().numpy(), x)
    t.mul_(2)                                            # written by torch, read by simt
    torch.cuda.synchronize()
    np.testing.assert_allclose(a.get(), x * 2, rtol=1e-6)
    del a
    gc.collect()
    np.testing.assert_allclose(t.cpu().numpy(), x * 2, rtol=1e-6)   # t keeps the memory


@needs_cuda
def test_simt_kernel_writes_a_torch_tensor(rng):
    torch = _torch()
    x = random_array(rng, 3000, np.float32)
    src = torch.from_numpy(x).cuda()
    out = torch.full_like(src, float("nan"))
    a, o = simt.from_dlpack(src), simt.from_dlpack(out)
    assert a.device.id == f"cuda:{src.device.index}" and data_pointer(o) == out.data_ptr()
    affine[12, 256](a, o)
    simt.get_device(o.device.id).synchronize()
    np.testing.assert_allclose(out.cpu().numpy(), 2 * x + 1, rtol=1e-6)


@needs_cuda
def test_torch_on_another_stream_and_strided(rng):
    torch = _torch()
    x = random_array(rng, (64, 48), np.float64)
    stream = torch.cuda.Stream()
    with torch.cuda.stream(stream):
        t = torch.from_numpy(x).cuda() * 3
        view = t.t()[::3]
        a = simt.from_dlpack(view)                       # consumer passes stream 1
    np.testing.assert_allclose(a.get(), (3 * x).T[::3])
    b = simt.asarray(t)                                  # DLPack
    np.testing.assert_allclose(b.get(), 3 * x)
    c = simt.asarray(FakeCudaOf(t.t()))                 # __cuda_array_interface__, strided
    assert c.strides == (8, 48 * 8) and data_pointer(c) == t.data_ptr()
    np.testing.assert_allclose(c.get(), (3 * x).T)


@needs_cuda
def test_simt_asarray_of_torch_keeps_it_alive(rng):
    torch = _torch()
    x = random_array(rng, 1024, np.int32)
    t = torch.from_numpy(x).cuda()
    a = simt.asarray(FakeCudaOf(t))                      # __cuda_array_interface__
    assert data_pointer(a) == t.data_ptr() and not a.readonly
    b = simt.from_dlpack(FakeCudaOf(t))                  # the same through from_dlpack
    assert data_pointer(b) == t.data_ptr()
    del b
    del t
    gc.collect()
    torch.cuda.empty_cache()
    scale_in_place[4, 256](a, np.int32(-2))
    np.testing.assert_array_equal(a.get(), x * -2)


@needs_cuda
def test_cupy_views_simt_through_cuda_array_interface(rng):
    cupy = _cupy()
    x = random_array(rng, (30, 40), np.complex64)
    a = simt.to_device(x, device="cuda:0")
    c = cupy.asarray(a)
    assert c.data.ptr == data_pointer(a)
    np.testing.assert_array_equal(cupy.asnumpy(c), x)
    c2 = cupy.from_dlpack(a)
    assert c2.data.ptr == data_pointer(a)


@needs_cuda
def test_simt_views_cupy_both_ways(rng):
    cupy = _cupy()
    x = random_array(rng, 2000, np.float32)
    c = cupy.asarray(x)
    a = simt.asarray(FakeCudaOf(c))                      # __cuda_array_interface__
    assert data_pointer(a) == c.data.ptr and a.device.id == f"cuda:{c.device.id}"
    scale_in_place[8, 256](a, np.float32(0.5))
    a.device.synchronize()
    np.testing.assert_allclose(cupy.asnumpy(c), x * np.float32(0.5), rtol=1e-6)
    b = simt.from_dlpack(c)                              # DLPack
    assert data_pointer(b) == c.data.ptr and simt.asarray(c).device == a.device
    np.testing.assert_allclose(b.get(), x * np.float32(0.5), rtol=1e-6)
    readonly = FakeCudaOf(c, readonly=True)
    r = simt.asarray(readonly)
    assert r.readonly
    with pytest.raises(simt.TypingError, match="read-only"):
        write_first[1, 1](r)


class FakeCudaOf:
    """Only the __cuda_array_interface__ of `c` (a CuPy array or PyTorch tensor, which
    also offer DLPack, which simt.asarray would prefer), with chosen flags."""

    def __init__(self, c, readonly=None, stream="keep"):
        self.c = c
        cai = dict(c.__cuda_array_interface__)
        if readonly is not None:
            cai["data"] = (cai["data"][0], readonly)
        if stream != "keep":
            cai.update(version=3, stream=stream)
        self.__cuda_array_interface__ = cai


@needs_cuda
def test_cuda_array_interface_stream_is_honoured(rng):
    cupy = _cupy()
    x = random_array(rng, 1 << 20, np.float32)
    stream = cupy.cuda.Stream(non_blocking=True)
    with stream:
        c = cupy.asarray(x) * 2
    a = simt.asarray(FakeCudaOf(c, stream=stream.ptr))   # simt synchronizes on it
    np.testing.assert_allclose(a.get(), x * 2, rtol=1e-6)


@needs_cuda
def test_kernel_arguments_wait_for_the_interface_stream(rng):
    """A kernel argument whose interface names a non-blocking stream with pending
    writes is read after them (the launch synchronizes, as Numba's does)."""
    cupy = _cupy()
    x = random_array(rng, 1 << 22, np.float32)
    stream = cupy.cuda.Stream(non_blocking=True)
    host = cupy.cuda.alloc_pinned_memory(x.nbytes)
    staged = np.frombuffer(host, np.float32, x.size)
    staged[:] = x
    c = cupy.empty(x.size, np.float32)
    with stream:
        c.set(staged, stream=stream)            # asynchronous, pending on `stream`
        for _ in range(8):
            c *= 1.0                            # more work queued behind the copy
    out = simt.to_device(np.full(x.size, np.nan, np.float32), device="cuda:0")
    affine[(x.size + 255) // 256, 256](FakeCudaOf(c, stream=stream.ptr), out)
    np.testing.assert_allclose(out.get(), 2 * x + 1, rtol=1e-6)


@needs_cuda
def test_cupy_arrays_written_on_a_cupy_stream_are_read_after_the_writes(rng):
    """CuPy arrays (read through their attributes, not the interface) written on the
    current CuPy stream, a non-blocking one: kernels and snippet kernels, on first and
    warm calls, read them after the writes."""
    cupy = _cupy()
    n = 1 << 22
    stream = cupy.cuda.Stream(non_blocking=True)
    double = simt.ElementwiseKernel("float32 x", "float32 y", "y = 2 * x + 1", "double_on_stream")
    host = cupy.cuda.alloc_pinned_memory(n * 4)
    staged = np.frombuffer(host, np.float32, n)
    for _ in range(3):
        x = random_array(rng, n, np.float32)
        staged[:] = x
        out = simt.to_device(np.full(n, np.nan, np.float32), device="cuda:0")
        with stream:
            c = cupy.empty(n, cupy.float32)
            c.set(staged, stream=stream)
            for _ in range(8):
                c *= 1.0
            affine[(n + 255) // 256, 256](c, out)
            cout = cupy.full(n, cupy.nan, cupy.float32)
            double(c, cout)
            stream.synchronize()
        np.testing.assert_allclose(out.get(), 2 * x + 1, rtol=1e-6)
        np.testing.assert_allclose(cupy.asnumpy(cout), 2 * x + 1, rtol=1e-6)


@needs_cpu
def test_torch_on_the_cpu(rng):
    torch = _torch()
    x = random_array(rng, 100, np.float32)
    t = torch.from_numpy(x.copy())
    a = simt.from_dlpack(t)
    assert data_pointer(a) == t.data_ptr()
    scale_in_place[1, 128](a, np.float32(2))
    np.testing.assert_allclose(t.numpy(), x * 2, rtol=1e-6)
    b = simt.to_device(x, device="cpu")
    u = torch.from_dlpack(b)
    assert u.data_ptr() == data_pointer(b)
    np.testing.assert_array_equal(u.numpy(), x)


# ------------------------------------------------- foreign GPU arrays as kernel arguments

@pytest.mark.parametrize("cai, expected", [
    ({}, "float32[::1]"),
    ({"shape": (4, 6), "typestr": "<f8"}, "float64[:, ::1]"),
    ({"shape": (4, 6), "typestr": "<f8", "strides": (8, 32)}, "float64[::1, :]"),
    ({"shape": (4, 6), "typestr": "<i2", "strides": (24, 4)}, "int16[:, :]"),
    ({"data": (0, True), "typestr": "|b1"}, "readonly bool[::1]"),
    # Hand-made dicts: lists for tuples, a NumPy integer version, '>' on one-byte types.
    ({"shape": [4, 6], "strides": [24, 4], "data": [0, False], "version": np.int64(3)},
     "float32[:, ::1]"),
    ({"typestr": ">u1"}, "uint8[::1]"),
], ids=["default", "c", "f", "strided", "readonly", "lists", "one-byte"])
def test_kernel_arguments_read_the_cuda_array_interface(cai, expected):
    assert str(simt.typeof(FakeCuda(**cai))) == expected


class RaisingInterface:
    def __init__(self, error):
        self.error = error

    @property
    def __cuda_array_interface__(self):
        raise self.error


@pytest.mark.parametrize("value, match", [
    (FakeCuda(mask=np.zeros(4, bool)), "Masked arrays are not supported"),
    (FakeCuda(version=7), "version 7; simt reads versions 0 to 3"),
    (FakeCuda(typestr=">f4"), "byte order"),
    (FakeCuda(shape="four"), "malformed"),
    (FakeCuda(strides=(4, 4)), "2 strides for 1 dimensions"),
    (FakeCuda(typestr="<f16"), "typestr '<f16'"),
    (FakeCuda(data=(0,)), r"not \(pointer, read_only\)"),
    (RaisingInterface(RuntimeError("requires grad; use detach()")),
     "__cuda_array_interface__ failed: RuntimeError: requires grad"),
    # AttributeError: it has none (PyTorch's CPU tensors say so).
    (RaisingInterface(AttributeError("not on a GPU")), "do not accept RaisingInterface"),
], ids=["mask", "version", "big-endian", "shape", "strides", "typestr", "data", "raises",
        "attribute-error"])
def test_bad_cuda_array_interface_arguments_name_the_argument(value, match):
    with pytest.raises(TypeError, match=f"argument 'value': .*{match}"):
        simt.typeof(value)


@simt.kernel
def plus_one_2d(src, out):
    i, j = cuda.grid(2)
    if i < out.shape[0] and j < out.shape[1]:
        out[i, j] = src[i, j] + 1


@needs_cuda
@pytest.mark.parametrize("dtype", ["float32", "float64", "int32", "int64", "uint8",
                                   "float16", "complex64"])
def test_torch_tensors_are_kernel_arguments(rng, dtype):
    torch = _torch()
    x = random_array(rng, (40, 30), np.float32 if dtype == "float16" else np.dtype(dtype))
    if dtype == "float16":
        x = x.astype(np.float16)
    t = torch.from_numpy(x.copy()).cuda()
    for view, expected in [(t, x), (t.t(), x.T), (t[::3, 1:], x[::3, 1:]),
                           (t.t()[2:, ::2], x.T[2:, ::2])]:
        # The tensor's own attributes and its __cuda_array_interface__ say the same.
        assert simt.typeof(view) == simt.typeof(FakeCudaOf(view))
        out = torch.zeros(view.shape, dtype=view.dtype, device=view.device).t().contiguous().t()
        out.fill_(99)
        plus_one_2d[(8, 8), (8, 8)](view, out)
        torch.cuda.synchronize()
        np.testing.assert_array_equal(out.cpu().numpy(), expected + expected.dtype.type(1))


@needs_cuda
def test_torch_tensors_simt_cannot_take_say_why():
    torch = _torch()
    grad = torch.ones(8, device="cuda", requires_grad=True)
    with pytest.raises(TypeError, match="argument 'src': .*requires grad"):
        plus_one_2d[1, 1](grad, grad.detach())
    z = torch.ones((4, 4), dtype=torch.complex64, device="cuda")
    with pytest.raises(TypeError, match="argument 'src': .*conj"):
        plus_one_2d[1, 1](z.conj(), z)
    with pytest.raises(TypeError, match="argument 'src': .*neg"):
        plus_one_2d[1, 1](z.conj().imag, z.real)
    with pytest.raises(TypeError, match="argument 'src': .*do not accept Tensor"):
        plus_one_2d[1, 1](torch.ones((4, 4)), z.real)     # a CPU tensor on a CUDA launch


@needs_cuda
def test_cupy_arrays_are_kernel_arguments(rng):
    cupy = _cupy()
    x = random_array(rng, (40, 30), np.float64)
    c = cupy.asarray(x)
    for view, expected in [(c, x), (c.T, x.T), (c[::3, 1:], x[::3, 1:])]:
        assert simt.typeof(view) == simt.typeof(FakeCudaOf(view))
        out = cupy.full(view.shape, np.nan)
        plus_one_2d[(8, 8), (8, 8)](view, out)
        cupy.cuda.runtime.deviceSynchronize()
        np.testing.assert_array_equal(cupy.asnumpy(out), expected + 1)


def test_numpy_data_goes_to_the_current_device_in_a_build_without_the_cpu_device(
        monkeypatch):
    """A build without LLVM has no cpu device: the core's asarray (what kernels and the
    facades take NumPy data through) then copies to the current device instead of failing
    to find 'cpu'. (simt.asarray puts host data on the current device in every build.)"""
    from simt import _interop
    monkeypatch.setattr(_interop, "_has_cpu_device", lambda: False)
    host = np.arange(6, dtype=np.float32).reshape(2, 3)
    a = _interop.asarray(host)
    assert a.device == simt.current_device()
    np.testing.assert_array_equal(a.get(), host)
    host[0, 0] = 99  # a copy, not a view
    assert a.get()[0, 0] == 0


def test_cuda_array_interface_of_cuda_arrays(rng):
    """What simt's CUDA arrays export: the protocol's pointer 0 for an array without
    elements (numba-cuda's test_zero_size_array), the data pointer otherwise, and a view
    that reads the same memory."""
    cuda_devices = simt._device.backend_devices("cuda")
    if not cuda_devices:
        pytest.skip("no CUDA device")
    d = cuda_devices[0]
    x = rng.standard_normal((3, 4)).astype(np.float32)
    a = simt.to_device(x, device=d)
    cai = a.__cuda_array_interface__
    assert cai["data"][0] == data_pointer(a) != 0 and cai["shape"] == (3, 4)
    assert simt.empty(0, np.float32, device=d).__cuda_array_interface__["data"][0] == 0
    assert simt.empty((4, 0), np.float32, device=d).__cuda_array_interface__["data"][0] == 0
    np.testing.assert_array_equal(simt.asarray(FakeCudaOf(a)).get(), x)


def test_vectorizers_write_into_another_librarys_array(rng):
    """out= of a CUDA vectorize or guvectorize may be any __cuda_array_interface__ array
    (numba-cuda's test_ufunc_arg and test_gufunc_arg): written in place, and returned as a
    simt array over the same memory."""
    cuda_devices = simt._device.backend_devices("cuda")
    if not cuda_devices:
        pytest.skip("no CUDA device")
    d = cuda_devices[0]

    @cuda.vectorize(["float64(float64, float64)"])
    def vadd(a, b):
        return a + b

    @cuda.guvectorize(["void(float64, float64, float64[:])"], "(),()->()")
    def gvadd(a, b, out):
        out[0] = a + b

    x = rng.standard_normal(10)
    for fn in (vadd, gvadd):
        target = simt.full(10, np.nan, device=d)
        returned = fn(x, 6.0, out=FakeCudaOf(target))
        np.testing.assert_array_equal(target.get(), x + 6.0)
        assert data_pointer(returned) == data_pointer(target)
