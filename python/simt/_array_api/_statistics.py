"""NumPy's statistics and signal functions that CuPy programs call, composed from simt's
array operations so they run on every device:

- average (weights, returned); median, percentile, quantile (NumPy's default 'linear'
  method) from a sort along the reduced axes and two gathers;
- nansum, nanprod, nanmax, nanmin, nanmean, nanargmax, nanargmin: NaNs replaced by the
  reduction's identity (where) before the plain reduction;
- bincount and histogram: counts from a sort and a searchsorted of the bin boundaries
  (simt has no atomic scatter-add): counts are exact, weighted sums are differences of a
  running sum (its rounding, not NumPy's per-bin sums);
- interp, convolve and correlate (1-D): gathers, and a product of a sliding-window view
  with the kernel;
- pad: modes 'constant', 'edge', 'reflect', 'symmetric', 'wrap', written into views of
  the result.

Where a result's shape or an error depends on values (bincount's length, histogram's
autodetected range, nanargmax's all-NaN check, average's zero weights, the range check of
quantile's q when it is a simt array) one small value is read back to the host, as
NumPy's and CuPy's checks read it.
"""

import builtins
import operator

import numpy as np

from .._array import Array
from ._creation import arange, asarray, empty, full, linspace
from ._elementwise import FUNCTIONS as _F, assign
from ._indexing import take
from ._linalg import matmul
from ._manipulation import (_view, broadcast_to, concat, flip, moveaxis, permute_dims, ravel,
                            reshape)
from ._reduction import (all as _all, any as _any, argmax as _argmax, argmin as _argmin,
                         cumulative_sum, max as _max, mean as _mean, min as _min,
                         prod as _prod, sum as _sum)
from ._searching import searchsorted
from ._sorting import argsort, sort
from .._axes import normalize_axis
from ._numpy_extras import _arrays_on_one_device, _as_array

__all__ = ["average", "median", "percentile", "quantile", "nansum", "nanprod", "nanmax",
           "nanmin", "nanmean", "nanargmax", "nanargmin", "bincount", "histogram", "interp",
           "convolve", "correlate", "pad"]


def _into(out, result):
    if out is None:
        return result
    assign(out, result)
    return out


def _axes_tuple(axis, ndim, where):
    if axis is None:
        return tuple(range(ndim))
    items = tuple(axis) if isinstance(axis, (tuple, list)) else (axis,)
    found = tuple(normalize_axis(a, ndim, where) for a in items)
    if len(set(found)) != len(found):
        raise ValueError(f"{where}: repeated axis in {axis}")
    return found


def _kept_shape(shape, axes):
    return tuple(1 if i in axes else n for i, n in enumerate(shape))


# --- average ---------------------------------------------------------------------------------

def average(a, axis=None, weights=None, returned=False, *, keepdims=False):
    """NumPy's average: the mean, or sum(a * w) / sum(w) along `axis`; with `returned`,
    also the sum of the weights (the count, without weights) in the result's shape."""
    a = _as_array(a, "average")
    if weights is None:
        avg = _mean(a, axis=axis, keepdims=keepdims)
        if not returned:
            return avg
        count = a.size // builtins.max(avg.size, 1) if a.size else 0
        return avg, full(avg.shape, count, dtype=avg.dtype, device=a.device)
    a, w = _arrays_on_one_device([a, weights], "average")
    if a.dtype.kind in "iub":
        dtype = np.result_type(a.dtype, w.dtype, "f8")
    else:
        dtype = np.result_type(a.dtype, w.dtype)
    if w.shape != a.shape:
        if axis is None:
            raise TypeError("average: axis must be specified when shapes of a and weights "
                            "differ.")
        axes = _axes_tuple(axis, a.ndim, "average")
        if w.shape != tuple(a.shape[i] for i in axes):
            raise ValueError("average: shape of weights must be consistent with shape of a "
                             "along specified axis.")
        # The weights along the axes, in a's order of them, broadcast across the others.
        order = sorted(range(len(axes)), key=lambda i: axes[i])
        from_w = _F["positive"](w) if w.ndim == 0 else _permuted(w, order)
        w = reshape(from_w, tuple(n if i in axes else 1 for i, n in enumerate(a.shape)))
    total = _sum(w, axis=axis, dtype=dtype, keepdims=keepdims)
    if bool(_any(_F["equal"](total, 0))):
        raise ZeroDivisionError("average: weights sum to zero, can't be normalized")
    avg = _F["divide"](_sum(_F["multiply"](a, w), axis=axis, dtype=dtype, keepdims=keepdims),
                       total)
    if not returned:
        return avg
    # NumPy's weight sums come in the result's shape, as a new array.
    return avg, broadcast_to(total, avg.shape).copy() if total.shape != avg.shape else total


def _permuted(w, order):
    return permute_dims(w, tuple(order))


# --- quantiles -------------------------------------------------------------------------------

def _sorted_rows(a, axis, where):
    """(a sorted along the reduced axes merged into the last one, the reduced axes)."""
    if a.dtype.kind == "c":
        raise TypeError(f"{where}: a must be an array of real numbers")
    axes = _axes_tuple(axis, a.ndim, where)
    rest = [i for i in range(a.ndim) if i not in axes]
    moved = moveaxis(a, axes, tuple(range(a.ndim - len(axes), a.ndim))) if axes else a
    n = 1
    for i in axes:
        n *= a.shape[i]
    rows = reshape(moved, tuple(a.shape[i] for i in rest) + (n,))
    if n == 0:
        raise ValueError(f"{where}: cannot take quantiles of an empty axis")
    return sort(rows, axis=-1), axes


def _result_dtype(a):
    return a.dtype if a.dtype.kind in "fc" else np.dtype(np.float64)


def _nan_rows(sorted_rows):
    """Where a row holds a NaN (sort puts NaNs last)."""
    return _F["isnan"](sorted_rows[..., -1])


def _finish(values, sorted_rows, a, axes, q_shape, keepdims):
    """values (..., nq) to NumPy's layout: q's axes first, then a's kept (or 1) axes."""
    if sorted_rows.dtype.kind == "f":
        values = _F["where"](_nan_rows(sorted_rows)[..., None], np.nan, values)
    values = moveaxis(values, -1, 0)
    rest = _kept_shape(a.shape, axes) if keepdims else tuple(
        n for i, n in enumerate(a.shape) if i not in axes)
    return reshape(values, tuple(q_shape) + rest)


def _q_array(q, device, where, scale):
    """q (divided by `scale`) as a float64 array on `device`, checked in [0, 1]."""
    if isinstance(q, Array):
        q = _F["divide"](q, scale) if scale != 1 else q.astype(np.float64)
        inside = _all(_F["logical_and"](_F["greater_equal"](q, 0), _F["less_equal"](q, 1)))
        if not bool(inside):
            raise ValueError(f"{where}: quantiles must be in the range [0, 1]"
                             if scale == 1 else f"{where}: percentiles must be in the "
                             f"range [0, 100]")
        return q
    host = np.asarray(q, dtype=np.float64) / scale
    if not np.all((host >= 0) & (host <= 1)):
        raise ValueError(f"{where}: quantiles must be in the range [0, 1]" if scale == 1
                         else f"{where}: percentiles must be in the range [0, 100]")
    return asarray(host, device=device)


def _linear(sorted_rows, q, dtype):
    """NumPy's 'linear' method: lerp between the neighbours of q * (n - 1), (..., nq)."""
    n = sorted_rows.shape[-1]
    flat_q = ravel(q)
    # NumPy's virtual index, n * q - q (its formula, so its rounding).
    virtual = _F["subtract"](_F["multiply"](float(n), flat_q), flat_q)
    below = _F["floor"](virtual)
    lo = _F["clip"](below, 0, n - 1).astype(np.int64)
    hi = _F["clip"](_F["add"](below, 1), 0, n - 1).astype(np.int64)
    gamma = _F["subtract"](virtual, below).astype(dtype)
    a = take(sorted_rows, lo, axis=-1).astype(dtype)
    b = take(sorted_rows, hi, axis=-1).astype(dtype)
    diff = _F["subtract"](b, a)
    # NumPy's _lerp: from the nearer end, so that gamma 1 gives b exactly.
    from_a = _F["add"](a, _F["multiply"](diff, gamma))
    from_b = _F["subtract"](b, _F["multiply"](diff, _F["subtract"](1, gamma)))
    return _F["where"](_F["greater_equal"](gamma, 0.5), from_b, from_a)


def _quantile(a, q, axis, out, method, keepdims, where, scale):
    a = _as_array(a, where)
    if method != "linear":
        raise NotImplementedError(f"{where}: simt has NumPy's default method 'linear' only, "
                                  f"not {method!r}")
    q = _q_array(q, a.device, where, scale)
    rows, axes = _sorted_rows(a, axis, where)
    values = _linear(rows, q, _result_dtype(a))
    return _into(out, _finish(values, rows, a, axes, q.shape, keepdims))


def quantile(a, q, axis=None, out=None, overwrite_input=False, method="linear",
             keepdims=False, *, weights=None, interpolation=None):
    """NumPy's quantile with the 'linear' method: q in [0, 1], a scalar or an array (its
    axes lead the result's); NaN where a reduced slice holds a NaN."""
    if weights is not None or interpolation is not None:
        raise NotImplementedError("quantile: weights= and interpolation= are not in simt")
    return _quantile(a, q, axis, out, method, keepdims, "quantile", 1)


def percentile(a, q, axis=None, out=None, overwrite_input=False, method="linear",
               keepdims=False, *, weights=None, interpolation=None):
    """quantile of q / 100."""
    if weights is not None or interpolation is not None:
        raise NotImplementedError("percentile: weights= and interpolation= are not in simt")
    return _quantile(a, q, axis, out, method, keepdims, "percentile", 100)


def median(a, axis=None, out=None, overwrite_input=False, keepdims=False):
    """The middle element, or the mean of the two middle ones, along `axis` (NaN where a
    slice holds a NaN), as NumPy's median."""
    a = _as_array(a, "median")
    rows, axes = _sorted_rows(a, axis, "median")
    n = rows.shape[-1]
    dtype = _result_dtype(a)
    lo = rows[..., (n - 1) // 2: (n - 1) // 2 + 1].astype(dtype)
    hi = rows[..., n // 2: n // 2 + 1].astype(dtype)
    values = _F["divide"](_F["add"](lo, hi), 2) if n % 2 == 0 else lo
    return _into(out, _finish(values, rows, a, axes, (), keepdims))


# --- NaN-ignoring reductions -----------------------------------------------------------------

def _without_nan(a, fill, where):
    a = _as_array(a, where)
    if a.dtype.kind not in "fc":
        return a, None
    nan = _F["isnan"](a)
    return _F["where"](nan, fill, a), nan


def nansum(a, axis=None, dtype=None, out=None, keepdims=False, initial=None, where=True):
    """sum with NaNs counted as zero."""
    a, _ = _without_nan(a, 0, "nansum")
    return _sum(a, axis, dtype, out, keepdims, initial, where)


def nanprod(a, axis=None, dtype=None, out=None, keepdims=False, initial=None, where=True):
    """prod with NaNs counted as one."""
    a, _ = _without_nan(a, 1, "nanprod")
    return _prod(a, axis, dtype, out, keepdims, initial, where)


def _nan_extreme(reduce, fill, a, axis, out, keepdims, initial, where, name):
    x, nan = _without_nan(a, fill, name)
    result = reduce(x, axis=axis, keepdims=keepdims, initial=initial, where=where)
    if nan is not None:
        # An all-NaN slice gives NaN (NumPy warns too).
        result = _F["where"](_all(nan, axis=axis, keepdims=keepdims), np.nan, result)
    return _into(out, result)


def nanmax(a, axis=None, out=None, keepdims=False, initial=None, where=True):
    """max ignoring NaNs; NaN for an all-NaN slice."""
    return _nan_extreme(_max, -np.inf, a, axis, out, keepdims, initial, where, "nanmax")


def nanmin(a, axis=None, out=None, keepdims=False, initial=None, where=True):
    """min ignoring NaNs; NaN for an all-NaN slice."""
    return _nan_extreme(_min, np.inf, a, axis, out, keepdims, initial, where, "nanmin")


def nanmean(a, axis=None, dtype=None, out=None, keepdims=False, *, where=True):
    """The mean of the non-NaN elements (NaN where there are none)."""
    x, nan = _without_nan(a, 0, "nanmean")
    if nan is None:
        return _mean(x, axis, dtype, out, keepdims, where=where)
    total = _sum(x, axis=axis, dtype=dtype, keepdims=keepdims, where=where)
    count = _sum(_F["logical_not"](nan), axis=axis, keepdims=keepdims)
    return _into(out, _F["divide"](total, count).astype(total.dtype))


def _nan_arg(reduce, fill, a, axis, out, keepdims, name):
    x, nan = _without_nan(a, fill, name)
    if nan is not None and bool(_any(_all(nan, axis=axis))):
        raise ValueError(f"{name}: All-NaN slice encountered")
    return reduce(x, axis, out, keepdims=keepdims)


def nanargmax(a, axis=None, out=None, *, keepdims=False):
    """argmax ignoring NaNs; ValueError for an all-NaN slice (NumPy's)."""
    return _nan_arg(_argmax, -np.inf, a, axis, out, keepdims, "nanargmax")


def nanargmin(a, axis=None, out=None, *, keepdims=False):
    """argmin ignoring NaNs; ValueError for an all-NaN slice (NumPy's)."""
    return _nan_arg(_argmin, np.inf, a, axis, out, keepdims, "nanargmin")


# --- counting --------------------------------------------------------------------------------

def _bin_sums(index, length, weights=None):
    """Per bin b in [0, length): how many of `index` (int64, all in range) equal b, or the
    sum of their weights: one sort, then a searchsorted of the bin boundaries."""
    order = argsort(index) if weights is not None else None
    ordered = take(index, order) if order is not None else sort(index)
    bounds = searchsorted(ordered, arange(length + 1, dtype=np.int64, device=index.device))
    if weights is None:
        return _F["subtract"](bounds[1:], bounds[:-1])
    running = cumulative_sum(take(weights, order), include_initial=True)
    return _F["subtract"](take(running, bounds[1:]), take(running, bounds[:-1]))


def bincount(x, weights=None, minlength=0):
    """NumPy's bincount: counts (int64) of each value of x (1-D, non-negative integers),
    or the sums of their weights (float64); length max(x) + 1, at least `minlength`."""
    x = _as_array(x, "bincount")
    if x.ndim != 1:
        raise ValueError(f"bincount: x must be 1-D, not {x.ndim}-D")
    if x.dtype.kind not in "iub":
        raise TypeError(f"bincount: cannot cast array data from {x.dtype} to int64 "
                        f"according to the rule 'safe'")
    minlength = operator.index(minlength)
    if minlength < 0:
        raise ValueError("bincount: 'minlength' must not be negative")
    x = x.astype(np.int64)
    if weights is not None:
        x, weights = _arrays_on_one_device([x, weights], "bincount")
        if weights.shape != x.shape:
            raise ValueError("bincount: the weights and list don't have the same length.")
        weights = weights.astype(np.float64)
    if x.size == 0:
        length = minlength
    else:
        # The result's length depends on the values: read the extremes back (CuPy does so).
        if int(_min(x)) < 0:
            raise ValueError("bincount: 'list' argument must have no negative elements")
        length = builtins.max(int(_max(x)) + 1, minlength)
    if x.size == 0:
        dtype = np.float64 if weights is not None else np.int64
        return full((length,), 0, dtype=dtype, device=x.device)
    return _bin_sums(x, length, weights)


def _edges(a, bins, range_, where):
    """The bin edges of histogram: `bins` equal bins over range_ (or a's extremes), or the
    given increasing edges."""
    if isinstance(bins, (int, np.integer)):
        if bins < 1:
            raise ValueError(f"{where}: `bins` must be positive, when an integer")
        if range_ is not None:
            lo, hi = (float(v) for v in range_)
            if lo > hi:
                raise ValueError(f"{where}: max must be larger than min in range parameter.")
        elif a.size == 0:
            lo, hi = 0.0, 1.0
        else:
            lo, hi = float(_min(a)), float(_max(a))
        if not (np.isfinite(lo) and np.isfinite(hi)):
            raise ValueError(f"{where}: autodetected range of [{lo}, {hi}] is not finite"
                             if range_ is None else f"{where}: supplied range of [{lo}, {hi}] "
                             f"is not finite")
        if lo == hi:
            lo, hi = lo - 0.5, hi + 0.5
        dtype = np.result_type(a.dtype, np.float64 if a.dtype.kind in "iub" else a.dtype)
        return linspace(lo, hi, int(bins) + 1, dtype=dtype, device=a.device)
    if isinstance(bins, str):
        raise NotImplementedError(f"{where}: bins={bins!r} estimators are not in simt")
    (edges,) = _arrays_on_one_device([bins], where) if not isinstance(bins, Array) else (bins,)
    if edges.ndim != 1:
        raise ValueError(f"{where}: `bins` must be 1d, when an array")
    if edges.shape[0] > 1 and bool(_any(_F["greater"](edges[:-1], edges[1:]))):
        raise ValueError(f"{where}: `bins` must increase monotonically, when an array")
    return edges


def histogram(a, bins=10, range=None, density=None, weights=None):
    """NumPy's histogram: (counts or weight sums, edges); bins half-open but the last,
    which holds its right edge; values outside the edges (and NaNs) left out."""
    a = _as_array(a, "histogram")
    a = ravel(a)
    edges = _edges(a, bins, range, "histogram")
    a, edges = _arrays_on_one_device([a, edges], "histogram")
    nbins = edges.shape[0] - 1
    if weights is not None:
        a, weights = _arrays_on_one_device([a, weights], "histogram")
        if weights.shape != a.shape and weights.size != a.size:
            raise ValueError("histogram: weights should have the same shape as a.")
        weights = ravel(weights)
    # Each value's bin (the last bin closed), and a spare bin nbins for those outside.
    bin_of = _F["subtract"](searchsorted(edges, a, side="right"), 1)
    bin_of = _F["minimum"](bin_of, nbins - 1)
    inside = _F["logical_and"](_F["greater_equal"](a, edges[0]),
                               _F["less_equal"](a, edges[-1]))
    bin_of = _F["where"](inside, bin_of, nbins).astype(np.int64)
    if weights is None:
        counts = _bin_sums(bin_of, nbins + 1)[:-1]
    else:
        kind = weights.dtype
        running = weights.astype(np.float64) if kind.kind == "f" else weights
        counts = _bin_sums(bin_of, nbins + 1, running)[:-1].astype(kind)
    if density:
        widths = _F["subtract"](edges[1:], edges[:-1])
        counts = _F["divide"](_F["divide"](counts, widths), _sum(counts))
    return counts, edges


# --- interpolation and convolution -----------------------------------------------------------

def interp(x, xp, fp, left=None, right=None, period=None):
    """NumPy's interp: piecewise-linear through (xp, fp), xp increasing; `left` and
    `right` (fp's ends by default) outside; float64 (complex128 for complex fp)."""
    x, xp, fp = _arrays_on_one_device([x, xp, fp], "interp")
    if xp.ndim != 1 or fp.ndim != 1:
        raise ValueError("interp: data points must be 1-D sequences")
    if xp.shape[0] != fp.shape[0]:
        raise ValueError("interp: fp and xp are not of the same length.")
    if xp.shape[0] == 0:
        raise ValueError("interp: array of sample points is empty")
    dtype = np.complex128 if fp.dtype.kind == "c" else np.float64
    x, xp, fp = x.astype(np.float64), xp.astype(np.float64), fp.astype(dtype)
    if period is not None:
        if period == 0:
            raise ValueError("interp: period must be a non-zero value")
        period = builtins.abs(float(period))
        left = right = None
        x = _F["remainder"](x, period)
        xp = _F["remainder"](xp, period)
        order = argsort(xp)
        xp, fp = take(xp, order), take(fp, order)
        xp = concat([_F["subtract"](xp[-1:], period), xp, _F["add"](xp[0:1], period)])
        fp = concat([fp[-1:], fp, fp[0:1]])
    n = xp.shape[0]
    left = fp[0] if left is None else left
    right = fp[-1] if right is None else right
    if n == 1:
        inner = broadcast_to(fp[0], x.shape)
    else:
        j = _F["clip"](_F["subtract"](searchsorted(xp, x, side="right"), 1), 0, n - 2)
        x0, x1, f0, f1 = take(xp, j), take(xp, j + 1), take(fp, j), take(fp, j + 1)
        slope = _F["divide"](_F["subtract"](f1, f0), _F["subtract"](x1, x0))
        inner = _F["add"](_F["multiply"](slope, _F["subtract"](x, x0)), f0)
        # NumPy's guards: x on a sample point gives its value (no 0 * inf), a NaN from an
        # infinite slope is retried from the right end.
        retry = _F["add"](_F["multiply"](slope, _F["subtract"](x, x1)), f1)
        inner = _F["where"](_F["isnan"](inner), retry, inner)
        inner = _F["where"](_F["equal"](x, x0), f0, inner)
    result = _F["where"](_F["equal"](x, xp[-1]), fp[-1], inner)
    result = _F["where"](_F["greater"](x, xp[-1]), right, result)
    result = _F["where"](_F["less"](x, xp[0]), left, result)
    return _F["where"](_F["isnan"](x), np.nan, result).astype(dtype)


def _full_correlation(a, v):
    """c[k] = sum_n a[n + k - (m - 1)] * v[n] for k in [0, n + m - 1): a zero-padded a
    seen through overlapping windows (a strided view, no copy), times v."""
    n, m = a.shape[0], v.shape[0]
    padded = full((n + 2 * (m - 1),), 0, dtype=a.dtype, device=a.device)
    assign(padded[m - 1: m - 1 + n], a)
    step = padded.strides[0]
    windows = _view(padded, padded._impl.offset, (n + m - 1, m), (step, step))
    return matmul(windows, v)


def _correlate(a, v, mode, conjugate, where):
    a, v = _arrays_on_one_device([a, v], where)
    if a.ndim != 1 or v.ndim != 1:
        raise ValueError(f"{where}: object too deep for desired array (a and v must be 1-D)")
    n, m = a.shape[0], v.shape[0]
    if n == 0:
        raise ValueError(f"{where}: a cannot be empty")
    if m == 0:
        raise ValueError(f"{where}: v cannot be empty")
    if mode not in ("full", "same", "valid"):
        raise ValueError(f"{where}: mode must be one of 'full', 'same', 'valid', not {mode!r}")
    dtype = np.result_type(a.dtype, v.dtype)
    a, v = a.astype(dtype), v.astype(dtype)
    if conjugate and dtype.kind == "c":
        v = _F["conj"](v)
    full_ = _full_correlation(a, v)
    short, long = builtins.min(n, m), builtins.max(n, m)
    if mode == "full":
        return full_
    if mode == "valid":
        return full_[short - 1: long]
    # 'same': NumPy centres on the longer operand, from the other end when v is longer.
    start = (m - 1) // 2 if n >= m else n - 1 - (n - 1) // 2
    return full_[start: start + long]


def correlate(a, v, mode="valid"):
    """NumPy's correlate of 1-D arrays: c[k] = sum_n a[n + k] * conj(v[n])."""
    return _correlate(a, v, mode, True, "correlate")


def convolve(a, v, mode="full"):
    """NumPy's convolve of 1-D arrays: the correlation with v reversed."""
    a, v = _arrays_on_one_device([a, v], "convolve")
    if a.ndim == 1 and v.ndim == 1 and v.shape[0] > a.shape[0]:
        a, v = v, a  # convolution commutes; NumPy's centring for 'same' follows the longer
    if v.ndim == 1:
        v = flip(v)
    return _correlate(a, v, mode, False, "convolve")


# --- pad -------------------------------------------------------------------------------------

def _pairs(value, ndim, where, name, integer):
    pairs = np.broadcast_to(np.asarray(value), (ndim, 2)) if ndim else np.zeros((0, 2))
    if integer:
        if pairs.dtype.kind not in "iu":
            raise TypeError(f"{where}: `{name}` must be of integral type.")
        if (pairs < 0).any():
            raise ValueError(f"{where}: index can't contain negative values")
        return [(int(b), int(e)) for b, e in pairs]
    return [tuple(p) for p in pairs.tolist()]


def pad(array, pad_width, mode="constant", **kwargs):
    """NumPy's pad for modes 'constant' (constant_values), 'edge', 'reflect' and
    'symmetric' (reflect_type 'even' or 'odd'), and 'wrap': axis by axis, each axis' pads
    written across the earlier axes' pads (NumPy's order, so its corners), pads wider than
    the data filled in rounds, as NumPy's."""
    a = _as_array(array, "pad")
    allowed = {"constant": {"constant_values"}, "edge": set(), "wrap": set(),
               "reflect": {"reflect_type"}, "symmetric": {"reflect_type"}}
    if mode not in allowed:
        raise NotImplementedError(f"pad: simt has modes {sorted(allowed)}, not {mode!r}")
    extra = set(kwargs) - allowed[mode]
    if extra:
        raise ValueError(f"pad: unsupported keyword arguments for mode '{mode}': {extra}")
    method = kwargs.get("reflect_type", "even")
    if method not in ("even", "odd"):
        raise ValueError(f"pad: reflect_type must be 'even' or 'odd', not {method!r}")
    widths = _pairs(pad_width, a.ndim, "pad", "pad_width", True)
    values = _pairs(kwargs.get("constant_values", 0), a.ndim, "pad", "constant_values", False)
    shape = tuple(n + b + e for n, (b, e) in zip(a.shape, widths))
    out = empty(shape, dtype=a.dtype, device=a.device)
    centre = tuple(slice(b, b + n) for n, (b, _) in zip(a.shape, widths))
    assign(out[centre], a)
    for axis, ((before, after), (low, high)) in enumerate(zip(widths, values)):
        n = a.shape[axis]
        if n == 0 and mode != "constant" and (before or after):
            raise ValueError(f"pad: can't extend empty axis {axis} using modes other than "
                             f"'constant' or 'empty'")
        # This axis' region: every index of the earlier axes, the original of the later.
        region = out[tuple(slice(None) if i <= axis else centre[i] for i in range(a.ndim))]
        along = _Along(region, axis)
        if mode == "constant" or n == 0:
            along.set(0, before, low) if before else None
            along.set(before + n, before + n + after, high) if after else None
        elif mode == "edge" or (mode in ("reflect", "symmetric") and n == 1):
            # (NumPy extends a single element by itself in the reflecting modes too.)
            along.set(0, before, along.get(before, before + 1)) if before else None
            along.set(before + n, before + n + after,
                      along.get(before + n - 1, before + n)) if after else None
        elif mode == "wrap":
            while before or after:
                before, after = _wrap_round(along, before, after, n)
        else:
            while before or after:
                before, after = _reflect_round(along, before, after, n, method,
                                               mode == "symmetric")
    return out


class _Along:
    """Slices of a region along one axis: read (views) and written (assignments)."""

    def __init__(self, region, axis):
        self.region, self.axis, self.length = region, axis, region.shape[axis]

    def get(self, start, stop, step=None):
        return self.region[(slice(None),) * self.axis + (slice(start, stop, step),)]

    def set(self, start, stop, value):
        assign(self.get(start, stop), value)


def _reflect_round(along, before, after, period, method, include_edge):
    """One round of NumPy's _set_reflect_both: each side's pad filled with the mirror of
    what is already filled next to it (at most that much); the widths left to fill."""
    old = along.length - before - after
    if include_edge:
        old, offset = old // period * period, 1
    else:
        old, offset = (old - 1) // (period - 1) * (period - 1), 0
    if before:
        chunk = builtins.min(old, before)
        stop = before - offset
        values = along.get(stop + chunk, stop, -1)
        if method == "odd":
            values = _F["subtract"](_F["multiply"](2, along.get(before, before + 1)), values)
        along.set(before - chunk, before, values)
        before -= chunk
    if after:
        chunk = builtins.min(old, after)
        n = along.length
        start = n - after + offset - 2
        # NumPy slices from the end (negative indices); a stop before index 0 is None here.
        values = along.get(start, start - chunk if start - chunk >= 0 else None, -1)
        if method == "odd":
            values = _F["subtract"](_F["multiply"](2, along.get(n - after - 1, n - after)),
                                    values)
        along.set(n - after, n - after + chunk, values)
        after -= chunk
    return before, after


def _wrap_round(along, before, after, original):
    """One round of NumPy's _set_wrap_both: each side's pad filled from the other end of
    what is filled (whole periods of it); the widths left to fill."""
    n = along.length
    period = (n - before - after) // original * original
    left, right = 0, 0
    if before:
        end = before + period
        values = along.get(end - builtins.min(period, before), end)
        if before > period:
            along.set(before - period, before, values)
            left = before - period
        else:
            along.set(0, before, values)
    if after:
        start = n - after - period
        values = along.get(start, start + builtins.min(period, after))
        if after > period:
            along.set(n - after, n - after + period, values)
            right = after - period
        else:
            along.set(n - after, n, values)
    return left, right
