"""argmax, argmin and stable sorts of host memory (the cpu device), split over threads.

NumPy's loop (vectorized, and it releases the GIL) computes each piece's index on a
thread of a small pool; the pieces' winners are then combined in order: a NaN wins (the
first one, as NumPy's), else the larger (smaller) value, a tie keeping the earlier index.
One NumPy call on one core read 2^24 float32 at 27-30 GB/s on the development machine;
two threads over 4 pieces took 0.7x its time (median; 0.4-1.6x on the shared machine).
Pieces are taken by whichever thread is free, so a thread the system deschedules does not
hold the rest (a static half each did: OpenBLAS's gemv, _linalg).
"""

import os
import threading
from concurrent.futures import ThreadPoolExecutor

import numpy as np

# Below this many bytes one call is faster than the pool's hand-offs: a run the caches
# hold (the development machine's L3 is 32 MiB) reads at 50 GB/s from one core: split,
# 2^22 float32 took 2.4x NumPy's time, 2^23 1.1x, 2^24 0.4-1.6x (median 0.7).
MIN_BYTES = 64 << 20
_PIECES_PER_THREAD = 2

_pool = None
_pool_lock = threading.Lock()


def _executor(threads):
    global _pool
    with _pool_lock:
        if _pool is None:
            _pool = ThreadPoolExecutor(threads, thread_name_prefix="simt-arg")
        return _pool


def _forget_pool():
    # A forked child has none of the parent's threads: it starts its own pool.
    global _pool, _pool_lock
    _pool, _pool_lock = None, threading.Lock()


if hasattr(os, "register_at_fork"):
    os.register_at_fork(after_in_child=_forget_pool)


def _wait(futures):
    for future in futures:
        future.result()


def _slabs(n, pieces):
    step = -(-n // pieces)
    return [(start, min(start + step, n)) for start in range(0, n, step)]


def split_arg(name, flat, threads):
    """np.argmax/np.argmin (`name`) of the 1-D contiguous NumPy array `flat`, or None
    where one call is the better plan (short, or a single thread)."""
    n = flat.size
    if threads < 2 or flat.nbytes < MIN_BYTES:
        return None
    pieces = _slabs(n, threads * _PIECES_PER_THREAD)
    loop = getattr(np, name)
    found = [_executor(threads).submit(loop, flat[i:j]) for i, j in pieces]
    greater = name == "argmax"
    best = best_value = None
    for (start, _), future in zip(pieces, found):
        index = int(future.result()) + start
        value = flat[index]
        if best is None:
            best, best_value = index, value
        elif best_value != best_value:  # a NaN already won
            break
        elif value != value or (value > best_value if greater else value < best_value):
            best, best_value = index, value
    return best


# An arg-reduction along one axis of a matrix splits the other axis between the threads
# (no combining step): from this many bytes (in the caches one call is faster).
ROWS_MIN_BYTES = 4 << 20


def split_arg_rows(name, matrix, axis, out, threads):
    """np.argmax/np.argmin (`name`) of the 2-D NumPy array `matrix` along `axis` into the
    1-D `out`, the other axis split between `threads` threads; False where one call is the
    better plan (small, or a single thread)."""
    if threads < 2 or matrix.ndim != 2 or matrix.nbytes < ROWS_MIN_BYTES:
        return False
    loop = getattr(np, name)
    other = matrix.shape[1 - axis]
    if other < threads:
        return False

    def part(i, j):
        piece = matrix[i:j] if axis == 1 else matrix[:, i:j]
        loop(piece, axis=axis, out=out[i:j])

    pool = _executor(threads)
    _wait([pool.submit(part, i, j) for i, j in _slabs(other, threads)])
    return True


# Sorts: NumPy's stable sort (timsort for 32- and 64-bit values) releases the GIL and
# merges presorted runs in one pass, so pieces sorted on the pool and then sorted again
# as a whole cost a merge (about 6% of a full sort of 2^24 float32 here). Below this many
# bytes one call stays (the hand-offs cost more than the pieces save).
SORT_MIN_BYTES = 1 << 20


def sort_last_axis(a, threads):
    """Sorts the NumPy array `a` in place along its last axis, stably, on `threads`
    threads: rows split between them, or one row's pieces sorted apart and then merged."""
    if threads < 2 or a.nbytes < SORT_MIN_BYTES or a.ndim == 0:
        a.sort(axis=-1, kind="stable")
        return
    pool = _executor(threads)
    if a.ndim > 1 and a.shape[0] >= threads:
        _wait([pool.submit(a[i:j].sort, axis=-1, kind="stable")
               for i, j in _slabs(a.shape[0], threads)])
        return
    if a.ndim > 1 and a.size != a.shape[-1]:
        a.sort(axis=-1, kind="stable")  # few long rows beside each other: left as one call
        return
    row = a[(0,) * (a.ndim - 1)]  # the one row, a view
    _wait([pool.submit(row[i:j].sort, kind="stable") for i, j in _slabs(row.size, threads)])
    row.sort(kind="stable")  # the merge of the presorted pieces


def argsort_last_axis(a, out, threads):
    """out[...] = the stable argsort of the NumPy array `a` along its last axis, on
    `threads` threads: rows split between them, or one row's pieces argsorted apart, then
    merged by a stable argsort of their sorted values (presorted runs: one pass)."""
    if threads < 2 or a.nbytes < SORT_MIN_BYTES or a.ndim == 0:
        out[...] = np.argsort(a, axis=-1, kind="stable")
        return
    pool = _executor(threads)

    def rows(i, j):
        out[i:j] = np.argsort(a[i:j], axis=-1, kind="stable")

    if a.ndim > 1 and a.shape[0] >= threads:
        _wait([pool.submit(rows, i, j) for i, j in _slabs(a.shape[0], threads)])
        return
    if a.ndim > 1 and a.size != a.shape[-1]:
        out[...] = np.argsort(a, axis=-1, kind="stable")
        return
    row = a[(0,) * (a.ndim - 1)]  # the one row, a view
    pieces = _slabs(row.size, threads)
    found = [pool.submit(np.argsort, row[i:j], kind="stable") for i, j in pieces]
    order = np.concatenate([future.result() + i for (i, _), future in zip(pieces, found)])
    merged = np.argsort(row[order], kind="stable")  # stable: the earlier piece first on ties
    out[(0,) * (out.ndim - 1)][...] = order[merged]
