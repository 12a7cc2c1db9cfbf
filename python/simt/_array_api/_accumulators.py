"""The dtype a reduction or scan accumulates in, and the dtype of its result: NumPy's
rules, read by the generated reductions and scans (_reduction) and by the CUB scans'
table of compiled pairs (_scan_cub)."""

import numpy as np


def accumulator(op, dtype, requested):
    """(accumulator dtype, result dtype) of `op` over `dtype` (NumPy's rules)."""
    if requested is not None:
        d = np.dtype(requested)
        return (np.dtype(np.float32) if d == np.float16 else d), d
    if op in ("all", "any"):
        return np.dtype(bool), np.dtype(bool)
    if op == "count_nonzero":
        return np.dtype(np.int64), np.dtype(np.int64)
    if op in ("sum", "prod"):
        if dtype.kind == "b" or dtype.kind == "i":
            return np.dtype(np.int64), np.dtype(np.int64)
        if dtype.kind == "u":
            return np.dtype(np.uint64), np.dtype(np.uint64)
    if op == "mean":
        if dtype.kind in "biu":
            return np.dtype(np.float64), np.dtype(np.float64)
    if dtype == np.float16:
        return np.dtype(np.float32), dtype
    return dtype, dtype
