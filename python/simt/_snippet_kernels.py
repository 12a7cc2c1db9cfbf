"""Snippet kernels: CuPy's ElementwiseKernel and ReductionKernel.

The snippets are C expressions and statements, pasted into a kernel generated in the
device's language (CUDA C++ or OpenCL C; the cpu device compiles CUDA C++, as CuPy's
kernels are written) and compiled as a raw kernel (_raw_kernels).
The dialect's spellings (C types, qualifiers, index expressions, the barrier) are the
emitter's own, read from its dialect table in C++ (``_core.dialect_spellings``).
"""

import functools
import re

import numpy as np

from . import _broadcast, _core, _interop
from ._array import Array, empty
from ._axes import normalize_axes
from ._launch import CHUNKED, GRID_STRIDE, elementwise_config, loop_form
from ._device import get_device
from ._cuda_to_opencl import OPENCL_CARRAY, carray_uses_for_opencl, spelled_for_opencl
from ._raw_kernels import RawModule, _strings

# The dialects snippets are written in: CUDA C++ (on cuda:N and on the cpu device, which
# compiles CUDA C++ as C++) and OpenCL C.
_DIALECTS = ("cuda", "opencl")

# The dtypes snippet parameters may have.
_DTYPES = frozenset(("bool", "int8", "uint8", "int16", "uint16", "int32", "uint32", "int64",
                     "uint64", "float32", "float64"))


@functools.cache
def _dialect(name):
    """The spellings a snippet kernel's source needs in dialect `name`, from the emitter's
    dialect table: {kernel, global_ptr, index, first, step, local_id, group_id, shared,
    barrier, function, types, uindex, qualifiers, carray}."""
    d = _core.dialect_spellings(name)
    index = d["value_types"]["int64"]
    tid, bid = d["index_objects"]["thread_idx"][0], d["index_objects"]["block_idx"][0]
    bdim, gdim = d["index_objects"]["block_dim"][0], d["index_objects"]["grid_dim"][0]
    # Kernels take array elements and scalars in their storage form, as the
    # emitter's kernels do (OpenCL kernels may not take bool parameters).
    types = {t: d["storage_types"][t] for t in _DTYPES}
    if name == "cuda":
        # Kept here, as the table has no such field: CUDA's bool is one byte,
        # its storage, so a snippet's bool parameter is a `bool` (references
        # to a bool array's elements then store 0 or 1, as in CuPy).
        types["bool"] = d["value_types"]["bool"]
    return dict(kernel=d["kernel_prefix"] + "void", global_ptr=d["global_space"], index=index,
                uindex=d["value_types"]["uint64"],
                first=f"({index}){bid} * {bdim} + {tid}", step=f"({index}){bdim} * {gdim}",
                groups=gdim,
                local_id=tid, group_id=bid, shared=d["shared_decl"], barrier=d["barrier"],
                function=d["function_prefix"], types=types, qualifiers=d["cuda_qualifiers"],
                carray=_CARRAY if name == "cuda" else OPENCL_CARRAY)


# CuPy's CArray for `raw` parameters in CUDA C++: `x[i]` is the i-th element in C order
# of the array's own shape, `x[idx]` with an int array of ndim indices is that element
# (CuPy's multi-dimensional index), `x.size()`, `x.shape()`, `x.strides()` (in bytes).
# OpenCL C has no operator overloading: there a raw parameter is a pointer to the view's
# first element.
_CARRAY = """template <typename T, int _ndim>
class CArray {
 public:
  T* data_;
  long long shape_[_ndim];
  long long strides_[_ndim];
  int contiguous_;
  __device__ T& operator[](long long i) const {
    if (contiguous_) return data_[i];
    long long offset = 0;
    for (int d = _ndim - 1; d >= 0; --d) {
      offset += (i % shape_[d]) * strides_[d];
      i /= shape_[d];
    }
    return *(T*)((char*)data_ + offset);
  }
  template <typename I>
  __device__ T& operator[](const I (&idx)[_ndim]) const {
    long long offset = 0;
    for (int d = 0; d < _ndim; ++d) offset += (long long)idx[d] * strides_[d];
    return *(T*)((char*)data_ + offset);
  }
  __device__ long long size() const {
    long long n = 1;
    for (int d = 0; d < _ndim; ++d) n *= shape_[d];
    return n;
  }
  __device__ const long long* shape() const { return shape_; }
  __device__ const long long* strides() const { return strides_; }
  __device__ T* data() const { return data_; }
  __device__ operator T*() const { return data_; }
};
"""


_RESERVED = {"i", "n"}


class _Param:
    __slots__ = ("type", "name", "raw")

    def __init__(self, type_, name, raw):
        self.type, self.name, self.raw = type_, name, raw

    @property
    def placeholder(self):
        return self.type not in _DTYPES


def _parse_params(text, what):
    """'float32 x, raw T y' as [_Param]; dtype names are concrete, other names placeholders."""
    if not isinstance(text, str):
        raise TypeError(f"{what} is a string such as 'float32 x, T y', not {type(text).__name__}")
    params = []
    for item in filter(None, (p.strip() for p in text.split(","))):
        words = item.split()
        raw = words[0] == "raw"
        if raw:
            words = words[1:]
        if len(words) != 2 or not words[1].isidentifier() or not words[0].isidentifier():
            raise ValueError(f"{what}: {item!r} is not a parameter ('float32 x', 'raw T y')")
        type_, name = words
        # NumPy's type names ("float32", "int", "bool") are concrete types; any
        # other name ("T", "X") is a placeholder bound from the arguments.
        if len(type_) > 1 and type_ in np.sctypeDict:
            type_ = np.dtype(type_).name
        if type_ in ("float16", "complex64", "complex128"):
            raise ValueError(f"{what}: {type_} parameters are not supported in snippet kernels")
        if name in _RESERVED or name.startswith("_"):
            raise ValueError(f"{what}: the name {name!r} is reserved (i, n and names starting "
                             f"with _ are the kernel's own)")
        params.append(_Param(type_, name, raw))
    names = [p.name for p in params]
    if len(set(names)) != len(names):
        raise ValueError(f"{what}: a parameter name repeats")
    return params


def _foreign_array(value):
    """A GPU array of another library (CuPy, PyTorch, JAX, Numba: DLPack or
    __cuda_array_interface__) as a simt array over the same memory, as CuPy's kernels
    take them; anything else as it is (NumPy arrays stay refused: host memory)."""
    if value is None or isinstance(value, (Array, np.ndarray, np.generic, int, float, bool,
                                           complex)):
        return value
    if hasattr(value, "__dlpack_device__"):
        try:
            on_host = value.__dlpack_device__()[0] in (1, 3)  # kDLCPU, kDLCUDAHost
        except Exception:
            return value
        return value if on_host else _interop.asarray(value)
    if _interop._cuda_array_interface(value) is not None:
        return _interop.asarray(value)
    return value


def _snippet_device(args, device):
    if device is not None:
        return get_device(device)
    for a in args:
        if isinstance(a, Array):
            return a.device
    return get_device()


def _dialect_of(device, what):
    """The language a snippet kernel's source is written in on `device`: OpenCL C on an
    OpenCL device, else CUDA C++ (the cpu device compiles CUDA C++ as C++)."""
    del what
    return "opencl" if device.backend == "opencl" else "cuda"


def _bind_types(params, values, types, what):
    """Fills `types` (placeholder -> dtype) from the arrays (and typed scalars) given."""
    for p, v in zip(params, values):
        if not p.placeholder or v is None:
            continue
        dtype = v.dtype if isinstance(v, (Array, np.generic)) else None
        if dtype is None:
            continue
        bound = types.setdefault(p.type, dtype.name)
        if bound != dtype.name:
            raise TypeError(f"{what}: {p.type} is {bound} from an earlier argument but "
                            f"{p.name!r} is {dtype.name}")
    for p, v in zip(params, values):
        if p.placeholder and p.type not in types and v is not None:
            # Only Python numbers: their NumPy type.
            types[p.type] = np.asarray(v).dtype.name


def _offset_view(array, what, name):
    """(the array's whole buffer as a 1-D array, the view's first element in it): OpenCL
    buffers start at an allocation, never inside one."""
    impl = array._impl
    itemsize = impl.itemsize
    if impl.offset % itemsize:
        raise ValueError(f"{what}: {name!r} does not start on a multiple of its item size")
    base = Array._wrap(impl.view(0, [impl.buffer_bytes // itemsize], [itemsize]))
    return base, impl.offset // itemsize


def _element_strides(array, shape, what, name):
    """The array's strides in elements over the broadcast `shape` (0 where broadcast)."""
    itemsize = array.itemsize
    own = list(zip(array.shape, array.strides))
    lead = len(shape) - len(own)
    out = []
    for d, extent in enumerate(shape):
        if d < lead:
            out.append(0)
            continue
        e, s = own[d - lead]
        if s % itemsize:
            raise ValueError(f"{what}: {name!r} has strides that are not a multiple of its "
                             f"item size")
        out.append(0 if e == 1 and extent != 1 else s // itemsize)
    return out


# OpenCL C's reserved words a kernel may be named (CuPy's default name is "kernel").
_OPENCL_RESERVED = frozenset(("kernel", "global", "local", "constant", "private", "half",
                              "read_only", "write_only", "read_write", "uniform", "pipe"))


def _entry_name(dialect, name):
    """The generated kernel's name: the snippet kernel's own, but for OpenCL C's reserved
    words, which take a trailing underscore there."""
    return f"{name}_" if dialect == "opencl" and name in _OPENCL_RESERVED else name


def _spelled_for(dialect, source):
    """`source` (a snippet kernel's whole text) as `dialect` takes it: CUDA C++ as written;
    OpenCL C respelled (_cuda_to_opencl.spelled_for_opencl)."""
    return spelled_for_opencl(source) if dialect == "opencl" else source


class _Generated:
    """One kernel signature: the raw kernel(s) and how to pass the arguments."""

    def __init__(self, source, names, options, device):
        source = _spelled_for(_dialect_of(device, ""), source)
        # The language named: the source is already the device's (no translation tried).
        module = RawModule(source, options=options, device=device,
                           backend="opencl" if device.backend == "opencl" else "cuda")
        self.kernels = [module.get_function(n) for n in names]
        self.source = source
        self._blocks = None

    def first_pass_blocks(self, block, fallback, device):
        """Blocks of a reduction's grid-stride first pass (kernels[0]): one full wave of
        resident blocks on a CUDA device (its occupancy, from the kernel's registers: a
        fixed count that is not a multiple of it leaves a partly idle last wave), else
        `fallback` (the cpu device: a few blocks per hardware thread)."""
        if self._blocks is None:
            resident = 0
            if device.backend == "cuda":
                resident = self.kernels[0].max_resident_blocks(block, device=device)
            elif device.backend == "cpu":
                # A block per hardware thread and a few more to balance: each block's
                # threads are fibers of one OS thread, which pays for each barrier.
                resident = 4 * max(device.compute_units, 1)
            self._blocks = resident if resident > 0 else fallback
        return self._blocks


class _SnippetKernel:
    def __init__(self, in_params, out_params, name, preamble, options, what):
        if not isinstance(name, str) or not name.isidentifier():
            raise ValueError(f"{what}: the name must be an identifier, not {name!r}")
        self.name = name
        self.in_params = _parse_params(in_params, f"{what} {name} in_params")
        self.out_params = _parse_params(out_params, f"{what} {name} out_params")
        self.preamble = preamble or ""
        self.options = tuple(_strings(options, "options"))
        self.nin, self.nout = len(self.in_params), len(self.out_params)
        clash = {p.name for p in self.in_params} & {p.name for p in self.out_params}
        if clash:
            raise ValueError(f"{what} {name}: {sorted(clash)} are both inputs and outputs")
        self._cache = {}
        self._fast = {}  # ElementwiseKernel: _fast_key -> _FastCall
        self._what = f"{what} {name}"

    def __getstate__(self):
        # Compiled kernels and warm-call layouts belong to this process's devices: a copy
        # (pickled for a Dask worker) compiles its own.
        state = dict(self.__dict__)
        state["_cache"], state["_fast"] = {}, {}
        device = state.get("_device")
        if device is not None and not isinstance(device, str):
            state["_device"] = device.id
        return state

    def __setstate__(self, state):
        self.__dict__.update(state)

    def _ctype(self, dialect, dtype):
        try:
            return _dialect(dialect)["types"][dtype]
        except KeyError:
            raise TypeError(f"{self._what}: {dtype} is not supported in snippet kernels") from None

    def _resolve(self, params, types):
        out = []
        for p in params:
            dtype = types.get(p.type) if p.placeholder else p.type
            if dtype is None:
                raise TypeError(f"{self._what}: the type {p.type} of {p.name!r} is not known "
                                f"from the arguments; pass an array for it")
            out.append(dtype)
        return out

    def _head(self, dialect, types):
        """What precedes the kernels: the placeholders' typedefs (CuPy's, at file scope, so
        the preamble may use them), CUDA's qualifiers where the dialect needs them spelled,
        CArray (CUDA C++), then the preamble."""
        d = _dialect(dialect)
        typedefs = "".join(f"typedef {self._ctype(dialect, t)} {name};\n"
                           for name, t in types.items())
        return f"{typedefs}{d['qualifiers']}{d['carray']}{self.preamble}\n"

    def _typed_args(self, args, dialect):
        """(dialect, in types, out types, {input: is an array}, placeholder types, raw
        arrays' dimensions) of a call, for generated_source."""
        _, dialect, ins, outs, types = self._prepare(args, self._device, type(self).__name__,
                                                     dialect)
        in_types = self._resolve(self.in_params, types)
        out_types = self._resolve(self.out_params, types)
        is_array = {p.name: isinstance(v, Array) for p, v in zip(self.in_params, ins)}
        return dialect, in_types, out_types, is_array, types, self._raw_ndims(ins, outs)

    def _raw_ndims(self, ins, outs):
        """{raw parameter: the dimensions of its CArray} (at least 1)."""
        return {p.name: max(v.ndim, 1) for p, v in zip(self.in_params + self.out_params,
                                                       list(ins) + list(outs))
                if p.raw and isinstance(v, Array)}

    def _raw_load(self, dialect, p, c, raw_nd):
        """The statement giving a raw parameter its value: a CArray in CUDA C++, a pointer
        to the view's first element in OpenCL C."""
        d = _dialect(dialect)
        n = p.name
        k = raw_nd[n]
        extents = ", ".join(f"_r{j}_{n}" for j in range(k))
        strides = ", ".join(f"_q{j}_{n}" for j in range(k))
        if dialect == "opencl":
            steps = ", ".join(f"_q{j}_{n} / (long)sizeof({c})" for j in range(k))
            return (f"    {d['global_ptr']}{c}* {n} = _p_{n} + _o_{n};\n"
                    f"    const long _shape_{n}[{k}] = {{{extents}}};\n"
                    f"    const long _strides_{n}[{k}] = {{{strides}}};\n"
                    f"    const long _step_{n}[{k}] = {{{steps}}};\n")
        return (f"    const CArray<{c}, {k}> {n} = {{_p_{n} + _o_{n}, {{{extents}}}, "
                f"{{{strides}}}, _c_{n}}};\n")

    def _input_params(self, dialect, in_types, is_array, nd, raw_nd):
        """The C parameters of the inputs, the statement loading each input's value (one
        per input, in order; raw inputs: a CArray or a pointer), and the inputs indexed per
        element."""
        params, loads, indexed = [], [], []
        for p, t in zip(self.in_params, in_types):
            c = self._ctype(dialect, t)
            if is_array[p.name]:
                params.append(self._array_params(dialect, p, c, nd, raw_nd))
                if p.raw:
                    loads.append(self._raw_load(dialect, p, c, raw_nd))
                else:
                    indexed.append(p)
                    loads.append(f"    const {c} {p.name} = _p_{p.name}[_e_{p.name}];\n")
            else:
                params.append(f"{c} _v_{p.name}")
                loads.append(f"    const {c} {p.name} = _v_{p.name};\n")
        return params, loads, indexed

    def _prepare(self, args, device, what, dialect=None):
        """Validates the arguments: (device, dialect, inputs, outputs given, types). A
        dialect given (for inspection) replaces the device's."""
        if len(args) not in (self.nin, self.nin + self.nout):
            raise TypeError(f"{self._what} takes {self.nin} inputs"
                            + (f" (and optionally {self.nout} outputs)" if self.nout else "")
                            + f", not {len(args)} arguments")
        args = [_foreign_array(v) for v in args]
        dev = _snippet_device(args, device)
        if dialect is None:
            dialect = _dialect_of(dev, what)
        elif dialect not in _DIALECTS:
            raise ValueError(f"dialect must be 'cuda' or 'opencl', not {dialect!r}")
        ins, outs = list(args[:self.nin]), list(args[self.nin:]) or [None] * self.nout
        for p, v in zip(self.in_params + self.out_params, ins + outs):
            if v is None:
                continue
            if isinstance(v, Array):
                if v.device != dev:
                    raise ValueError(f"{self._what}: {p.name!r} is on {v.device.id}, the kernel "
                                     f"runs on {dev.id}")
                if p in self.out_params and v.readonly:
                    raise ValueError(f"{self._what}: the output {p.name!r} is read-only")
                # A fixed type is the array's dtype (CuPy's "Type is mismatched"): the
                # kernel would read the bytes as another type.
                if not p.placeholder and not p.raw and v.dtype != np.dtype(p.type):
                    raise TypeError(f"{self._what}: {p.name!r} is declared {p.type} but the "
                                    f"array is {v.dtype}")
            elif isinstance(v, np.ndarray):
                raise TypeError(f"{self._what}: {p.name!r} is a NumPy array; copy it to the "
                                f"device with simt.to_device")
            elif p in self.out_params:
                raise TypeError(f"{self._what}: the output {p.name!r} must be a simt array")
            elif p.raw:
                raise TypeError(f"{self._what}: the raw parameter {p.name!r} must be an array")
            elif not isinstance(v, (int, float, bool, np.generic)):
                raise TypeError(f"{self._what}: {p.name!r} must be an array or a number, "
                                f"not {type(v).__name__}")
        types = {}
        _bind_types(self.in_params + self.out_params, ins + outs, types, self._what)
        return dev, dialect, ins, outs, types

    def _array_params(self, dialect, p, ctype, nd, raw_nd):
        g = _dialect(dialect)["global_ptr"]
        idx = _dialect(dialect)["index"]
        text = f"{g}{ctype}* _p_{p.name}, {idx} _o_{p.name}"
        if not p.raw:
            text += "".join(f", {idx} _t{d}_{p.name}" for d in range(nd))
        else:
            k = raw_nd[p.name]
            text += "".join(f", {idx} _r{j}_{p.name}" for j in range(k))
            text += "".join(f", {idx} _q{j}_{p.name}" for j in range(k))
            text += f", int _c_{p.name}"
        return text

    def _array_args(self, p, value, shape, nd, dialect):
        base, offset = _offset_view(value, self._what, p.name)
        args = [base, int(offset)]
        if p.raw:
            # CArray's shape, strides in bytes (CuPy's) and whether it is C-contiguous.
            extents = [int(e) for e in value.shape] or [1]
            strides = [int(t) for t in value.strides] or [0]
            args += extents + strides + [np.int32(value._contiguous())]
        if not p.raw:
            strides = [1] if nd == 1 and len(shape) != 1 else \
                _element_strides(value, shape, self._what, p.name)
            args += [int(s) for s in strides]
        return args

    def _index_code(self, params, nd, dialect, unit=False):
        """Per-thread code giving each non-raw array's element offset `_e_<name>` for index i
        (`unit`: one dimension, every stride 1, the loop's own 64-bit `_i` as the index: an
        address the C++ compiler sees as consecutive, so the loop vectorizes)."""
        names = [p.name for p in params]
        idx = _dialect(dialect)["index"]
        lines = [f"    {idx} _e_{n} = _o_{n};" for n in names]
        if unit:
            lines += [f"    _e_{n} += _i;" for n in names]
            return "\n".join(lines) + "\n"
        if nd == 1:
            lines += [f"    _e_{n} += i * _t0_{n};" for n in names]
            return "\n".join(lines) + "\n"
        lines.append(f"    {idx} _rest = i, _c;")
        for d in reversed(range(nd)):
            lines.append(f"    _c = _rest % _s{d}; _rest /= _s{d};")
            lines += [f"    _e_{n} += _c * _t{d}_{n};" for n in names]
        return "\n".join(lines) + "\n"


def _expand_strides(value, kept, nd):
    """A result's strides in bytes over all `nd` axes (0 on the reduced ones)."""
    strides = [0] * nd
    for d, s in zip(kept, value.strides):
        strides[d] = s
    return strides


def _axes_block(length):
    """Threads per block of a reduction over some axes, for `length` elements per output."""
    return 256 if length > 128 else max(32, 1 << max(length - 1, 0).bit_length())


def _chunk(d, idx, count, name):
    """The bounds `<name>_b` <= k < `<name>_e` of this thread's chunk of `count` items in
    _launch's CHUNKED layout (count // threads + 1 items each), as C declarations."""
    return (f"  const {idx} {name}_c = {count} / ({d['step']}) + 1;\n"
            f"  const {idx} {name}_b = ({d['first']}) * {name}_c;\n"
            f"  const {idx} {name}_e = {count} - {name}_b < {name}_c ? {count} : "
            f"{name}_b + {name}_c;\n")


def _size_alias(snippet, index_type):
    """`n`, the element count, where the snippet uses it (unused, NVRTC warns)."""
    return f"  const {index_type} n = _n;\n" if re.search(r"\bn\b", snippet) else ""


# Inputs a reduction loads as 16-byte vectors where contiguous (plain C scalar types).
_VECTOR_DTYPES = frozenset(("int8", "int16", "int32", "int64", "uint8", "uint16", "uint32",
                            "uint64", "float32", "float64"))


def _vector_width(dtypes):
    """Elements per vector load for inputs of these dtypes: 16 bytes of the widest; 0
    where there is no input or one is not a plain scalar type."""
    if not dtypes or any(t not in _VECTOR_DTYPES for t in dtypes):
        return 0
    return 16 // max(np.dtype(t).itemsize for t in dtypes)


def _contiguous_full(value, shape):
    return isinstance(value, Array) and tuple(value.shape) == tuple(shape) and value._contiguous()


_SCALARS = (int, float, bool, complex)


def _scalar_value(dtype, value, dialect):
    """A scalar argument as the kernel's parameter takes it: a bool as one byte (CUDA's
    bool, OpenCL's uchar), other types as their NumPy scalar."""
    if dtype == "bool":
        return np.bool_(value) if dialect == "cuda" else np.uint8(bool(value))
    return np.dtype(dtype).type(value)


# What decides a call's launch, read cheaply (in C++, src/python/snippet_keys.cpp): each
# array's dtype, layout, offset and device, each scalar's type (an int's range); None for
# anything else.
_fast_key = _core.snippet_call_key


def _call_slices(params, call, given, widths):
    """Where each parameter's arguments stand in a first call's launch arguments `call`
    (contiguous arrays from their buffer's start, so one stride each), each parameter
    having `widths[k]` of them: a list of (the argument's index, or None for an output
    the call allocates (index >= `given`), the values after it (offset, stride; a raw
    CArray's shape too), how to convert a scalar (None for an array)), and where the
    parameters' arguments end in `call`."""
    slices, at = [], 0
    for index, (p, width) in enumerate(zip(params, widths)):
        is_array = call[at].__class__ is Array
        slices.append((index if index < given else None, tuple(call[at + 1:at + width]),
                       None if is_array else type(call[at])))
        at += width
    return slices, at


class _FastCall:
    """A call repeated with arguments of the same types and layouts (CuPy's warm call):
    outputs not given allocated, the arguments put in the places the first call's
    launch had them, the kernel launched; no type binding, shape broadcasting or lookup.
    Only for calls whose arrays are all contiguous over the whole shape from their
    buffer's start (the pointer is the array itself, its offset 0)."""

    __slots__ = ("launch", "parts", "tail", "allocations", "single", "nin")

    def __init__(self, kernel, launch, call, widths, nargs, shape, out_types, device):
        self.launch = launch
        self.parts, at = _call_slices(kernel.in_params + kernel.out_params, call, nargs, widths)
        self.tail = tuple(call[at:])
        out_dtypes = [np.dtype(t).name for t in out_types]
        self.allocations = [(list(shape), d, device) for d in out_dtypes]
        self.single = len(out_types) == 1
        self.nin = kernel.nin

    def __call__(self, args):
        call, outs, allocations = [], [], iter(self.allocations)
        for index, extra, convert in self.parts:
            if index is None:
                shape, dtype, device = next(allocations)
                value = Array._wrap(_core.empty(shape, dtype, device, "C"))
                outs.append(value)
            else:
                value = args[index]
                if convert is not None:
                    value = convert(value)
            call.append(value)
            call.extend(extra)
        if self.launch is not None:
            call.extend(self.tail)
            self.launch(*call)
        if not outs:  # the outputs were given
            outs = args[self.nin:]
        return outs[0] if self.single else tuple(outs)


class _FastReduction:
    """ReductionKernel's warm call (as _FastCall): the partial results and the outputs not
    given allocated, both launches made with the first call's argument layout; or, where
    one block covers the input (`partial` None), the one launch that reduces and writes
    the outputs."""

    __slots__ = ("partial_launch", "final_launch", "inputs", "tail", "partial", "outputs",
                 "nin", "single")

    def __init__(self, kernel, partial_launch, final_launch, call, widths, partial, out_types,
                 nargs, device):
        self.partial_launch, self.final_launch = partial_launch, final_launch
        # The first launch's arguments: the inputs, then (two launches) the partial array,
        # and the element count (and extents).
        self.inputs, at = _call_slices(kernel.in_params, call, kernel.nin, widths)
        self.tail = tuple(call[at + (partial is not None):])
        self.partial = None
        if partial is not None:
            blocks, rtype = partial
            self.partial = ([blocks], np.dtype(rtype).name, device)
        # Outputs: given ones (argument index) or allocated ones (dtype), each passed with
        # offset 0 after the rest.
        given = nargs > kernel.nin
        self.outputs = [(kernel.nin + k if given else None, np.dtype(t).name, device)
                        for k, t in enumerate(out_types)]
        self.nin = kernel.nin
        self.single = len(out_types) == 1

    def __call__(self, args):
        call = []
        for index, extra, convert in self.inputs:
            value = args[index]
            call.append(value if convert is None else convert(value))
            call.extend(extra)
        outs, out_args = [], []
        for index, dtype, device in self.outputs:
            out = args[index] if index is not None else \
                Array._wrap(_core.empty([], dtype, device, "C"))
            outs.append(out)
            out_args += [out, _ZERO]
        if self.partial is None:
            call.extend(self.tail)
            call.extend(out_args)
            self.partial_launch(*call)
        else:
            shape, dtype, device = self.partial
            partial = Array._wrap(_core.empty(shape, dtype, device, "C"))
            call.append(partial)
            call.extend(self.tail)
            self.partial_launch(*call)
            self.final_launch(partial, int(shape[0]), *out_args)
        return outs[0] if self.single else tuple(outs)


_ZERO = 0


class ElementwiseKernel(_SnippetKernel):
    """CuPy's ElementwiseKernel: ``ElementwiseKernel('float32 x, float32 y', 'float32 z',
    'z = (x - y) * (x - y)', 'squared_diff')``.

    The operation (a C statement) runs once per element ``i`` of the broadcast shape, with
    each input's element (or the scalar given for it) and each output's element by name;
    ``n`` (also ``_ind.size()``) is the element count. Types are dtype names or
    placeholders (``T``) bound from the arguments' dtypes. ``raw`` parameters are passed as
    pointers to index by hand. Outputs not passed are allocated. On a CUDA device the
    snippets are CUDA C++, on an OpenCL device OpenCL C (simple expressions are both).
    """

    def __init__(self, in_params, out_params, operation, name="kernel", *, preamble="",
                 options=(), device=None):
        super().__init__(in_params, out_params, name, preamble, options, "ElementwiseKernel")
        if not isinstance(operation, str):
            raise TypeError("the operation is a string of C code")
        self.operation = operation
        self._device = device

    def __call__(self, *args, size=None, block_size=256, stream=None):
        fast_key = _fast_key(args, block_size) if size is None and stream is None else None
        if fast_key is not None:
            fast = self._fast.get(fast_key)
            if fast is not None:
                return fast(args)
        dev, dialect, ins, outs, types = self._prepare(args, self._device, "ElementwiseKernel")
        in_types = self._resolve(self.in_params, types)
        out_types = self._resolve(self.out_params, types)
        shapes = [v.shape for p, v in zip(self.in_params + self.out_params, ins + outs)
                  if isinstance(v, Array) and not p.raw]
        try:
            shape = np.broadcast_shapes(*shapes) if shapes else None
        except ValueError:
            raise ValueError(f"{self._what}: shapes {shapes} do not broadcast") from None
        if shape is None:
            if size is None:
                raise ValueError(f"{self._what}: no array sets the loop's size; pass size=")
            shape = (int(size),)
        elif size is not None:
            # CuPy's rule: the arrays set the size, or size= does (raw arrays only).
            raise ValueError(f"{self._what}: size= is given, but the arrays already set the "
                             f"loop's size {shape}")
        for p, v in zip(self.out_params, outs):
            if p.raw and v is None:
                raise TypeError(f"{self._what}: the raw output {p.name!r} must be given")
            if v is not None and not p.raw and tuple(v.shape) != tuple(shape):
                raise ValueError(f"{self._what}: the output {p.name!r} has shape {v.shape}, "
                                 f"the broadcast shape is {shape}")
        outs = [v if v is not None else empty(shape, dtype=t, device=dev)
                for v, t in zip(outs, out_types)]
        elementwise = [(p, v) for p, v in zip(self.in_params + self.out_params, ins + outs)
                       if isinstance(v, Array) and not p.raw]
        # One loop index when every array holds the whole shape in C order.
        nd = 1 if all(_contiguous_full(v, shape) for _, v in elementwise) else max(len(shape), 1)
        is_array = {p.name: isinstance(v, Array) for p, v in zip(self.in_params, ins)}
        raw_nd = self._raw_ndims(ins, outs)
        total = int(np.prod(shape, dtype=np.int64))
        index32 = total < 2**31
        key = (dev, tuple(in_types), tuple(out_types), tuple(is_array.values()), nd,
               tuple(raw_nd.values()), index32)
        generated = self._cache.get(key)
        form = loop_form(dev)
        if generated is None:
            source = self._source(dialect, in_types, out_types, is_array, types, nd, raw_nd,
                                  index32, form)
            generated = self._cache[key] = _Generated(source, [_entry_name(dialect, self.name)],
                                                      self.options, dev)
        call, widths = [], []
        for p, v, t in zip(self.in_params + self.out_params, ins + outs, in_types + out_types):
            before = len(call)
            if isinstance(v, Array):
                call += self._array_args(p, v, shape, nd, dialect)
            else:
                call.append(_scalar_value(t, v, dialect))
            widths.append(len(call) - before)
        call.append(int(total))
        if nd > 1:
            call += [int(s) for s in shape]
        if form == CHUNKED:
            # A contiguous chunk per CPU thread, as simt's own array kernels lay out work
            # there (block_size, a GPU's tuning, means nothing to the loop).
            blocks, block = elementwise_config(dev, total)
        else:
            blocks, block = max(1, min((total + block_size - 1) // block_size, 65535)), block_size
        launch = generated.kernels[0][blocks, block, stream] if total else None
        if launch is not None:
            launch(*call)
        if fast_key is not None and len(self._fast) < 1024 and nd == 1 and \
                all(v._impl.offset == 0 for v in ins + outs if isinstance(v, Array)):
            self._fast[fast_key] = _FastCall(self, launch, call, widths, len(args), shape,
                                             out_types, dev)
        if len(args) > self.nin:
            outs = args[self.nin:]  # given outputs come back as given (CuPy's), as warm calls'
        return outs[0] if len(outs) == 1 else tuple(outs)

    def generated_source(self, *args, dialect=None, ndim=1):
        """The kernel source generated for these arguments (for inspection), as their
        device compiles it, or as a GPU of the `dialect` given ("cuda" or "opencl")
        compiles it; `ndim` is the loop's dimensions (1 when every array is contiguous)."""
        # The dialect named: the source a GPU of that language compiles.
        form = GRID_STRIDE if dialect else loop_form(_snippet_device(args, self._device))
        dialect, in_types, out_types, is_array, types, raw_nd = self._typed_args(args, dialect)
        return _spelled_for(dialect, self._source(dialect, in_types, out_types, is_array, types,
                                                  ndim, raw_nd, True, form))

    def _source(self, dialect, in_types, out_types, is_array, types, nd, raw_nd, index32=False,
                form=GRID_STRIDE):
        """`index32`: the loop's size fits int32, and `i` is an int (CuPy's 32-bit
        indexing: `int idx[] = {label, i % n}` then needs no narrowing). `form`: the loop
        over the elements (_launch's GRID_STRIDE, or CHUNKED on the cpu device: one
        contiguous chunk per thread, a loop the C++ compiler vectorizes)."""
        d = _dialect(dialect)
        itype = d["types"]["int32"] if index32 else d["index"]
        params, loads, indexed = self._input_params(dialect, in_types, is_array, nd, raw_nd)
        stores = []
        for p, t in zip(self.out_params, out_types):
            c = self._ctype(dialect, t)
            params.append(self._array_params(dialect, p, c, nd, raw_nd))
            if p.raw:
                loads.append(self._raw_load(dialect, p, c, raw_nd))
                continue
            indexed.append(p)
            if dialect == "cuda":
                loads.append(f"    {c}& {p.name} = _p_{p.name}[_e_{p.name}];\n")
            else:  # no references in OpenCL C: a copy, stored back
                loads.append(f"    {c} {p.name} = _p_{p.name}[_e_{p.name}];\n")
                stores.append(f"    _p_{p.name}[_e_{p.name}] = {p.name};\n")
        params.append(f"{d['index']} _n")
        if nd > 1:
            params += [f"{d['index']} _s{k}" for k in range(nd)]
        operation = self.operation.replace("_ind.size()", "_n")
        if dialect == "opencl":
            operation = carray_uses_for_opencl(operation, raw_nd)
        idx = d["index"]

        def body(unit):
            # `i` where something reads it (NVRTC warns of an unused one).
            used = not unit or re.search(r"\bi\b", operation + "".join(loads))
            return (f"    {itype} i = ({itype})_i;\n" * bool(used) +
                    f"{self._index_code(indexed, nd, dialect, unit)}"
                    f"{''.join(loads)}"
                    f"    {{\n{operation};\n    }}\n"
                    f"{''.join(stores)}")

        if form == CHUNKED:
            # _launch.flat_loop's chunks: n // threads + 1 elements each; where every
            # array's stride is 1 (checked per launch), a loop over consecutive addresses.
            loop = _chunk(d, idx, "_n", "_i")
            unit = " && ".join(f"_t0_{p.name} == 1" for p in indexed) if nd == 1 else ""
            each = f"  for ({idx} _i = _i_b; _i < _i_e; ++_i) {{\n"
            if unit:
                loop += f"  if ({unit}) {{\n{each}{body(True)}  }}\n  }} else {{\n"
            loop += f"{each}{body(False)}  }}\n"
            if unit:
                loop += "  }\n"
        else:
            loop = (f"  for ({idx} _i = {d['first']}; _i < _n; _i += {d['step']}) {{\n"
                    f"{body(False)}  }}\n")
        return (f"{self._head(dialect, types)}"
                f"{d['kernel']} {_entry_name(dialect, self.name)}({', '.join(params)}) {{\n"
                f"{_size_alias(operation, idx)}"
                f"{loop}}}\n")


class ReductionKernel(_SnippetKernel):
    """CuPy's ReductionKernel: ``ReductionKernel('T x', 'T y', 'x * x', 'a + b',
    'y = sqrt(a)', '0', 'l2norm')``.

    ``map_expr`` gives each element's value (inputs by name, the index ``i``: the element's
    C-order index in the inputs' broadcast shape), ``reduce_expr`` combines two values ``a``
    and ``b`` (of ``reduce_type``, by default the first output's type), ``identity`` is the
    reduction's neutral value, and ``post_map_expr`` assigns the outputs from the result
    ``a``. ``axis`` (an int or a tuple; None: every axis) names the axes reduced, and
    ``keepdims`` keeps them as extents of 1, as NumPy's. Returns an array (0-d for the
    whole array) or a tuple of them for several outputs.
    """

    _BLOCK = 256
    # Blocks of the first pass (grid-stride) where the device cannot say how many are
    # resident (_Generated.first_pass_blocks): about one wave on a large GPU.
    _MAX_BLOCKS = 1024

    def __init__(self, in_params, out_params, map_expr, reduce_expr, post_map_expr, identity,
                 name="reduce_kernel", reduce_type=None, *, preamble="", options=(),
                 device=None):
        super().__init__(in_params, out_params, name, preamble, options, "ReductionKernel")
        for what, text in (("map_expr", map_expr), ("reduce_expr", reduce_expr),
                           ("post_map_expr", post_map_expr), ("identity", identity)):
            if not isinstance(text, str):
                raise TypeError(f"ReductionKernel {name}: {what} is a string of C code")
        if not self.out_params:
            raise ValueError(f"ReductionKernel {name}: needs an output parameter")
        self.map_expr, self.reduce_expr = map_expr, reduce_expr
        self.post_map_expr, self.identity = post_map_expr, identity
        self.reduce_type = None if reduce_type is None else np.dtype(reduce_type).name
        self._device = device

    def __call__(self, *args, axis=None, keepdims=False, stream=None):
        fast_key = _fast_key(args, self._BLOCK) \
            if stream is None and not keepdims and axis is None else None
        if fast_key is not None:
            fast = self._fast.get(fast_key)
            if fast is not None:
                return fast(args)
        dev, dialect, ins, outs, types = self._prepare(args, self._device, "ReductionKernel")
        in_types = self._resolve(self.in_params, types)
        out_types = self._resolve(self.out_params, types)
        rtype = self.reduce_type or out_types[0]
        shapes = [v.shape for p, v in zip(self.in_params, ins)
                  if isinstance(v, Array) and not p.raw]
        if not shapes:
            raise ValueError(f"{self._what}: needs an input array to reduce")
        try:
            shape = np.broadcast_shapes(*shapes)
        except ValueError:
            raise ValueError(f"{self._what}: shapes {shapes} do not broadcast") from None
        axes = normalize_axes(axis, len(shape), self._what)
        if len(axes) < len(shape):
            return self._call_axes(args, dev, dialect, ins, outs, types, in_types, out_types,
                                   rtype, shape, axes, keepdims, stream)
        for p, v in zip(self.out_params, outs):
            if v is not None and v.size != 1:
                raise ValueError(f"{self._what}: the output {p.name!r} must hold one element")
        outs = [v if v is not None else empty((), dtype=t, device=dev)
                for v, t in zip(outs, out_types)]
        elementwise = [(p, v) for p, v in zip(self.in_params, ins)
                       if isinstance(v, Array) and not p.raw]
        nd = 1 if all(_contiguous_full(v, shape) for _, v in elementwise) else max(len(shape), 1)
        is_array = {p.name: isinstance(v, Array) for p, v in zip(self.in_params, ins)}
        raw_nd = self._raw_ndims(ins, ())
        key = (dev, tuple(in_types), tuple(out_types), rtype, tuple(is_array.values()), nd,
               tuple(raw_nd.values()))
        generated = self._cache.get(key)
        if generated is None:
            source = self._source(dialect, in_types, out_types, rtype, is_array, types, nd,
                                  raw_nd, loop_form(dev))
            generated = self._cache[key] = _Generated(
                source, [self.name + "_partial", self.name + "_final", self.name + "_whole"],
                self.options, dev)
        total = int(np.prod(shape, dtype=np.int64))
        blocks = max(1, min((total + self._BLOCK - 1) // self._BLOCK,
                            generated.first_pass_blocks(self._BLOCK, self._MAX_BLOCKS, dev)))
        call, widths = [], []
        for p, v, t in zip(self.in_params, ins, in_types):
            before = len(call)
            call += self._array_args(p, v, shape, nd, dialect) if isinstance(v, Array) \
                else [_scalar_value(t, v, dialect)]
            widths.append(len(call) - before)
        count = [int(total)] + ([int(s) for s in shape] if nd > 1 else [])
        out_args = []
        for p, v in zip(self.out_params, outs):
            out_args += list(_offset_view(v, self._what, p.name))
        if blocks == 1:
            # One block covers the input: one launch reduces and writes the outputs.
            partial_launch = generated.kernels[2][1, self._BLOCK, stream]
            final_launch, partial = None, None
            partial_launch(*call, *count, *out_args)
        else:
            partial_array = empty((blocks,), dtype=rtype, device=dev)
            partial_launch = generated.kernels[0][blocks, self._BLOCK, stream]
            partial_launch(*call, partial_array, *count)
            final_launch = generated.kernels[1][1, self._BLOCK, stream]
            final_launch(partial_array, int(blocks), *out_args)
            call.append(partial_array)
            partial = (blocks, rtype)
        call += count
        if fast_key is not None and len(self._fast) < 1024 and nd == 1 and \
                all(v._impl.offset == 0 for v in ins + outs if isinstance(v, Array)):
            self._fast[fast_key] = _FastReduction(
                self, partial_launch, final_launch, call, widths, partial, out_types, len(args),
                dev)
        if keepdims:
            # The whole array reduced, its dimensions kept as 1s (CuPy's, NumPy's).
            kept = (1,) * len(shape)
            outs = [v if v.shape == kept else _broadcast.element_view(
                v, kept, (0,) * len(kept)) for v in outs]
        elif len(args) > self.nin:
            outs = args[self.nin:]  # given outputs come back as given (CuPy's), as warm calls'
        return outs[0] if len(outs) == 1 else tuple(outs)

    def _call_axes(self, args, dev, dialect, ins, outs, types, in_types, out_types, rtype,
                   shape, axes, keepdims, stream):
        """A reduction over some of the axes: one launch in which each block reduces the
        elements of one output (and moves on by the grid), its threads striding over them."""
        nd = len(shape)
        kept = [d for d in range(nd) if d not in axes]
        order = kept + list(axes)  # the kernel's dimensions: kept ones, then reduced ones
        result = tuple(shape[d] for d in kept)
        result_kept = tuple(1 if d in axes else shape[d] for d in range(nd))
        for p, v in zip(self.out_params, outs):
            if v is not None and tuple(v.shape) not in (result, result_kept):
                raise ValueError(f"{self._what}: the output {p.name!r} has shape {v.shape}, "
                                 f"the result's is {result_kept if keepdims else result}")
        outs = [v if v is not None else empty(result, dtype=t, device=dev)
                for v, t in zip(outs, out_types)]
        m = int(np.prod(result, dtype=np.int64))
        length = int(np.prod([shape[d] for d in axes], dtype=np.int64))
        block = _axes_block(length)
        uses_i = re.search(r"\bi\b", self.map_expr) is not None
        is_array = {p.name: isinstance(v, Array) for p, v in zip(self.in_params, ins)}
        raw_nd = self._raw_ndims(ins, ())
        key = ("axes", dev, tuple(in_types), tuple(out_types), rtype, tuple(is_array.values()),
               nd, len(kept), uses_i, block, tuple(raw_nd.values()))
        generated = self._cache.get(key)
        if generated is None:
            source = self._axes_source(dialect, in_types, out_types, rtype, is_array, types, nd,
                                       len(kept), uses_i, block, raw_nd)
            generated = self._cache[key] = _Generated(source, [self.name + "_axes"],
                                                      self.options, dev)
        call = []
        for p, v, t in zip(self.in_params, ins, in_types):
            if not isinstance(v, Array):
                call.append(_scalar_value(t, v, dialect))
            elif p.raw:
                call += self._array_args(p, v, shape, nd, dialect)
            else:
                args_ = self._array_args(p, v, shape, nd, dialect)
                call += args_[:2] + [args_[2 + d] for d in order]
        for p, v in zip(self.out_params, outs):
            base, offset = _offset_view(v, self._what, p.name)
            strides = [s // v.itemsize for s in v.strides]
            if v.ndim != len(kept):  # the keepdims shape: the kept axes' strides
                strides = [strides[d] for d in kept]
            call += [base, int(offset)] + [int(s) for s in strides]
        c_strides = np.cumprod((list(shape[1:]) + [1])[::-1])[::-1] if nd else []
        call += [m, length, int(np.prod(shape, dtype=np.int64))]
        call += [int(shape[d]) for d in order]
        if uses_i:
            call += [int(c_strides[d]) for d in order]
        if m:
            if dev.backend == "cpu":
                blocks = min(m, 4 * max(dev.compute_units, 1))
            else:
                blocks = min(m, 65535)
            generated.kernels[0][blocks, block, stream](*call)
        if keepdims:
            outs = [v if tuple(v.shape) == result_kept else _broadcast.element_view(
                v, result_kept, _expand_strides(v, kept, nd)) for v in outs]
        elif len(args) > self.nin:
            outs = args[self.nin:]
        return outs[0] if len(outs) == 1 else tuple(outs)

    def _tree(self, dialect, r, block):
        """A tree over the block's values in shared memory (`_sm`, one per thread)."""
        d = _dialect(dialect)
        return (f"  _sm[_t] = _acc;\n  {d['barrier']}\n"
                f"  for (int _s = {block // 2}; _s > 0; _s >>= 1) {{\n"
                f"    if (_t < _s) _sm[_t] = _reduce(_sm[_t], _sm[_t + _s]);\n"
                f"    {d['barrier']}\n  }}\n")

    def _axes_source(self, dialect, in_types, out_types, rtype, is_array, types, nd, nkept,
                     uses_i, block, raw_nd):
        d = _dialect(dialect)
        g, idx = d["global_ptr"], d["index"]
        r = self._ctype(dialect, rtype)
        mapped = self._mapped(dialect, raw_nd)
        params, loads, indexed = self._input_params(dialect, in_types, is_array, nd, raw_nd)
        for p, t in zip(self.out_params, out_types):
            params.append(f"{g}{self._ctype(dialect, t)}* _p_{p.name}, {idx} _o_{p.name}"
                          + "".join(f", {idx} _u{k}_{p.name}" for k in range(nkept)))
        params += [f"{idx} _m", f"{idx} _r", f"{idx} _n"]
        params += [f"{idx} _s{k}" for k in range(nd)]
        if uses_i:
            params += [f"{idx} _i{k}" for k in range(nd)]
        names = [p.name for p in indexed]
        outs = [p.name for p in self.out_params]

        def unravel(var, dims, targets):
            lines = [f"{var} _rest = {targets[0]}, _c;"]
            for k in reversed(dims):
                lines.append(f"_c = _rest % _s{k}; _rest /= _s{k};")
                lines += [f"{t} += _c * {s}{k}{suffix};" for t, s, suffix in targets[1]]
            return lines

        # The output's position: each input's first element and each output's element.
        out_lines = [f"{idx} _b_{n} = _o_{n};" for n in names]
        out_lines += [f"{idx} _f_{n} = _o_{n};" for n in outs]
        if uses_i:
            out_lines.append(f"{idx} _bi = 0;")
        targets = [(f"_b_{n}", "_t", f"_{n}") for n in names]
        targets += [(f"_f_{n}", "_u", f"_{n}") for n in outs]
        if uses_i:
            targets.append(("_bi", "_i", ""))
        if nkept:
            out_lines += unravel(idx, range(nkept), ("_j", targets))
        # Each element reduced: the rest of its position.
        el_lines = [f"{idx} _e_{n} = _b_{n};" for n in names]
        if uses_i:
            el_lines.append(f"{idx} i = _bi;")
        el_targets = [(f"_e_{n}", "_t", f"_{n}") for n in names]
        if uses_i:
            el_targets.append(("i", "_i", ""))
        if nd > nkept:
            el_lines += unravel(idx, range(nkept, nd), ("_q", el_targets))
        out_refs = "".join(f"      {self._ctype(dialect, t)} {p.name};\n"
                           for p, t in zip(self.out_params, out_types))
        out_stores = "".join(f"      _p_{n}[_f_{n}] = {n};\n" for n in outs)
        indent = "      "
        return (f"{self._head(dialect, types)}"
                f"{d['function']}{r} _reduce({r} a, {r} b) {{\n"
                f"  return ({self.reduce_expr});\n}}\n\n"
                f"{d['kernel']} {self.name}_axes({', '.join(params)}) {{\n"
                f"{_size_alias(self.map_expr, idx)}"
                f"  const int _t = {d['local_id']};\n"
                f"  {d['shared']}{r} _sm[{block}];\n"
                f"  for ({idx} _j = {d['group_id']}; _j < _m; _j += {d['groups']}) {{\n"
                + "".join(f"    {line}\n" for line in out_lines)
                + f"    {r} _acc = ({r})({self.identity});\n"
                f"    for ({idx} _q = _t; _q < _r; _q += {block}) {{\n"
                + "".join(f"{indent}{line}\n" for line in el_lines)
                + "".join(indent + line.lstrip() + ("\n" if not line.endswith("\n") else "")
                          for line in loads)
                + f"{indent}_acc = _reduce(_acc, ({r})({mapped}));\n    }}\n"
                + "".join("  " + line + "\n" for line in self._tree(dialect, r, block)
                          .rstrip("\n").split("\n"))
                + f"    if (_t == 0) {{\n      const {r} a = _sm[0];\n{out_refs}"
                f"      {{\n{self.post_map_expr};\n      }}\n{out_stores}    }}\n"
                f"    {d['barrier']}\n  }}\n}}\n")

    def _source(self, dialect, in_types, out_types, rtype, is_array, types, nd, raw_nd,
                form=GRID_STRIDE):
        """`form`: how the first pass's threads share the input (_launch's GRID_STRIDE, or
        CHUNKED on the cpu device: a contiguous chunk per thread, the threads of a block
        being fibers one OS thread runs one after the other)."""
        d = _dialect(dialect)
        g = d["global_ptr"]
        r = self._ctype(dialect, rtype)
        params, loads, indexed = self._input_params(dialect, in_types, is_array, nd, raw_nd)
        idx = d["index"]
        params += [f"{g}{r}* _partial", f"{idx} _n"]
        if nd > 1:
            params += [f"{idx} _s{k}" for k in range(nd)]
        out_params = [f"{g}{self._ctype(dialect, t)}* _p_{p.name}, {idx} _o_{p.name}"
                      for p, t in zip(self.out_params, out_types)]
        out_refs = "".join(
            f"    {self._ctype(dialect, t)} {p.name};\n" for p, t in zip(self.out_params, out_types))
        out_stores = "".join(f"    _p_{p.name}[_o_{p.name}] = {p.name};\n"
                             for p in self.out_params)
        B = self._BLOCK
        mapped = self._mapped(dialect, raw_nd)
        scalar_body = (f"{self._index_code(indexed, nd, dialect)}{''.join(loads)}"
                       f"    _acc = _reduce(_acc, ({r})({mapped}));\n")
        if form == CHUNKED:
            scalar_loop = (f"  {{\n{_chunk(d, idx, '_n', '_k')}"
                           f"  for ({idx} i = _k_b; i < _k_e; ++i) {{\n{scalar_body}  }}\n  }}\n")
        else:
            scalar_loop = (f"  for ({idx} i = {d['first']}; i < _n; i += {d['step']}) {{\n"
                           f"{scalar_body}  }}\n")
        in_types_of = dict(zip((p.name for p in self.in_params), in_types))
        width = _vector_width([in_types_of[p.name] for p in indexed]) if nd == 1 else 0
        vectors, loop = "", scalar_loop
        if width:
            vectors, loop = self._vector_loop(dialect, indexed, in_types_of, loads, width, r,
                                              scalar_body, scalar_loop, mapped, form)
        # A tree over the block's values in shared memory: the block size is fixed.
        tree = f"  {d['shared']}{r} _sm[{B}];\n" + self._tree(dialect, r, B)
        # Thread 0 gives the outputs their values from the block's result.
        outputs = (f"  if (_t == 0) {{\n    const {r} a = _sm[0];\n{out_refs}"
                   f"    {{\n{self.post_map_expr};\n    }}\n{out_stores}  }}\n")
        # The inputs reduced per thread, then per block.
        reduced = (f"{_size_alias(self.map_expr, idx)}"
                   f"  const int _t = {d['local_id']};\n"
                   f"  {r} _acc = ({r})({self.identity});\n"
                   f"{loop}{tree}")
        whole_params = [p for p in params if p != f"{g}{r}* _partial"] + out_params
        return (f"{self._head(dialect, types)}{vectors}"
                f"{d['function']}{r} _reduce({r} a, {r} b) {{\n"
                f"  return ({self.reduce_expr});\n}}\n\n"
                f"{d['kernel']} {self.name}_partial({', '.join(params)}) {{\n"
                f"{reduced}"
                f"  if (_t == 0) _partial[{d['group_id']}] = _sm[0];\n}}\n\n"
                f"{d['kernel']} {self.name}_final({g}{r}* _partial, {idx} _count, "
                f"{', '.join(out_params)}) {{\n"
                f"  const int _t = {d['local_id']};\n"
                f"  {r} _acc = ({r})({self.identity});\n"
                f"  for ({idx} _k = _t; _k < _count; _k += {B}) "
                f"_acc = _reduce(_acc, _partial[_k]);\n"
                f"{tree}{outputs}}}\n\n"
                f"{d['kernel']} {self.name}_whole({', '.join(whole_params)}) {{\n"
                f"{reduced}{outputs}}}\n")

    def _mapped(self, dialect, raw_nd):
        """map_expr as `dialect` takes it (OpenCL C: raw inputs' CArray uses rewritten)."""
        if dialect == "opencl":
            return carray_uses_for_opencl(self.map_expr, raw_nd)
        return self.map_expr

    def _vector_loop(self, dialect, indexed, in_types_of, loads, width, r, scalar_body,
                     scalar_loop, mapped, form=GRID_STRIDE):
        """The partial kernel's loop when every indexed input is contiguous and aligned
        (checked at run time, else `scalar_loop`): each thread loads `width` elements of
        each input as one 16-byte (or narrower) vector, as CUB's reductions do, so a
        bandwidth-bound sum issues a quarter of the loads; the last `_n % width`
        elements go through the scalar body. Returns (the vector types, the loop)."""
        d = _dialect(dialect)
        g, idx, u = d["global_ptr"], d["index"], d["uindex"]
        vectors, checks, vector_loads, lane_loads = "", [], "", ""
        for p in indexed:
            c = self._ctype(dialect, in_types_of[p.name])
            size = np.dtype(in_types_of[p.name]).itemsize
            vectors += (f"typedef struct __attribute__((aligned({width * size}))) "
                        f"{{ {c} v[{width}]; }} _vec_{p.name};\n")
            checks.append(f"_t0_{p.name} == 1 && "
                          f"(({u})(_p_{p.name} + _o_{p.name}) & {width * size - 1}) == 0")
            vector_loads += (f"      const _vec_{p.name} _w_{p.name} = *(const {g}_vec_{p.name}*)"
                             f"(_p_{p.name} + _o_{p.name} + _v * {width});\n")
            lane_loads += f"        const {c} {p.name} = _w_{p.name}.v[_l];\n"
        # Scalars and raw inputs: as the scalar loop has them (one load per input, in order).
        lane_loads += "".join("    " + line for p, line in zip(self.in_params, loads)
                              if p not in indexed)
        lane_index = (f"        const {idx} i = _v * {width} + _l;\n"
                      if re.search(r"\bi\b", self.map_expr) else "")
        if form == CHUNKED:
            # A contiguous chunk of vectors, each lane with an accumulator of its own (one
            # chain of dependent additions per lane, which the C++ compiler vectorizes),
            # combined after the loop.
            head = (f"{_chunk(d, idx, '_nv', '_v')}"
                    f"    {r} _lane[{width}];\n"
                    f"    for (int _l = 0; _l < {width}; ++_l) "
                    f"_lane[_l] = ({r})({self.identity});\n"
                    f"    for ({idx} _v = _v_b; _v < _v_e; ++_v) {{\n")
            into, after = "_lane[_l] = _reduce(_lane[_l]", \
                f"    for (int _l = 0; _l < {width}; ++_l) _acc = _reduce(_acc, _lane[_l]);\n"
        else:
            head = f"    for ({idx} _v = {d['first']}; _v < _nv; _v += {d['step']}) {{\n"
            into, after = "_acc = _reduce(_acc", ""
        loop = (f"  if ({' && '.join(checks)}) {{\n"
                f"    const {idx} _nv = _n / {width};\n"
                f"{head}"
                f"{vector_loads}"
                f"#pragma unroll\n"
                f"      for (int _l = 0; _l < {width}; ++_l) {{\n"
                f"{lane_index}{lane_loads}"
                f"        {into}, ({r})({mapped}));\n"
                f"      }}\n    }}\n{after}"
                f"    for ({idx} i = _nv * {width} + {d['first']}; i < _n; i += {d['step']}) {{\n"
                f"{scalar_body}    }}\n"
                f"  }} else {{\n{scalar_loop}  }}\n")
        return vectors, loop

    def generated_source(self, *args, dialect=None, ndim=1, axis=None):
        """The kernel source generated for these arguments (for inspection), as their
        device compiles it, or as a GPU of the `dialect` given ("cuda" or "opencl")
        compiles it; `ndim` is the loop's dimensions (1 when every array is contiguous).
        `axis`, as a call's: the
        source a call reducing over those axes of the inputs' broadcast shape compiles
        (`<name>_axes`), where they are not all of them."""
        # The dialect named: the source a GPU of that language compiles.
        form = GRID_STRIDE if dialect else loop_form(_snippet_device(args, self._device))
        dialect, in_types, out_types, is_array, types, raw_nd = self._typed_args(args, dialect)
        rtype = self.reduce_type or out_types[0]
        if axis is not None:
            shape = np.broadcast_shapes(*[a.shape for p, a in zip(self.in_params, args)
                                          if isinstance(a, Array) and not p.raw])
            axes = normalize_axes(axis, len(shape), self._what)
            if len(axes) < len(shape):
                length = int(np.prod([shape[d] for d in axes], dtype=np.int64))
                uses_i = re.search(r"\bi\b", self.map_expr) is not None
                return _spelled_for(dialect, self._axes_source(
                    dialect, in_types, out_types, rtype, is_array, types, len(shape),
                    len(shape) - len(axes), uses_i, _axes_block(length), raw_nd))
        return _spelled_for(dialect, self._source(dialect, in_types, out_types, rtype, is_array,
                                                  types, ndim, raw_nd, form))
