"""@simt.kernel: a Python function compiled for the device it runs on."""

import functools
import operator
import os

from . import _core, _host_staging  # noqa: F401  (NumPy arguments on GPUs)
from ._compiled import _Compiled
from ._device import block_size, get_device
from ._foreign import linked_sources
from ._inspect import Inspection
from ._resolve import resolve
from ._types import signature_types, typeof

DIALECTS = ("cuda", "opencl", "cpp")


class Func(_Compiled):
    """A device function: callable from kernels and other device functions; see ``simt.func``."""

    def __init__(self, function, source=None, signatures=()):
        super().__init__(function, "simt.func", source)
        # [(result type or None, [parameter types])], as text: calls convert their
        # arguments to the first declared signature they fit (Numba's device functions).
        self._declared = [_declared_signature(s, function.__name__) for s in signatures]

    def _simt_describe_(self):
        return _core.Global.device_function(self)

    def _resolve_globals(self):
        # Called by the compiler each time a kernel using this function compiles.
        return resolve(self.py_func, self._function.free_names)

    def __call__(self, *args, **kwargs):
        raise TypeError(f"{self.__name__} is a simt device function: call it from a kernel")

    def __getitem__(self, config):
        # Numba's error (RuntimeError, its wording first), for f[grid, block](...)
        raise RuntimeError(f"Cannot compile a device function as a kernel: {self.__name__} is a "
                           f"simt device function (simt.func, cuda.jit(device=True)); launch a "
                           f"kernel that calls it")

    def inspect_sass(self, *args, **kwargs):
        raise RuntimeError(f"Cannot inspect SASS of a device function ({self.__name__}): it has "
                           f"no machine code of its own (it is compiled into each kernel that "
                           f"calls it)")

    def __repr__(self):
        return f"<simt.func {self.__qualname__}>"


def _declared_signature(signature, name):
    result, params = signature_types(signature)
    params = [typeof(p, name) for p in params]
    if result is not None:
        result = typeof(result, name)
    return (None if result in (None, "none", "void") else result), params


def func(function):
    """Compiles a Python function as a device function, callable from kernels
    (Numba's ``cuda.jit(device=True)``). It is compiled once per argument-type
    signature it is called with, and may return numbers or tuples of numbers.

    A device function is compiled into each kernel that calls it, its globals read
    when that kernel compiles: after changing one, call ``recompile()`` on those
    kernels (a device function has no compiled code of its own to drop)."""
    return Func(function)


def _environment_flag(name):
    return os.environ.get(name, "") not in ("", "0")


_RACE_MODES = {False: 0, True: 1, "raise": 1, "warn": 2}


def _race_mode(racecheck):
    """racecheck= as the dispatcher takes it: 0 off, 1 raise RaceError, 2 warn (RaceWarning).
    None reads SIMT_RACECHECK: unset or 0 off, "warn" warnings, anything else on."""
    if racecheck is None:
        value = os.environ.get("SIMT_RACECHECK", "").strip().lower()
        return 0 if value in ("", "0") else 2 if value == "warn" else 1
    if isinstance(racecheck, (bool, str)) and racecheck in _RACE_MODES:
        return _RACE_MODES[racecheck]
    raise ValueError(f"racecheck must be True, False, 'raise' or 'warn', not {racecheck!r}")


class Kernel(_Compiled, Inspection):
    """A kernel compiled from a Python function; see ``simt.kernel``."""

    def __init__(self, function, *, signatures=(), debug=None, fastmath=False, boundscheck=None,
                 source=None, link=(), max_registers=None, closed=None, racecheck=None):
        """`link`: [(origin, text, languages)] sources compiled with the kernel
        (simt.kernel(link=...), cuda.jit(link=...): _foreign.linked_sources)."""
        super().__init__(function, "simt.kernel", source)
        self.max_registers = _register_cap(max_registers)
        if debug is None:
            debug = _environment_flag("SIMT_DEBUG")
        if boundscheck is None:
            boundscheck = _environment_flag("SIMT_BOUNDSCHECK")
        self.debug = bool(debug)
        self.boundscheck = bool(boundscheck)
        self._race_mode = _race_mode(racecheck)
        self.racecheck = {0: False, 1: True, 2: "warn"}[self._race_mode]
        self.fastmath = fastmath
        # The resolver must not refer to self: the dispatcher (a C++ object the
        # garbage collector cannot traverse) would keep the kernel alive forever.
        resolver = functools.partial(resolve, function, self._function.free_names)
        self._link = list(link)
        self._dispatcher = _core.Dispatcher(self._function, resolver, self.debug, fastmath,
                                            self.boundscheck, self._link,
                                            self.max_registers or 0, self._race_mode)
        self._signatures = list(signatures)
        self._as_device_function = None
        for signature in signatures:
            self.compile(signature)
        # Explicit signatures are the only ones, as in Numba: a launch converts its arguments
        # to one of them or raises TypeError (closed=False compiles others at the launch).
        self.closed = bool(self._signatures) if closed is None else bool(closed)
        if self.closed:
            self._dispatcher.close()

    def _simt_describe_(self):
        # A kernel that another kernel calls is a device function there, as in Numba (a
        # @cuda.jit function called from device code): the same source, compiled as one.
        if self._as_device_function is None:
            self._as_device_function = Func(self.py_func, source=self._source)
        return self._as_device_function._simt_describe_()

    def _rebuild_options(self):
        return {"signatures": self._signatures, "debug": self.debug, "fastmath": self.fastmath,
                "boundscheck": self.boundscheck, "link": self._link,
                "max_registers": self.max_registers, "closed": self.closed,
                "racecheck": self.racecheck}

    def compile(self, signature, device=None):
        """Compiles for a signature now: "(float32[::1], float32)", "void(float32[:], int64)"
        or a tuple of types and example values."""
        result, types = signature_types(signature)
        if result is not None:
            raise TypeError(f"{self.__name__}: a kernel returns nothing; its signature is "
                            f"'void(...)' or '(...)', not {signature!r}")
        self._dispatcher.compile(self._signature(types), get_device(device))

    def recompile(self):
        """Drops every compiled specialization: the next launch (or compile()) of each
        signature reads the kernel's globals, and those of the device functions it calls,
        again and compiles anew.

        Globals are frozen when a signature compiles (as in Numba): call this after
        changing one to make the kernel see the new value. Unlike Numba's, which compiles
        again at once, each signature compiles at its next use."""
        self._dispatcher.clear()

    def __getitem__(self, config):
        """kernel[grid, block](*args): grid and block are ints or tuples of up to 3 ints."""
        # The dispatcher keeps the last few launchers (python/launcher_cache.h): k[1, 1](...)
        # at each call reuses one, without parsing the configuration again.
        return self._dispatcher.configure(config)

    def forall(self, ntasks, tpb=0, stream=0, sharedmem=0):
        """The launcher of `ntasks` threads (Numba's forall): blocks of `tpb` threads (0:
        a size that suits the device), as many as cover ntasks; the kernel guards its
        index against ntasks."""
        if ntasks < 0:
            raise ValueError(f"forall: Can't create ForAll with negative task count "
                             f"({ntasks}); ntasks must be >= 0")
        device = get_device(stream.device if hasattr(stream, "device") else None)
        if tpb == 0:
            tpb = block_size(device)
        blocks = max(1, -(-ntasks // tpb))
        return self[blocks, tpb, stream, sharedmem]

    def specialize(self, *args):
        """This kernel, compiled now for the types of `args` (Numba's specialize)."""
        self.compile(tuple(args))
        return self

    def max_cooperative_grid_blocks(self, blockdim, *args, dynsmemsize=0, device=None):
        """The most blocks of `blockdim` threads (an int or a tuple of up to 3) a launch of
        this kernel may have when it syncs the grid (``cuda.cg.this_grid().sync()``): all of
        them must run at once. `args` are the argument types (or example values) of the
        signature, as for ``inspect_source``; none: the one signature compiled so far.
        `dynsmemsize`: bytes of dynamic shared memory per block. On the current device
        unless `device` is given (cpu: a fixed number of blocks, whatever their size; CUDA:
        the kernel's occupancy times the multiprocessors; OpenCL: 0, it has no grid
        barrier)."""
        threads = 1
        for extent in (blockdim if isinstance(blockdim, tuple) else (blockdim,)):
            if not isinstance(extent, int) or extent < 1:
                raise ValueError(f"blockdim must be a positive int or a tuple of them, "
                                 f"not {blockdim!r}")
            threads *= extent
        if not isinstance(dynsmemsize, int) or dynsmemsize < 0:
            raise ValueError(f"dynsmemsize must be a non-negative int, not {dynsmemsize!r}")
        if args:
            types = self._signature(args)
        elif len(self._overloads) == 1:
            types = list(self._overloads[0])
        else:
            raise TypeError(
                f"{self.__name__}.max_cooperative_grid_blocks(blockdim, *argtypes): give the "
                f"argument types, since {len(self._overloads)} signatures are compiled")
        return self._dispatcher.max_cooperative_blocks(types, get_device(device), threads,
                                                       dynsmemsize)

    def __call__(self, *args, **kwargs):
        raise TypeError(f"launch {self.__name__} with a configuration: "
                        f"{self.__name__}[grid, block](*args)")

    def _globals(self):
        return resolve(self.py_func, self._function.free_names)

    def _signature(self, args):
        names = self._function.param_names
        if len(args) != len(names):
            raise TypeError(
                f"{self.__name__}() takes {len(names)} arguments ({', '.join(names)}) "
                f"but {len(args)} were given")
        try:
            return [typeof(arg, name) for name, arg in zip(names, args)]
        except TypeError as error:
            raise TypeError(f"{self.__name__}(): {error}") from None

    def inspect_source(self, *args, dialect="cpp"):
        """The generated source for these argument types (or example values).

        Each argument is a type string (``"float32[::1]"``), a dtype, or an
        example value (a NumPy array, a number). ``dialect`` is ``"cuda"``,
        ``"opencl"`` or ``"cpp"`` (the CPU backend's C++).
        """
        if dialect not in DIALECTS:
            raise ValueError(f"dialect must be one of {', '.join(DIALECTS)}, not {dialect!r}")
        generated = self._function.generate(self._signature(args), self._globals(), dialect,
                                            self.debug, self.boundscheck, self._link,
                                            self.max_registers or 0,
                                            self._race_mode != 0 and dialect == "cpp")
        return generated["source"]

    def inspect_types(self, *args, file=None):
        """{variable: type} that inference gives each local for these argument types.

        Without arguments, for a kernel that has parameters and has compiled signatures
        (Numba's form), prints each compiled signature's variables and types to `file`
        (default: stdout) instead."""
        if not args and self._function.param_names and self._overloads:
            return self._print_types(file)
        return self._function.local_types(self._signature(args), self._globals())

    def __repr__(self):
        return f"<simt.kernel {self.__qualname__}>"


MAX_REGISTERS_LIMIT = 255  # CUDA's registers per thread at most


def _register_cap(max_registers):
    """max_registers checked: None, or an int from 1 to 255 (CUDA's most per thread)."""
    if max_registers is None:
        return None
    try:
        cap = None if isinstance(max_registers, bool) else operator.index(max_registers)
    except TypeError:
        cap = None
    if cap is None or not 1 <= cap <= MAX_REGISTERS_LIMIT:
        raise ValueError(f"max_registers must be an int from 1 to {MAX_REGISTERS_LIMIT} "
                         f"(registers per thread) or None, not {max_registers!r}")
    return cap


def kernel(function=None, *, signatures=None, debug=None, fastmath=False, boundscheck=None,
           max_registers=None, link=None, closed=None, racecheck=None):
    """Compiles a Python function as a kernel, once per argument-type signature.

    Use as ``@simt.kernel``, ``@simt.kernel(debug=True, fastmath=True)``, or with
    signatures to compile eagerly: ``@simt.kernel("void(float32[:], float32)")``
    or ``@simt.kernel(signatures=[...])``. Explicit signatures are then the kernel's only
    ones, as Numba's are: a launch converts its arguments to the first one they convert to
    (the same array dtypes and dimensions, numbers of the same kind or a lower one) or
    raises ``TypeError``; ``closed=False`` compiles other argument types at their launch.

    ``debug=True`` (or SIMT_DEBUG=1) checks every array index and every ``assert``;
    ``boundscheck=True`` (or SIMT_BOUNDSCHECK=1) the indices only. A checked launch
    waits for its kernel and raises ``IndexError`` / ``AssertionError`` for the first
    failed check, naming the kernel, the array, the index, the thread and the line.

    ``racecheck=True`` (or SIMT_RACECHECK=1) checks each launch for data races on shared
    and global memory, barriers some threads of a block skip and warp operations whose mask
    is wrong, and raises ``simt.RaceError`` naming both threads and both lines
    (``racecheck="warn"``, or SIMT_RACECHECK=warn: a ``simt.RaceWarning`` instead). It runs
    on the cpu device only (a launch elsewhere is a ``ValueError``), one block after
    another, with every index checked as ``boundscheck=True`` does.

    ``max_registers=N`` caps the kernel's registers per thread on CUDA devices (Numba's
    option; CUDA's ``__maxnreg__``, which an NVRTC older than 12.4 ignores): fewer registers
    let more blocks share a multiprocessor, at the price of spills to local memory.
    OpenCL and the cpu device ignore it.

    ``link=[...]`` compiles source files (``.cu`` for CUDA and the CPU, ``.cl`` for OpenCL,
    ``.c``/``.cpp`` for the CPU) and ``simt.CUSource`` texts with the kernel, for the device
    functions ``simt.declare_device`` declares.
    """
    if isinstance(function, (str, tuple, list)):
        signatures, function = function, None
    if isinstance(signatures, (str, tuple)):
        signatures = [signatures]
    options = dict(signatures=signatures or (), debug=debug, fastmath=fastmath,
                   boundscheck=boundscheck, max_registers=_register_cap(max_registers),
                   link=linked_sources(link, "simt.kernel"), closed=closed, racecheck=racecheck)
    if function is None:
        return lambda f: Kernel(f, **options)
    return Kernel(function, **options)
