"""numba.cuda.reduce (numba.cuda.kernels.reduction.Reduce) for `simt.cuda`: `@cuda.reduce` turns a binary Python function into a
whole-array reduction on the current device (`add(arr, size=None, res=None, init=0,
stream=0)`), as Numba's does.

Each block combines its threads' values in shared memory (a tree whose pairs are
adjacent, so only valid values meet: no identity element is needed), one partial result
per block; the partials (at most _MAX_BLOCKS) are combined on the host with the same
Python function, `init` first, as Numba folds `init` into the result. The function must
be associative and commutative, as Numba requires: threads combine elements in strides.
"""

import functools

import numpy as np

from ... import _array, _device_api as cuda
from ..._device import block_size
from ..._kernel import Func, Kernel

_GPU_BLOCK = 256
_MAX_BLOCKS = 1024


def _partials_kernel(op, dtype, block):
    """The kernel of one block's partial result, for `op` on elements of `dtype`."""

    def reduce_partials(x, partials, n):
        values = cuda.shared.array(block, dtype)
        t = cuda.threadIdx.x
        first = cuda.blockIdx.x * block
        i = first + t
        step = cuda.gridDim.x * block
        if i < n:
            acc = x[i]
            i += step
            while i < n:
                acc = op(acc, x[i])
                i += step
            values[t] = acc
        cuda.syncthreads()
        count = min(block, n - first)  # threads of this block that hold a value
        w = 1
        while w < count:
            if t % (2 * w) == 0 and t + w < count:
                values[t] = op(values[t], values[t + w])
            cuda.syncthreads()
            w *= 2
        if t == 0:
            partials[cuda.blockIdx.x] = values[0]

    return Kernel(reduce_partials)


class Reduce:
    """A reduction by a binary function (Numba's cuda.Reduce); see `cuda.reduce`."""

    def __init__(self, function):
        functools.update_wrapper(self, function)
        self._function = function
        self._op = Func(function)
        self._kernels = {}  # (dtype, block) -> Kernel

    def __call__(self, arr, size=None, res=None, init=0, stream=0):
        """Reduces arr[:size] (a device array, or a NumPy array copied to the current
        device); returns the result, or writes it to res[0] and returns None."""
        x = arr if isinstance(arr, _array.Array) else _array.to_device(np.asarray(arr))
        if x.ndim != 1:
            raise ValueError(f"reduce: a 1-D array is reduced, not shape {x.shape}")
        n = x.size if size is None else int(size)
        if not 0 <= n <= x.size:
            raise ValueError(f"reduce: size {size} for an array of {x.size} elements")
        result = functools.reduce(self._function, self.partials(x, n, stream), init) if n \
            else init
        if res is not None:
            res[0:1] = np.asarray([result], dtype=res.dtype)
            return None
        return result


    def partials(self, x, n, stream=0):
        """The per-block partial results of reducing x[:n] (n >= 1, a 1-D device array), as
        a NumPy array of x's dtype: folding them with the function gives the reduction."""
        block = block_size(x.device, _GPU_BLOCK)
        blocks = min(-(-n // block), _MAX_BLOCKS)
        key = (x.dtype, block)
        kernel = self._kernels.get(key)
        if kernel is None:
            kernel = self._kernels[key] = _partials_kernel(self._op, x.dtype.type, block)
        partials = _array.empty(blocks, x.dtype, x.device)
        kernel[blocks, block, stream](x, partials, n)
        return partials.get(stream=stream)


def reduce(function):
    """`@cuda.reduce`: a reduction of 1-D arrays by the binary `function`."""
    if not callable(function):
        raise TypeError(f"cuda.reduce decorates a binary function, not "
                        f"{type(function).__name__}")
    return Reduce(function)


