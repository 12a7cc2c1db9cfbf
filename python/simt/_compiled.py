"""What kernels and device functions share: a Python function and its parsed source.

Below both _kernel (which defines them) and _resolve (which describes the globals
a kernel reads, device functions among them), so neither imports the other's way
back.
"""

import importlib
import inspect
import sys

from . import _core


def _source_of(function):
    try:
        lines, first_line = inspect.getsourcelines(function)
        filename = inspect.getsourcefile(function) or function.__code__.co_filename
    except (OSError, TypeError) as error:
        raise TypeError(
            f"simt needs the source code of {function.__qualname__!r} to compile it, and "
            f"Python keeps none for functions typed at the plain `python` prompt or given to "
            f"`python -c` ({error}); define kernels in a file (python script.py), or in "
            f"IPython or Jupyter, which keep what you type") from None
    return "".join(lines), filename, first_line


class _Compiled:
    """What kernels and device functions share: the Python function and its parsed source."""

    def __init__(self, function, decorator, source=None):
        """`source`: (text, file name, first line) of a function simt generated itself (the
        array operations' kernels), whose text Python's inspect cannot find."""
        if not inspect.isfunction(function):
            raise TypeError(f"{decorator} decorates a function, not {type(function).__name__}")
        if function.__name__ == "<lambda>" and source is None:
            raise TypeError(f"{decorator} compiles functions defined with def, not lambdas "
                            f"(simt parses the function's source text)")
        self.py_func = function
        self.__name__ = function.__name__
        self.__qualname__ = function.__qualname__
        self.__doc__ = function.__doc__
        self._source = source or _source_of(function)
        self._function = _core.Function(*self._source)

    def _rebuild_options(self):
        """The keyword arguments, besides the function and its source, that make this
        object again where it is unpickled."""
        return {}

    def __reduce__(self):
        # By reference where a module holds this very object (the receiving process
        # imports it); else by value: the function (cloudpickle, as dask.distributed uses,
        # carries a script's functions) and its source text, compiled again over there.
        module_name = self.py_func.__module__
        if module_name != "__main__" and _lookup(module_name, self.__qualname__) is self:
            return _lookup, (module_name, self.__qualname__)
        return _rebuild, (type(self), self.py_func, self._source, self._rebuild_options())

    def _simt_describe_(self):
        """What the compiler is told when a kernel reads this object as a global
        (_resolve.describe): a device function says so; anything else cannot be used."""
        return _core.Global.unsupported(f"a {type(self).__name__}")


def _lookup(module_name, qualname):
    """The object a module's dotted name holds (None where there is none)."""
    module = sys.modules.get(module_name) or importlib.import_module(module_name)
    value = module
    for part in qualname.split("."):
        value = getattr(value, part, None)
    return value


def _rebuild(cls, function, source, options):
    return cls(function, source=source, **options)
