"""@simt.kernel: a Python function compiled for the device it runs on."""

import inspect

from . import _core
from ._resolve import resolve
from ._types import typeof

DIALECTS = ("cuda", "opencl", "cpp")


def _source_of(function):
    try:
        lines, first_line = inspect.getsourcelines(function)
        filename = inspect.getsourcefile(function) or function.__code__.co_filename
    except (OSError, TypeError) as error:
        raise TypeError(
            f"simt needs the source code of {function.__qualname__!r} to compile it; define "
            f"kernels in a file, not at an interactive prompt ({error})") from None
    return "".join(lines), filename, first_line


class Kernel:
    """A kernel compiled from a Python function; see ``simt.kernel``."""

    def __init__(self, function, *, debug=False):
        if not inspect.isfunction(function):
            raise TypeError(f"simt.kernel decorates a function, not {type(function).__name__}")
        self.py_func = function
        self.debug = debug
        self.__name__ = function.__name__
        self.__qualname__ = function.__qualname__
        self.__doc__ = function.__doc__
        source, filename, first_line = _source_of(function)
        self._function = _core.Function(source, filename, first_line)

    def _globals(self):
        return resolve(self.py_func, self._function.free_names)

    def _signature(self, args):
        names = self._function.param_names
        if len(args) != len(names):
            raise TypeError(
                f"{self.__name__}() takes {len(names)} arguments ({', '.join(names)}) "
                f"but {len(args)} were given")
        types = []
        for name, arg in zip(names, args):
            try:
                types.append(typeof(arg))
            except TypeError as error:
                raise TypeError(f"argument {name!r} of {self.__name__}(): {error}") from None
        return types

    def inspect_source(self, *args, dialect="cpp"):
        """The generated source for these argument types (or example values).

        Each argument is a type string (``"float32[::1]"``), a dtype, or an
        example value (a NumPy array, a number). ``dialect`` is ``"cuda"``,
        ``"opencl"`` or ``"cpp"`` (the CPU backend's C++).
        """
        if dialect not in DIALECTS:
            raise ValueError(f"dialect must be one of {', '.join(DIALECTS)}, not {dialect!r}")
        generated = self._function.generate(self._signature(args), self._globals(), dialect,
                                            self.debug)
        return generated["source"]

    def inspect_types(self, *args):
        """{variable: type} that inference gives each local for these argument types."""
        return self._function.local_types(self._signature(args), self._globals())

    def __repr__(self):
        return f"<simt.kernel {self.__qualname__}>"


def kernel(function=None, *, debug=False):
    """Compiles a Python function as a kernel, lazily, once per argument-type signature.

    Use as ``@simt.kernel`` or ``@simt.kernel(debug=True)``.
    """
    if function is None:
        return lambda f: Kernel(f, debug=debug)
    return Kernel(function, debug=debug)
