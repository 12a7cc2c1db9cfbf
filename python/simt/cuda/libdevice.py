"""Numba's ``cuda.libdevice``: libdevice's functions by their names without ``__nv_``
(``libdevice.sinf(x)``, ``from simt.cuda.libdevice import fast_expf``).

The names, their types and their code are one table in the compiler
(src/sema/libdevice.cpp); this module only names them so kernels can call them. A
name simt does not implement exists too: calling it in a kernel is a TypingError
that says so. docs/libdevice.md lists them.
"""

from .. import _core
from .._device_api import _DeviceFunction

_FUNCTIONS = _core.libdevice_functions()

# What a kernel reading this module as a global sees: the compiler's `simt.libdevice`.
_simt_member = ("simt", "libdevice")

globals().update({name: _DeviceFunction(f"simt.libdevice.{name}") for name, _ in _FUNCTIONS})

implemented = frozenset(name for name, ok in _FUNCTIONS if ok)
