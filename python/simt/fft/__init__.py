"""simt.fft: discrete Fourier transforms of simt arrays, NumPy's and the array API's
functions and signatures (fft, ifft, rfft, irfft, fft2, ifft2, fftn, ifftn, rfft2, irfft2,
rfftn, irfftn, hfft, ihfft, fftfreq, rfftfreq, fftshift, ifftshift).

Results keep single precision: float32 and complex64 inputs give complex64 (float32 for
the inverse real transforms), float64 and complex128 give complex128; integers and bools
transform as float64, float16 as float32 (NumPy 2's rules).

Where the work runs, by the array's device (one engine per backend, chosen in _engine):
- cpu: NumPy's pocketfft, reading the array's host memory and writing the result's in
  place (out=), no copies;
- cuda: cuFFT (loaded with dlopen from where NVRTC is found, fft/_cufft.py), plans cached by
  (device, type, sizes, batch); when it is missing, or switched off with SIMT_CUFFT=0,
  the generated kernels of opencl;
- opencl: simt's Stockham FFT, generated kernels (fft/_stockham.py): powers of two
  directly, other lengths by Bluestein's algorithm.
"""

import math
import operator

import numpy as np

from .._array import Array, empty
from .._device import runs_on_host
from .._axes import normalize_axis
from .. import _launch
from .._array_api._creation import arange
from .._array_api._elementwise import FUNCTIONS, assign, contiguous_copy
from .._array_api._manipulation import concat, moveaxis, reshape, roll
from . import _cufft, _stockham

__all__ = ["fft", "ifft", "rfft", "irfft", "hfft", "ihfft", "fft2", "ifft2", "rfft2",
           "irfft2", "fftn", "ifftn", "rfftn", "irfftn", "fftfreq", "rfftfreq", "fftshift",
           "ifftshift"]

_NORMS = ("backward", "ortho", "forward")


# --- arguments --------------------------------------------------------------------------------

def _array(x, where):
    if not isinstance(x, Array):
        raise TypeError(f"{where}: x must be a simt array, not {type(x).__name__} (copy a "
                        f"NumPy array to a device first: simt.asarray(x, device=...))")
    return x


def _norm(norm, where):
    norm = "backward" if norm is None else norm
    if norm not in _NORMS:
        raise ValueError(f"{where}: norm must be 'backward', 'ortho' or 'forward', not "
                         f"{norm!r}")
    return norm


def _complex_dtype(dtype, where):
    if dtype.kind == "c":
        return dtype
    if dtype.kind in "biu" or dtype == np.float64:
        return np.dtype(np.complex128)
    if dtype.kind == "f":  # float16, float32
        return np.dtype(np.complex64)
    raise TypeError(f"{where}: cannot transform an array of {dtype}")


def _real_dtype(dtype, where):
    return np.dtype(np.float32) if _complex_dtype(dtype, where) == np.complex64 \
        else np.dtype(np.float64)


def _length(n, where):
    try:
        n = operator.index(n)
    except TypeError:
        raise TypeError(f"{where}: n must be an int, not {type(n).__name__}") from None
    if n < 1:
        raise ValueError(f"{where}: invalid number of data points ({n}); n must be at least 1")
    return n


def _shape_and_axes(x, s, axes, where, default_axes=None):
    """(s, axes) of an n-dimensional transform as NumPy's: axes default to the last len(s)
    (all when s is None too), s to the axes' extents."""
    if x.ndim == 0:
        raise ValueError(f"{where}: x must have at least one dimension")
    if axes is None:
        if s is None:
            axes = default_axes if default_axes is not None else tuple(range(x.ndim))
        else:
            s = tuple(s)
            if len(s) > x.ndim:
                raise ValueError(f"{where}: s has {len(s)} entries, x only {x.ndim} axes")
            axes = tuple(range(x.ndim - len(s), x.ndim))
    axes = tuple(normalize_axis(a, x.ndim, where) for a in axes)
    if len(set(axes)) != len(axes):
        raise ValueError(f"{where}: an axis repeats in axes={axes}")
    if s is None:
        s = tuple(_length(x.shape[a], where) for a in axes)
    else:
        s = tuple(s)
        if len(s) != len(axes):
            raise ValueError(f"{where}: s and axes have different lengths ({len(s)} and "
                             f"{len(axes)})")
        s = tuple(_length(x.shape[a] if e == -1 else e, where) for e, a in zip(s, axes))
    return s, axes


def _scale(norm, n, forward):
    if norm == "ortho":
        return 1.0 / np.sqrt(n)
    return 1.0 / n if (norm == "forward") == forward else 1.0


# --- engines ----------------------------------------------------------------------------------

class _HostEngine:
    """The cpu device: NumPy's pocketfft on the arrays' host memory, the result written in
    place into a new simt array."""

    @staticmethod
    def _run(function, x, s, axes, norm, dtype, out_shape):
        out = empty(out_shape, dtype, x.device)
        host = np.asarray(x)
        # pocketfft computes in the input's precision: give it the result's.
        wanted = np.dtype(np.float32) if dtype in (np.complex64, np.float32) else None
        if wanted is not None and host.dtype.kind != "c" and host.dtype != wanted:
            host = host.astype(wanted)
        if len(axes) == 1 or all(x.shape[a] == e for e, a in zip(s, axes)):
            function(host, s=s, axes=axes, norm=norm, out=np.asarray(out))
        else:
            # NumPy hands out= to each axis's pass, which fails when an axis is resized
            # after the first: a temporary, then one copy.
            np.asarray(out)[...] = function(host, s=s, axes=axes, norm=norm)
        return out

    def c2c(self, x, s, axes, norm, forward, where):
        dtype = _complex_dtype(x.dtype, where)
        shape = _resized(x.shape, s, axes)
        return self._run(np.fft.fftn if forward else np.fft.ifftn, x, s, axes, norm,
                         dtype, shape)

    def r2c(self, x, s, axes, norm, where):
        dtype = _complex_dtype(x.dtype, where)
        shape = list(_resized(x.shape, s, axes))
        shape[axes[-1]] = s[-1] // 2 + 1
        return self._run(np.fft.rfftn, x, s, axes, norm, dtype, tuple(shape))

    def c2r(self, x, s, axes, norm, where):
        dtype = _real_dtype(x.dtype, where)
        shape = _resized(x.shape, s, axes)
        return self._run(np.fft.irfftn, x, s, axes, norm, dtype, shape)


def _resized(shape, s, axes):
    shape = list(shape)
    for e, a in zip(s, axes):
        shape[a] = e
    return tuple(shape)


class _StockhamEngine:
    """GPUs: one axis at a time, each a batch of contiguous rows transformed by
    _stockham.py's generated kernels."""

    def c2c(self, x, s, axes, norm, forward, where):
        dtype = _complex_dtype(x.dtype, where)
        _launch.check_dtypes(x.device, (dtype,), where)
        for n, axis in zip(s, axes):
            x = _along_axis(x, n, axis, dtype, forward, _scale(norm, n, forward))
        return x

    def r2c(self, x, s, axes, norm, where):
        # The full transform of the real input along the last axis, its first n // 2 + 1
        # values kept, then complex transforms along the others. (Packing two real values
        # into one complex one would halve the work of the first step: not done yet.)
        dtype = _complex_dtype(x.dtype, where)
        _launch.check_dtypes(x.device, (dtype,), where)
        last, n = axes[-1], s[-1]
        full = _along_axis(x, n, last, dtype, True, _scale(norm, n, True))
        half = _slice_axis(full, last, 0, n // 2 + 1)
        return self.c2c(contiguous_copy(half), s[:-1], axes[:-1], norm, True, where)

    def c2r(self, x, s, axes, norm, where):
        dtype = _complex_dtype(x.dtype, where)
        _launch.check_dtypes(x.device, (dtype,), where)
        x = self.c2c(x, s[:-1], axes[:-1], norm, False, where)
        last, n = axes[-1], s[-1]
        full = _hermitian(x, n, last, dtype)
        result = _along_axis(full, n, last, dtype, False, _scale(norm, n, False))
        out = empty(result.shape, _real_dtype(dtype, where), result.device)
        assign(out, result)  # complex into real keeps the real part
        return out


def _slice_axis(x, axis, start, stop):
    key = [slice(None)] * x.ndim
    key[axis] = slice(start, stop)
    return x[tuple(key)]


def _along_axis(x, n, axis, dtype, forward, scale):
    """x transformed along `axis`, resized to n there first (zeros appended or elements
    dropped at the end, as NumPy): a new C-contiguous array of `dtype`."""
    rows_view = moveaxis(x, axis, -1)
    batch = rows_view.shape[:-1]
    rows = int(np.prod(batch, dtype=np.int64))
    if rows_view.shape[-1] == n and rows_view.dtype == dtype and rows_view._contiguous():
        source = rows_view  # only read: the passes write buffers of their own
    else:
        source = empty(batch + (n,), dtype, x.device)
        kept = min(n, rows_view.shape[-1])
        if kept < n:
            assign(source[..., kept:], 0)
        assign(source[..., :kept], rows_view[..., :kept])
    out = reshape(_stockham.transform_rows(source, rows, n, forward, scale), batch + (n,))
    if axis == x.ndim - 1:
        return out
    return contiguous_copy(moveaxis(out, -1, axis))



def _hermitian(x, n, axis, dtype):
    """The full length-n spectrum whose first n // 2 + 1 values along `axis` are x's (x
    resized to that many first): the rest are the conjugates of values 1 .. n - n//2 - 1,
    reversed. The imaginary parts of value 0 (and n / 2) then drop out of the real part of
    the inverse, as in pocketfft's c2r."""
    half = n // 2 + 1
    shape = list(x.shape)
    shape[axis] = n
    full = empty(tuple(shape), dtype, x.device)
    kept = min(half, x.shape[axis])
    assign(_slice_axis(full, axis, 0, kept), _slice_axis(x, axis, 0, kept))
    if kept < half:
        assign(_slice_axis(full, axis, kept, half), 0)
    mirrored = n - half  # values half .. n - 1 mirror n - half .. 1 (which lie below half)
    if mirrored:
        key = [slice(None)] * full.ndim
        key[axis] = slice(mirrored, 0, -1)
        assign(_slice_axis(full, axis, half, n), FUNCTIONS["conj"](full[tuple(key)]))
    return full


class _CufftEngine:
    """cuda devices with cuFFT (_cufft): plans over up to three axes at once, the
    norm's scale one multiplication afterwards."""

    def __init__(self, transforms):
        self._transforms = transforms

    def c2c(self, x, s, axes, norm, forward, where):
        dtype = _complex_dtype(x.dtype, where)
        return self._transforms.c2c(x, s, axes, forward, dtype,
                                    _scale(norm, _points(s), forward))

    def r2c(self, x, s, axes, norm, where):
        dtype = _complex_dtype(x.dtype, where)
        return self._transforms.r2c(x, s, axes, dtype, _scale(norm, _points(s), True))

    def c2r(self, x, s, axes, norm, where):
        dtype = _complex_dtype(x.dtype, where)
        return self._transforms.c2r(x, s, axes, dtype, _scale(norm, _points(s), False))


def _points(s):
    return math.prod(s)


_HOST = _HostEngine()
_GPU = _StockhamEngine()
_CUFFT = _CufftEngine(_cufft.CufftTransforms())


def _engine(device):
    """The engine transforming arrays on `device`: cuFFT on cuda devices when it is found
    and not switched off (SIMT_CUFFT=0), else simt's generated kernels."""
    if runs_on_host(device):
        return _HOST
    return _CUFFT if _cufft.usable(device) else _GPU


# --- the transforms ---------------------------------------------------------------------------

def _one_axis(x, n, axis, where):
    _array(x, where)
    if x.ndim == 0:
        raise ValueError(f"{where}: x must have at least one dimension")
    axis = normalize_axis(axis, x.ndim, where)
    # An empty axis is NumPy's "invalid number of data points (0)", on every device.
    return _length(x.shape[axis] if n is None else n, where), axis


def fft(x, /, n=None, axis=-1, norm="backward"):
    """The one-dimensional discrete Fourier transform along `axis`, x resized to n there
    (zero-padded or truncated at the end)."""
    where = "simt.fft.fft"
    n, axis = _one_axis(x, n, axis, where)
    return _engine(x.device).c2c(x, (n,), (axis,), _norm(norm, where), True, where)


def ifft(x, /, n=None, axis=-1, norm="backward"):
    """The inverse of fft."""
    where = "simt.fft.ifft"
    n, axis = _one_axis(x, n, axis, where)
    return _engine(x.device).c2c(x, (n,), (axis,), _norm(norm, where), False, where)


def rfft(x, /, n=None, axis=-1, norm="backward"):
    """The transform of real x along `axis`: its n // 2 + 1 non-negative frequencies."""
    where = "simt.fft.rfft"
    n, axis = _one_axis(x, n, axis, where)
    _real_input(x, where)
    return _engine(x.device).r2c(x, (n,), (axis,), _norm(norm, where), where)


def irfft(x, /, n=None, axis=-1, norm="backward"):
    """The inverse of rfft: n real values (default 2 * (m - 1) for m input values)."""
    where = "simt.fft.irfft"
    _array(x, where)
    if x.ndim == 0:
        raise ValueError(f"{where}: x must have at least one dimension")
    axis = normalize_axis(axis, x.ndim, where)
    n = 2 * (x.shape[axis] - 1) if n is None else _length(n, where)
    if n < 1:
        raise ValueError(f"{where}: invalid number of data points ({n}) from an input of "
                         f"{x.shape[axis]} values; give n")
    return _engine(x.device).c2r(x, (n,), (axis,), _norm(norm, where), where)


def hfft(x, /, n=None, axis=-1, norm="backward"):
    """The transform of a signal with Hermitian symmetry (its first half given): real."""
    where = "simt.fft.hfft"
    _array(x, where)
    norm = _norm(norm, where)
    swapped = {"backward": "forward", "forward": "backward", "ortho": "ortho"}[norm]
    conj = FUNCTIONS["conj"](x) if x.dtype.kind == "c" else x
    return irfft(conj, n=n, axis=axis, norm=swapped)


def ihfft(x, /, n=None, axis=-1, norm="backward"):
    """The inverse of hfft: the conjugated rfft of real x, under the swapped norm."""
    where = "simt.fft.ihfft"
    _array(x, where)
    norm = _norm(norm, where)
    swapped = {"backward": "forward", "forward": "backward", "ortho": "ortho"}[norm]
    return FUNCTIONS["conj"](rfft(x, n=n, axis=axis, norm=swapped))


def _real_input(x, where):
    if x.dtype.kind == "c":
        raise TypeError(f"{where}: x must be real, not {x.dtype} (use simt.fft.fft for "
                        f"complex input)")


def fftn(x, /, s=None, axes=None, norm="backward"):
    """The n-dimensional transform over `axes` (default: all, or the last len(s)), x
    resized to s there."""
    where = "simt.fft.fftn"
    s, axes = _shape_and_axes(_array(x, where), s, axes, where)
    return _engine(x.device).c2c(x, s, axes, _norm(norm, where), True, where)


def ifftn(x, /, s=None, axes=None, norm="backward"):
    """The inverse of fftn."""
    where = "simt.fft.ifftn"
    s, axes = _shape_and_axes(_array(x, where), s, axes, where)
    return _engine(x.device).c2c(x, s, axes, _norm(norm, where), False, where)


def rfftn(x, /, s=None, axes=None, norm="backward"):
    """The n-dimensional transform of real x: the last axis halved as rfft's."""
    where = "simt.fft.rfftn"
    s, axes = _shape_and_axes(_array(x, where), s, axes, where)
    _real_input(x, where)
    return _engine(x.device).r2c(x, s, axes, _norm(norm, where), where)


def irfftn(x, /, s=None, axes=None, norm="backward"):
    """The inverse of rfftn: the last axis of length s[-1] (default 2 * (m - 1))."""
    where = "simt.fft.irfftn"
    _array(x, where)
    given = s
    s, axes = _shape_and_axes(x, s, axes, where)
    if given is None:
        s = s[:-1] + (2 * (x.shape[axes[-1]] - 1),)
        if s[-1] < 1:
            raise ValueError(f"{where}: invalid number of data points ({s[-1]}) along the "
                             f"last axis; give s")
    return _engine(x.device).c2r(x, s, axes, _norm(norm, where), where)


def fft2(x, /, s=None, axes=(-2, -1), norm="backward"):
    """fftn over two axes (default the last two)."""
    return fftn(x, s=s, axes=axes, norm=norm)


def ifft2(x, /, s=None, axes=(-2, -1), norm="backward"):
    """ifftn over two axes (default the last two)."""
    return ifftn(x, s=s, axes=axes, norm=norm)


def rfft2(x, /, s=None, axes=(-2, -1), norm="backward"):
    """rfftn over two axes (default the last two)."""
    return rfftn(x, s=s, axes=axes, norm=norm)


def irfft2(x, /, s=None, axes=(-2, -1), norm="backward"):
    """irfftn over two axes (default the last two)."""
    return irfftn(x, s=s, axes=axes, norm=norm)


# --- frequencies and shifts -------------------------------------------------------------------

def fftfreq(n, /, d=1.0, *, dtype=None, device=None):
    """The sample frequencies of an n-point transform with sample spacing d: [0, 1, ...,
    (n - 1) // 2, -(n // 2), ..., -1] / (d * n), float64 unless dtype says (a real
    floating dtype)."""
    where = "simt.fft.fftfreq"
    n = _length(n, where)
    dtype = _frequency_dtype(dtype, where)
    positive = arange((n - 1) // 2 + 1, dtype=np.float64, device=device)
    negative = arange(-(n // 2), 0, dtype=np.float64, device=device)
    return _frequencies(concat([positive, negative]), n, d, dtype)


def rfftfreq(n, /, d=1.0, *, dtype=None, device=None):
    """The non-negative sample frequencies of rfft: [0, 1, ..., n // 2] / (d * n)."""
    where = "simt.fft.rfftfreq"
    n = _length(n, where)
    dtype = _frequency_dtype(dtype, where)
    return _frequencies(arange(n // 2 + 1, dtype=np.float64, device=device), n, d, dtype)


def _frequency_dtype(dtype, where):
    dtype = np.dtype(np.float64 if dtype is None else dtype)
    if dtype.kind != "f":
        raise TypeError(f"{where}: dtype must be a real floating dtype, not {dtype}")
    return dtype


def _frequencies(steps, n, d, dtype):
    # NumPy multiplies the integer steps by 1 / (n * d), in float64.
    scaled = FUNCTIONS["multiply"](steps, 1.0 / (n * d))
    if dtype == np.float64:
        return scaled
    out = empty(scaled.shape, dtype, scaled.device)
    assign(out, scaled)
    return out


def _shift(x, axes, sign, where):
    _array(x, where)
    if axes is None:
        axes = tuple(range(x.ndim))
    elif isinstance(axes, (int, np.integer)):
        axes = (axes,)
    axes = tuple(normalize_axis(a, x.ndim, where) for a in axes)
    if not axes:
        return x
    return roll(x, tuple(sign * (x.shape[a] // 2) for a in axes), axis=axes)


def fftshift(x, /, axes=None):
    """x with the zero frequency moved to the middle: rolled by n // 2 along `axes`
    (default all)."""
    return _shift(x, axes, 1, "simt.fft.fftshift")


def ifftshift(x, /, axes=None):
    """The inverse of fftshift: rolled by -(n // 2) along `axes` (default all)."""
    return _shift(x, axes, -1, "simt.fft.ifftshift")
