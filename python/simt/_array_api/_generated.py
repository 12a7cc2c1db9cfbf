"""Kernels the array operations generate: source text in simt's kernel language, compiled
by the same compiler as users' kernels, once per distinct text (and then per device and
argument types, as every kernel: in memory and in the disk cache).

Each operation family (_elementwise, _reduction, ...) writes its template's text for one
specialization; here that text becomes a simt.Kernel, kept for the process.
"""

import math

import numpy as np

from .. import _kernel

# What generated kernels may name: the modules (np.float32(x) casts, np.sin, math.copysign),
# simt itself (grid, shared.array, syncthreads) and the device functions a template defines.
_NAMESPACE = {"np": np, "math": math}

_kernels = {}  # (source text, register cap) -> Kernel


def define(prefix, function):
    """A name generated kernels can call `function` (a simt.func) by: unique to it, so a
    kernel's text, which names it, stays a complete key."""
    name = f"{prefix}_{len(_NAMESPACE)}"
    _NAMESPACE[name] = function
    return name


def kernel(name, text, max_registers=None):
    """The kernel `name` of generated module `text` (device functions first, then the
    kernel), compiled on first use and kept: the text is the key, so one specialization of
    an operation family is one kernel whatever asked for it. `max_registers`: the kernel's
    register cap on CUDA devices (simt.kernel's option)."""
    found = _kernels.get((text, max_registers))
    if found is not None:
        return found
    import simt  # the package, complete by the time any array operation runs

    namespace = dict(_NAMESPACE, simt=simt)
    filename = f"<simt array operation {name}>"
    exec(compile(text, filename, "exec"), namespace)
    for value_name, value in list(namespace.items()):
        # Device functions the template defined: compiled into the kernel that calls them.
        if value_name.startswith("dev_") and callable(value):
            namespace[value_name] = _kernel.Func(
                value, source=(_function_text(text, value_name), filename,
                               _first_line(text, value_name)))
    found = _kernel.Kernel(namespace[name], source=(_function_text(text, name), filename,
                                                    _first_line(text, name)),
                           max_registers=max_registers)
    _kernels[(text, max_registers)] = found
    return found


def _first_line(text, name):
    for number, line in enumerate(text.splitlines(), 1):
        if line.startswith(f"def {name}("):
            return number
    raise KeyError(name)


def _function_text(text, name):
    """The lines of `def name(...)` in `text`: up to the next top-level line."""
    lines = text.splitlines(True)
    start = _first_line(text, name) - 1
    end = start + 1
    while end < len(lines) and (lines[end].startswith((" ", "\n")) or not lines[end].strip()):
        end += 1
    return "".join(lines[start:end])


_DTYPE_NAMES = {np.dtype(t): f"np.{np.dtype(t).name}" for t in np.sctypeDict.values()
                if np.dtype(t).kind in "iufc"}
_DTYPE_NAMES[np.dtype(bool)] = "np.bool_"


def dtype_name(dtype):
    """How generated source names a dtype: np.float32 casts and declares (np.bool_ for bool)."""
    dtype = np.dtype(dtype)
    try:
        return _DTYPE_NAMES[dtype]
    except KeyError:  # records: kernels take them, the array operations' templates do not
        raise TypeError(f"simt's array operations take arrays of numbers, not of {dtype}; "
                        f"write a kernel, or copy the array to the host with .get()") from None
