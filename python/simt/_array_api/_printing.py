"""How simt.Array prints, and iterates.

repr(a) is NumPy's repr of the values with the device added as one more keyword after
NumPy's own (shape=, dtype=): ``array([1., 2.], device='cuda:0')``, ``array([1, 2],
dtype=int8, device='cpu')``, placed as NumPy places its keywords (on the last line, or on
a line of its own when that line would pass the print options' linewidth). str(a) is
NumPy's str. NumPy's print options (numpy.set_printoptions, numpy.printoptions) apply.

An array larger than the print options' threshold prints summarized, as NumPy's do; from a
device whose memory the host cannot read, only the corners that are printed are copied.
"""

import re

import numpy as np

from .._array import Array

__all__ = []

# A summarized array's corners are copied in pieces spanning at most this many bytes.
_PIECE_BYTES = 1 << 20


def _span_bytes(a):
    """The bytes from a's lowest to its highest element (what a.get() of a view copies)."""
    if a.size == 0:
        return 0
    return sum(abs(s) * (n - 1) for n, s in zip(a.shape, a.strides)) + a.itemsize


def _summarized(a, options):
    return a.ndim > 0 and a.size > options["threshold"]


def _host_view(a):
    """a's values as a NumPy array: a view of host-visible memory (after the device's
    queued work), else a copy."""
    if a._impl.host_visible:
        a._impl.device.synchronize()
        return np.asarray(a)
    return a.get()


def _corners(a, edge):
    """A NumPy array that NumPy summarizes (at any threshold below its size) exactly as it
    summarizes `a`: on each axis longer than 2 * edge, a's first and last `edge` elements
    with one unprinted element between them; the other axes whole. Only those elements are
    copied from the device."""
    parts, shape = [], []  # per axis: [(start, stop, start in the result)], result extent
    for n in a.shape:
        if n > 2 * edge:
            parts.append([(0, edge, 0), (n - edge, n, edge + 1)])
            shape.append(2 * edge + 1)
        else:
            parts.append([(0, n, 0)])
            shape.append(n)
    result = np.zeros(shape, a.dtype)
    _copy_parts(a, parts, result)
    return result


def _copy_parts(a, parts, result):
    """Copies into `result` the elements of `a` in the product of `parts`, each get()
    spanning at most _PIECE_BYTES where the parts allow."""
    box = tuple(slice(p[0][0], p[-1][1]) for p in parts)
    view = a[box]
    split = next((d for d, p in enumerate(parts) if len(p) > 1), None)
    if _span_bytes(view) <= _PIECE_BYTES or (split is None and view.size == 1):
        host = view.get()
        source = np.ix_(*[np.concatenate([np.arange(s, e) for s, e, _ in p]) - p[0][0]
                          for p in parts])
        target = np.ix_(*[np.concatenate([np.arange(t, t + e - s) for s, e, t in p])
                          for p in parts])
        result[target] = host[source]
        return
    if split is None:  # one box spanning too much (a view with long strides): halve it
        split = next(d for d, p in enumerate(parts) if p[0][1] - p[0][0] > 1)
        (s, e, t), = parts[split]
        middle = (s + e) // 2
        halves = [(s, middle, t), (middle, e, t + middle - s)]
    else:
        halves = parts[split]
    for half in halves:
        _copy_parts(a, parts[:split] + [[half]] + parts[split + 1:], result)


def _printed(a, options):
    """(NumPy array to print, whether it stands for `a` summarized)."""
    # (edgeitems=0: NumPy formats by every element, and prints the last ones.)
    if not _summarized(a, options) or a._impl.host_visible or options["edgeitems"] < 1:
        return _host_view(a), False
    return _corners(a, options["edgeitems"]), True


def _repr(self):
    options = np.get_printoptions()
    host, corners = _printed(self, options)
    if not corners:
        return _with_device(np.array_repr(host), host, options, self.device.id)
    with np.printoptions(threshold=0):
        text = _with_device(np.array_repr(host), host, options, self.device.id)
    # NumPy names the shape of a summarized array: a's, not the corners'.
    return re.sub(r"shape=\([0-9, ]*\)", f"shape={self.shape}", text, count=1)


def _with_device(text, host, options, device_id):
    """NumPy's repr `text` of `host` with ``device='...'`` after NumPy's keywords."""
    device = f"device={device_id!r})"
    prefix = "array("
    # NumPy's repr is prefix + the values (array2string's) + its keywords (if any) + ")".
    values = None
    if options["legacy"] is False and options["override_repr"] is None:
        try:
            values = np.array2string(host, separator=", ", prefix=prefix, suffix=")")
        except Exception:  # a formatter that fails outside NumPy's own call
            pass
    if values is None or not text.startswith(prefix + values):
        return text[:-1] + ", " + device  # NumPy's layout unknown: append to its text
    keywords = text[len(prefix + values):-1]  # "" or "," + spacer + "dtype=int8"
    extras = keywords.lstrip(",").lstrip() + ", " + device if keywords else device
    head = prefix + values + ","
    last_line = len(head) - (head.rfind("\n") + 1)
    spacer = " "
    if last_line + len(extras) + 1 > options["linewidth"]:
        spacer = "\n" + " " * len(prefix)
    return head + spacer + extras


def _str(self):
    options = np.get_printoptions()
    host, corners = _printed(self, options)
    if corners:
        with np.printoptions(threshold=0):
            return np.array_str(host)
    return np.array_str(host)


def _iter(self):
    """Iteration over the first axis, each item a view of the array (0-d arrays for a 1-d
    array); a 0-d array is not iterable, as NumPy's."""
    impl = self._impl
    if not impl.shape:
        raise TypeError("iteration over a 0-d array")
    shape, strides = list(impl.shape[1:]), list(impl.strides[1:])
    step, offset = impl.strides[0], impl.offset
    return (Array._wrap(impl.view(offset + i * step, shape, strides))
            for i in range(impl.shape[0]))


METHODS = {"__repr__": _repr, "__str__": _str, "__iter__": _iter}
