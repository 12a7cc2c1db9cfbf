"""Numba's ``cuda.fp16``: float16 arithmetic, math and comparisons inside kernels
(``cuda.fp16.hadd(a, b)``, ``from simt.cuda.fp16 import hadd``)."""

from .._device_api import fp16 as _namespace

# What a kernel reading this module as a global sees: the compiler's `simt.fp16`.
_simt_member = _namespace._simt_member

globals().update({name: value for name, value in vars(_namespace).items()
                  if not name.startswith("_")})
