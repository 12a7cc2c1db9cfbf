"""simt.fft on cuda devices through cuFFT (loaded at run time, _vendor_libraries): the engine
fft/__init__.py's _engine picks there when cuFFT is found and not switched off (SIMT_CUFFT=0).

Each transform is one or more out-of-place cuFFT plans in the basic layout (C-contiguous
batches of C-contiguous transforms of rank 1 to 3), cached by (device, type, sizes,
batch):
- the input is first made a C-contiguous array of the transform's dtype, resized along
  the axes (zero-padded or truncated at the end, as NumPy); this is x itself when it
  already is one;
- the transformed axes are moved last (a copy) unless they already are, at most three per
  plan; a complex transform over more axes runs as several;
- rfftn is a real-to-complex plan along the last axis, then complex transforms along the
  others; irfftn the complex inverses first, then complex-to-real along the last axis, as
  NumPy's pocketfft computes them (so an input without Hermitian symmetry along the other
  axes gives NumPy's answer). Complex-to-real plans overwrite their input, which is
  therefore always an array of simt's own; the imaginary parts of the zero (and, n even,
  the n / 2) frequency are cleared first, as pocketfft ignores them;
- cuFFT does not normalize: the norm's scale is one multiplication in place afterwards
  (none for the unscaled direction).
Length-1 axes are the identity (cuFFT is not asked for them). Results are C-contiguous
(axes moved back with a copy when they were moved).
"""

import math
import threading
from collections import OrderedDict

import numpy as np

from .. import _core, _vendor_libraries
from .._array import empty
from .._array_api._elementwise import FUNCTIONS, assign, contiguous_copy
from .._array_api._manipulation import permute_dims

__all__ = ["CufftTransforms", "usable", "plan"]

# Plans hold device memory (cuFFT's work area, up to a few times the data's size for
# large transforms): a few are kept, the least recently used dropped first.
_PLANS_KEPT = 16
_plans = OrderedDict()
_plans_lock = threading.Lock()


def usable(device):
    """Whether simt.fft on `device` goes to cuFFT."""
    return _vendor_libraries.usable("cufft", device)


def plan(device, kind, n, batch):
    """A cuFFT plan of `kind` ('C2C', 'Z2Z', 'R2C', 'D2Z', 'C2R', 'Z2D') for `batch`
    C-contiguous transforms of sizes `n` on `device`, from the cache or made now."""
    key = (device.id, kind, tuple(n), batch)
    with _plans_lock:
        found = _plans.get(key)
        if found is not None:
            _plans.move_to_end(key)
            return found
    made = _core.CufftPlan(device, kind, list(n), batch)  # without the lock: may take ms
    with _plans_lock:
        _plans[key] = made
        _plans.move_to_end(key)
        while len(_plans) > _PLANS_KEPT:
            _plans.popitem(last=False)
    return made

# cuFFT's transform types by (complex dtype, kind).
_TYPES = {
    (np.dtype(np.complex64), "c2c"): "C2C", (np.dtype(np.complex128), "c2c"): "Z2Z",
    (np.dtype(np.complex64), "r2c"): "R2C", (np.dtype(np.complex128), "r2c"): "D2Z",
    (np.dtype(np.complex64), "c2r"): "C2R", (np.dtype(np.complex128), "c2r"): "Z2D",
}
_MAX_RANK = 3


def _real(dtype):
    return np.dtype(np.float32) if dtype == np.complex64 else np.dtype(np.float64)


class CufftTransforms:
    """The transforms fft.py's cuda engine runs, on cuFFT plans: `plans(device, kind, n,
    batch)` gives a plan with execute(input_pointer, output_pointer, forward) (the cache of
    plan() above; tests pass a NumPy stand-in). `dtype` is the complex dtype of the
    transform, `scale` the norm's factor."""

    def __init__(self, plans=plan):
        self._plans = plans

    def c2c(self, x, s, axes, forward, dtype, scale):
        x, owned = _prepared(x, s, axes, dtype)
        y = self._complex_axes(x, axes, forward, owned)
        if y is x and not owned:
            y = contiguous_copy(x)  # every axis of length 1: a new array all the same
        return _scaled(y, scale)

    def r2c(self, x, s, axes, dtype, scale):
        real, _ = _prepared(x, s, axes, _real(dtype))
        out = self._plan_axes(real, (axes[-1],), _TYPES[dtype, "r2c"], True,
                              lambda shape: (shape[:-1] + (shape[-1] // 2 + 1,), dtype))
        out = self._complex_axes(out, axes[:-1], True, True)
        return _scaled(out, scale)

    def c2r(self, x, s, axes, dtype, scale):
        n = s[-1]
        x, owned = _prepared(x, tuple(s[:-1]) + (n // 2 + 1,), axes, dtype)
        y = self._complex_axes(x, axes[:-1], False, owned)
        out = self._plan_axes(y, (axes[-1],), _TYPES[dtype, "c2r"], False,
                              lambda shape: (shape[:-1] + (n,), _real(dtype)),
                              owned=owned or y is not x,
                              prepare=lambda work: _clear_real_parts(work, n))
        return _scaled(out, scale)

    def _complex_axes(self, x, axes, forward, owned):
        """x transformed along `axes` (complex to complex), at most _MAX_RANK axes per
        plan; x itself when every axis has length 1 (the identity)."""
        axes = sorted(a for a in axes if x.shape[a] != 1)
        dtype = x.dtype
        kind = _TYPES[dtype, "c2c"]
        while axes:
            group, axes = tuple(axes[-_MAX_RANK:]), axes[:-_MAX_RANK]
            x = self._plan_axes(x, group, kind, forward, lambda shape: (shape, dtype),
                                owned=owned)
            owned = True
        return x

    def _plan_axes(self, x, group, kind, forward, out_of, owned=True, prepare=None):
        """One plan over the axes `group` of x (moved last first, a copy, when they are
        not): a new C-contiguous array. out_of(shape) gives the output's (shape, dtype)
        for the moved input's shape. prepare(work) may edit the plan's input, which is
        then always simt's own: x when `owned`, else a copy."""
        rank = len(group)
        moved = group != tuple(range(x.ndim - rank, x.ndim))
        work = x
        if moved:
            order = [a for a in range(x.ndim) if a not in group] + list(group)
            work = contiguous_copy(permute_dims(x, tuple(order)))
        if prepare is not None:
            if not (moved or owned):
                work = contiguous_copy(work)
            prepare(work)
        shape, dtype = out_of(work.shape)
        out = empty(shape, dtype, x.device)
        # A plan's sizes are the real side's: the input's for R2C, the output's for C2R.
        sizes = (shape if kind in ("C2R", "Z2D") else work.shape)[-rank:]
        if out.size:
            if sizes[-1] == 1 and kind not in ("C2C", "Z2Z"):
                assign(out, work)  # a length-1 real transform is the value itself
            else:
                plan = self._plans(x.device, kind, sizes, math.prod(work.shape[:-rank]))
                plan.execute(work._impl.data_ptr, out._impl.data_ptr, forward)
        if moved:
            out = contiguous_copy(permute_dims(out, tuple(int(i) for i in np.argsort(order))))
        return out


def _clear_real_parts(work, n):
    """Keeps only the real parts of the zero and (n even) the n / 2 frequencies along the
    last axis of `work`, the values pocketfft's complex-to-real transform reads."""
    for k in ((0, n // 2) if n % 2 == 0 and n > 1 else (0,)):
        column = work[..., k]
        assign(column, FUNCTIONS["real"](column))


def _prepared(x, sizes, axes, dtype):
    """(array, owned): x as a C-contiguous array of `dtype` with extent sizes[i] along
    axes[i] (zero-padded or truncated at the end); x itself, not owned, when it is one."""
    shape = list(x.shape)
    for e, a in zip(sizes, axes):
        shape[a] = e
    shape = tuple(shape)
    # cuFFT reads its input as complex numbers, aligned to a complex's size (R2C of
    # float32 data too: 8 bytes); a view at another offset (x[1:]) is copied.
    alignment = dtype.itemsize * (2 if dtype.kind == "f" else 1)
    if shape == x.shape and x.dtype == dtype and x._contiguous() and \
            x._impl.data_ptr % alignment == 0:
        return x, False
    out = empty(shape, dtype, x.device)
    if out.size == 0:
        return out, True
    kept = tuple(slice(0, min(e, x.shape[a])) for a, e in enumerate(shape))
    if any(k.stop < e for k, e in zip(kept, shape)):
        assign(out, 0)
    assign(out[kept], x[kept])
    return out, True


def _scaled(x, scale):
    if scale != 1.0 and x.size:
        FUNCTIONS["multiply"](x, _real(x.dtype).type(scale) if x.dtype.kind == "c"
                              else x.dtype.type(scale), out=x)
    return x
