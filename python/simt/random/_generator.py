"""simt.random.Generator: NumPy's Generator interface over a Philox4x32-10 stream whose
blocks are computed on the device the values are made on.

State: a 64-bit key (fixed by the seed) and a 128-bit counter, the next unused block.
A call that makes n values from `per` values per block uses the ceil(n / per) blocks from
the counter on, and moves the counter past them: consecutive calls continue the stream,
and a call's values depend on the key, the counter, the distribution and the dtype only
(never on the device or how its threads are laid out). Words of a call's last block that
it does not use are skipped, so two calls of n values are the values of one call of 2n
only when n is a multiple of `per`; the first n values of a call of m > n values are those
of a call of n values from the same state.
"""

import operator

import numpy as np

from .. import _array
from .._array import Array
from .._device import get_device
from .. import _launch
from .._axes import normalize_axis
from .._array_api._creation import asarray
from .._array_api._elementwise import assign
from .._array_api._indexing import take
from .._array_api._sorting import argsort
from . import _distributions, _philox

_FLOATS = (np.dtype(np.float32), np.dtype(np.float64))


def _key_of(seed_sequence):
    """The Philox key (two uint32 words, the first the low half) drawn from a
    SeedSequence: its first two 32-bit words of generate_state, as NumPy seeds its own
    bit generators from a SeedSequence."""
    words = seed_sequence.generate_state(2, np.uint32)
    return int(words[0]), int(words[1])


def _seed_sequence(seed, where):
    if isinstance(seed, np.random.SeedSequence):
        return seed
    if seed is None:
        return np.random.SeedSequence()  # fresh entropy from the operating system
    if isinstance(seed, (bool, float)) or not isinstance(seed, (int, np.integer)):
        raise TypeError(f"{where}: seed must be None, a non-negative int or a "
                        f"numpy.random.SeedSequence, not {type(seed).__name__}")
    if seed < 0:
        raise ValueError(f"{where}: seed must be non-negative, not {seed}")
    return np.random.SeedSequence(int(seed))


def _shape(size, where):
    """size as a shape: None -> () (a 0-d array), an int, or a tuple of ints."""
    if size is None:
        return ()
    try:
        shape = (operator.index(size),)
    except TypeError:
        try:
            shape = tuple(operator.index(e) for e in size)
        except TypeError:
            raise TypeError(f"{where}: size must be None, an int or a tuple of ints, not "
                            f"{size!r}") from None
    if any(e < 0 for e in shape):
        raise ValueError(f"{where}: negative dimensions are not allowed (size {size!r})")
    return shape


def _float_dtype(dtype, where):
    try:
        dtype = np.dtype(dtype)
    except TypeError:
        raise TypeError(f"{where}: unsupported dtype {dtype!r}; use float32 or float64") \
            from None
    if dtype not in _FLOATS:
        raise TypeError(f"{where}: unsupported dtype {dtype} (float32 and float64 only, as "
                        f"NumPy's Generator)")
    return dtype


def _scalar(value, name, where):
    """A float parameter given as a Python or NumPy number (or 0-d array)."""
    if isinstance(value, Array):
        if value.ndim != 0:
            raise TypeError(f"{where}: {name} must be a number; arrays of parameters are "
                            f"not supported (got shape {value.shape})")
        value = value.get()[()]
    if isinstance(value, np.ndarray) and value.ndim == 0:
        value = value[()]
    if isinstance(value, (bool, complex, np.complexfloating)) or \
            not isinstance(value, (int, float, np.integer, np.floating)):
        raise TypeError(f"{where}: {name} must be a real number, not {value!r}")
    return float(value)


def _integer(value, name, where):
    if isinstance(value, Array) and value.ndim == 0:
        value = value.get()[()]
    if isinstance(value, (bool, np.bool_)):
        return int(value)
    try:
        return operator.index(value)
    except TypeError:
        raise TypeError(f"{where}: {name} must be an int, not {value!r} (arrays of "
                        f"bounds are not supported)") from None


class Generator:
    """Random numbers on any device from a Philox4x32-10 stream (see simt.random).

    Made by simt.random.default_rng(seed). Every method takes `device` (default: the
    current device, as simt.empty) and returns a simt array there; `size` None gives a
    0-d array (where NumPy returns a Python scalar).
    """

    def __init__(self, key, counter=0):
        self._key = (int(key[0]) & 0xFFFFFFFF, int(key[1]) & 0xFFFFFFFF)
        self._counter = int(counter)

    def __repr__(self):
        return f"simt.random.Generator(Philox4x32-10, counter {self._counter})"

    # --- state ----------------------------------------------------------------------------

    @property
    def state(self):
        """{'bit_generator': 'Philox4x32-10', 'key': 64-bit int, 'counter': 128-bit int}:
        the key's low word is the first key word of the rounds, the counter the next
        block's; assigning such a dict restores a stream."""
        return {"bit_generator": "Philox4x32-10",
                "key": self._key[0] | self._key[1] << 32, "counter": self._counter}

    @state.setter
    def state(self, value):
        where = "simt.random.Generator.state"
        if not isinstance(value, dict) or value.get("bit_generator") != "Philox4x32-10":
            raise ValueError(f"{where}: a state is a dict from Generator.state "
                             f"(bit_generator 'Philox4x32-10'), not {value!r}")
        key, counter = int(value["key"]), int(value["counter"])
        if not 0 <= key < 2 ** 64:
            raise ValueError(f"{where}: the key must be in [0, 2**64), not {key}")
        if not 0 <= counter < _philox.STREAM_BLOCKS:
            raise ValueError(f"{where}: the counter must be in [0, 2**96), not {counter}")
        self._key = (key & 0xFFFFFFFF, key >> 32)
        self._counter = counter

    def _check_blocks(self, nblocks, where):
        if self._counter + nblocks > _philox.STREAM_BLOCKS:
            raise OverflowError(f"{where}: the generator's stream is exhausted (2**96 "
                                f"blocks); seed a new one")

    # --- the common path: a kernel filling a new (or given) array -------------------------

    def _fill(self, where, kernel_for, per, shape, dtype, device, params, out=None):
        if out is None:
            device = get_device(device)
            _launch.check_dtypes(device, (dtype,), where)
            flat = _array.empty((int(np.prod(shape, dtype=np.int64)),), dtype, device)
            result = flat.reshape(shape)
        else:
            flat, result = self._out_view(out, shape, dtype, device, where)
            _launch.check_dtypes(flat.device, (dtype,), where)
        self._check_blocks(-(-flat.size // per), where)
        # The counter moves once the launch is made (a call that fails uses no blocks).
        self._counter += _philox.launch(kernel_for, flat, per, self._counter, self._key,
                                        params)
        return result

    @staticmethod
    def _out_view(out, shape, dtype, device, where):
        if not isinstance(out, Array):
            raise TypeError(f"{where}: out must be a simt array, not {type(out).__name__}")
        if out.dtype != dtype:
            raise TypeError(f"{where}: out has dtype {out.dtype}, the values are {dtype}")
        if shape is not None and tuple(shape) != out.shape:
            raise ValueError(f"{where}: size {shape} differs from out's shape {out.shape}")
        if device is not None and get_device(device) != out.device:
            raise ValueError(f"{where}: out is on {out.device.id}, not {get_device(device).id}")
        if not out._contiguous():
            raise ValueError(f"{where}: out must be C-contiguous")
        return out.reshape((out.size,)), out

    def _floats(self, kind, where, size, dtype, device, params, out=None):
        dtype = _float_dtype(dtype, where)
        shape = None if out is not None and size is None else _shape(size, where)
        values = [dtype.type(p) for p in params]
        return self._fill(where, _distributions.float_kernel(kind, dtype),
                          _distributions.PER_BLOCK[dtype], shape, dtype, device, values, out)

    # --- floats ---------------------------------------------------------------------------

    def random(self, size=None, dtype=np.float64, out=None, *, device=None):
        """Uniform floats in [0, 1): float64 from 53 random bits, float32 from 24."""
        return self._floats("random", "simt.random.Generator.random", size, dtype, device, [],
                            out)

    def uniform(self, low=0.0, high=1.0, size=None, dtype=np.float64, *, device=None):
        """Uniform floats in [low, high): low + (high - low) * random()."""
        where = "simt.random.Generator.uniform"
        low, high = _scalar(low, "low", where), _scalar(high, "high", where)
        span = high - low
        if not np.isfinite(span):
            raise OverflowError(f"{where}: high - low ({high} - {low}) is not finite")
        return self._floats("uniform", where, size, dtype, device, [low, span])

    def standard_normal(self, size=None, dtype=np.float64, out=None, *, device=None):
        """Standard normal floats (Box-Muller; not NumPy's ziggurat values)."""
        return self._floats("normal", "simt.random.Generator.standard_normal", size, dtype,
                            device, [0.0, 1.0], out)

    def normal(self, loc=0.0, scale=1.0, size=None, dtype=np.float64, *, device=None):
        """Normal floats of mean `loc` and standard deviation `scale` (>= 0)."""
        where = "simt.random.Generator.normal"
        loc, scale = _scalar(loc, "loc", where), _scalar(scale, "scale", where)
        if not scale >= 0:
            raise ValueError(f"{where}: scale ({scale}) must be non-negative")
        return self._floats("normal", where, size, dtype, device, [loc, scale])

    def exponential(self, scale=1.0, size=None, dtype=np.float64, *, device=None):
        """Exponential floats of mean `scale` (>= 0): scale * -log1p(-random())."""
        where = "simt.random.Generator.exponential"
        scale = _scalar(scale, "scale", where)
        if not scale >= 0:
            raise ValueError(f"{where}: scale ({scale}) must be non-negative")
        return self._floats("exponential", where, size, dtype, device, [scale])

    def standard_exponential(self, size=None, dtype=np.float64, *, device=None):
        """Exponential floats of mean 1 (by inversion, not NumPy's ziggurat)."""
        return self._floats("exponential", "simt.random.Generator.standard_exponential",
                            size, dtype, device, [1.0])

    # --- integers -------------------------------------------------------------------------

    def integers(self, low, high=None, size=None, dtype=np.int64, endpoint=False, *,
                 device=None):
        """Integers in [low, high) ([low, high] with endpoint=True; [0, low) when high is
        None) of an integer dtype (or bool), every value equally likely: Lemire's
        multiply-and-reject for ranges of at most 2**32 values, masked rejection for wider
        ones, redraws from the element's own blocks (see simt.random)."""
        where = "simt.random.Generator.integers"
        dtype = self._integer_dtype(dtype, where)
        low = _integer(low, "low", where)
        if high is None:
            low, high = 0, low
        else:
            high = _integer(high, "high", where)
        last = high if endpoint else high - 1
        self._check_bounds(low, high, last, endpoint, dtype, where)
        method, params = _distributions.integer_params(last - low + 1)
        params = [np.uint64(low % 2 ** 64)] + params
        return self._fill(where, _distributions.integer_kernel(method, dtype),
                          _distributions.INT_PER_BLOCK[method], _shape(size, where), dtype,
                          device, params)

    @staticmethod
    def _integer_dtype(dtype, where):
        try:
            dtype = np.dtype(dtype)
        except TypeError:
            raise TypeError(f"{where}: unsupported dtype {dtype!r}") from None
        if dtype.kind not in "iub":
            raise TypeError(f"{where}: unsupported dtype {dtype} (integer dtypes and bool "
                            f"only, as NumPy's Generator)")
        return dtype

    @staticmethod
    def _check_bounds(low, high, last, endpoint, dtype, where):
        info = (0, 1) if dtype.kind == "b" else (np.iinfo(dtype).min, np.iinfo(dtype).max)
        if low < info[0]:
            raise ValueError(f"{where}: low ({low}) is out of bounds for {dtype}")
        if last > info[1]:
            raise ValueError(f"{where}: high ({high}) is out of bounds for {dtype}")
        if last < low:
            relation = "at least" if endpoint else "greater than"
            raise ValueError(f"{where}: high ({high}) must be {relation} low ({low})")

    def _bits64(self, n, device):
        """n uniform uint64 words on `device` (sort keys for permutations)."""
        return self.integers(0, 2 ** 64 - 1, n, np.uint64, endpoint=True, device=device)

    # --- permutations and sampling --------------------------------------------------------

    def _permutation_indices(self, n, device):
        """A uniformly random permutation of range(n) as an int64 array on `device`:
        the stable order of n random 64-bit keys drawn and sorted on the device (simt's
        argsort); the keys, and so the permutation, are the same on every device."""
        order = argsort(self._bits64(n, device), stable=True)
        return order if order.dtype == np.int64 else order.astype(np.int64)

    def permutation(self, x, axis=0, *, device=None):
        """A permuted range(x) (x an int) or a copy of the array x with its entries along
        `axis` permuted."""
        where = "simt.random.Generator.permutation"
        if isinstance(x, (int, np.integer)) and not isinstance(x, (bool, np.bool_)):
            if x < 0:
                raise ValueError(f"{where}: x ({x}) must be non-negative")
            return self._permutation_indices(int(x), device)
        x = self._as_array(x, device, where)
        if x.ndim == 0:
            raise ValueError(f"{where}: x must be an int or an array of at least one "
                             f"dimension, not 0-d")
        axis = normalize_axis(axis, x.ndim, where)
        return take(x, self._permutation_indices(x.shape[axis], x.device), axis=axis)

    def shuffle(self, x, axis=0):
        """Permutes the simt array x in place along `axis` (the whole subarrays move)."""
        where = "simt.random.Generator.shuffle"
        if not isinstance(x, Array):
            raise TypeError(f"{where}: x must be a simt array (shuffled in place on its "
                            f"device), not {type(x).__name__}")
        if x.ndim == 0:
            raise ValueError(f"{where}: x must have at least one dimension")
        if x.readonly:
            raise ValueError(f"{where}: x is read-only")
        axis = normalize_axis(axis, x.ndim, where)
        assign(x, take(x, self._permutation_indices(x.shape[axis], x.device), axis=axis))

    def choice(self, a, size=None, replace=True, p=None, axis=0, shuffle=True, *,
               device=None):
        """Samples of a (an array's entries along `axis`, or range(a) for an int a):
        with replacement uniformly (or with probabilities p: the first index whose
        cumulative probability exceeds a uniform float64); without replacement the first
        values of a random permutation (or, with p, the smallest of exponential / p keys,
        Efraimidis and Spirakis's weighted sampling). `shuffle` is accepted for NumPy's
        signature: the sample is in random order either way."""
        where = "simt.random.Generator.choice"
        population, values, device = self._population(a, axis, device, where)
        shape = _shape(size, where)
        k = int(np.prod(shape, dtype=np.int64))
        weights = None if p is None else self._probabilities(p, population, where)
        if population == 0 and k:
            raise ValueError(f"{where}: a is empty; it cannot be sampled ({k} values asked)")
        if replace:
            if weights is None:
                index = self.integers(0, max(population, 1), shape, device=device)
            else:
                index = self._weighted_with_replacement(weights, shape, device)
        else:
            if k > population:
                raise ValueError(f"{where}: cannot take a larger sample ({k}) than the "
                                 f"population ({population}) when replace=False")
            index = self._without_replacement(weights, population, k, device, where)
            index = index.reshape(shape)
        if values is None:
            return index
        axis = normalize_axis(axis, values.ndim, where)
        return take(values, index, axis=axis)

    def _population(self, a, axis, device, where):
        """(population size, the array sampled or None for an int a, its device)."""
        if isinstance(a, (int, np.integer)) and not isinstance(a, (bool, np.bool_)):
            if a < 0:
                raise ValueError(f"{where}: a ({a}) must be non-negative")
            return int(a), None, get_device(device)
        values = self._as_array(a, device, where)
        if values.ndim == 0:
            raise ValueError(f"{where}: a must be an int or an array of at least one "
                             f"dimension, not 0-d")
        return values.shape[normalize_axis(axis, values.ndim, where)], values, values.device

    @staticmethod
    def _as_array(x, device, where):
        if isinstance(x, Array):
            if device is not None and get_device(device) != x.device:
                raise ValueError(f"{where}: the array is on {x.device.id}, not "
                                 f"{get_device(device).id} (simt never copies implicitly)")
            return x
        return asarray(x, device=device)

    @staticmethod
    def _probabilities(p, population, where):
        """p as a validated float64 NumPy vector (NumPy's checks: its length, no negative
        or non-finite entries, a sum of 1 within sqrt(float64 epsilon))."""
        p = p.get() if isinstance(p, Array) else np.asarray(p)
        p = np.asarray(p, dtype=np.float64)
        if p.ndim != 1:
            raise ValueError(f"{where}: p must be 1-dimensional, not of shape {p.shape}")
        if p.size != population:
            raise ValueError(f"{where}: p has {p.size} entries, the population {population}")
        if not np.all(np.isfinite(p)) or np.any(p < 0):
            raise ValueError(f"{where}: p's entries must be finite and non-negative")
        total = p.sum()
        if abs(total - 1.0) > np.sqrt(np.finfo(np.float64).eps):
            raise ValueError(f"{where}: p's entries sum to {total}, not 1")
        return p

    def _weighted_with_replacement(self, p, shape, device):
        """Index j where cdf[j - 1] <= u < cdf[j], u uniform in [0, 1), cdf the cumulative
        sum of p scaled to end at exactly 1 (zero-probability entries are never drawn)."""
        cdf = np.cumsum(p)
        cdf /= cdf[-1]
        u = self.random(shape, device=device)
        index = _array.empty(shape, np.int64, device)
        _distributions.search(_array.to_device(cdf, device=device), u, index)
        return index

    def _without_replacement(self, p, population, k, device, where):
        if p is None:
            order = self._permutation_indices(population, device)
        else:
            if np.count_nonzero(p) < k:
                raise ValueError(f"{where}: p has fewer non-zero entries "
                                 f"({np.count_nonzero(p)}) than the sample ({k})")
            # Efraimidis-Spirakis: the k smallest E_i / p_i (E exponential) are a
            # weighted sample without replacement, in the order drawn.
            e = self.standard_exponential(population, device=device).get()
            with np.errstate(divide="ignore"):
                keys = np.where(p > 0, e / p, np.inf)
            order = _array.to_device(np.argsort(keys, kind="stable").astype(np.int64),
                                     device=device)
        return order[:k]


def default_rng(seed=None):
    """A Generator seeded by `seed`: None (fresh entropy from the operating system), a
    non-negative int, a numpy.random.SeedSequence, or a Generator (returned as it is).
    The key is the first two 32-bit words of SeedSequence(seed).generate_state; the
    counter starts at 0."""
    if isinstance(seed, Generator):
        return seed
    sequence = _seed_sequence(seed, "simt.random.default_rng")
    return Generator(_key_of(sequence))
