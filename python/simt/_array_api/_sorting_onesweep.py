"""The CUDA sort of 1-D arrays: CUB's onesweep radix sort, compiled by NVRTC.

CUB (in CCCL, beside NVRTC in the CUDA toolkit and the nvidia-cuda-cccl wheel) sorts with
onesweep (Adinets and Merrill, 2022): one histogram kernel counts every pass's digits at
once, then each 8-bit pass is a single kernel whose blocks rank their tile, chain their
digit offsets to the next block by decoupled look-back and scatter, so an element is read
and written once per pass (8 bytes a pass for float32 keys) and a pass costs one launch.
The generated three-kernel sort (_sorting.radix_sort) reads each element twice per pass
and runs at about half CuPy's speed (docs/performance.md); this is CuPy's own algorithm.

simt drives CUB's agents with kernels of its own (the source below): CUB's dispatch layer
is host code (the runtime API) that NVRTC cannot compile, and simt launches through the
driver. Keys are the elements themselves, so sort moves them bit for bit and argsort sorts
(element, index) pairs with int64 indices:
- integers and bool: CUB's order is NumPy's (signed ones by their flipped sign bit);
- floats: NumPy's order is not IEEE's bit order (every NaN last and tied with the others
  whatever its sign and payload, -0.0 tied with 0.0), so floats sort as OrderedFloat keys.
  Their bijection to unsigned bits (CUB's "twiddle") is the usual sign flip rotated so
  that -inf is 0 and every NaN lies above +inf; their digit extractor (where CUB ties
  -0.0 with 0.0 for its own floats) also ties every NaN with the largest key (the smallest
  when descending). The bijection keeps the elements' bits; the extractor keeps stability.
Descending sorts complement the keys inside CUB (ties keep their order), as cupy.sort's
and the array API's descending=True need.

Used for 1-D sorts (and rows of a single row) of 2**31 - 1 elements at most on CUDA
devices where NVRTC compiles this source (CCCL's headers found, CUB's internals as in
CUDA 13); everything else takes the generated sort.
"""

import numpy as np

from .. import _raw_kernels
from .._array import Array, empty, zeros

SOURCE = r"""
#include <cub/agent/agent_radix_sort_histogram.cuh>
#include <cub/agent/agent_radix_sort_onesweep.cuh>
#include <cub/block/block_scan.cuh>
#include <cub/device/dispatch/tuning/tuning_radix_sort.cuh>

// A float sorted in NumPy's order; Bits is its storage, Mantissa its fraction bits.
template <class Bits, int Mantissa, bool Descending>
struct OrderedFloat
{
  Bits bits;
};

template <class Bits, int Mantissa>
struct FloatOrder
{
  static constexpr Bits ONES = Bits(~Bits(0));
  static constexpr Bits HIGH = Bits(Bits(1) << (8 * sizeof(Bits) - 1));
  static constexpr Bits POS_INF = Bits(Bits(ONES ^ HIGH) >> Mantissa << Mantissa);

  // IEEE order as unsigned bits: negatives complemented, positives above them.
  static constexpr __host__ __device__ Bits flip(Bits x)
  {
    return (x & HIGH) ? Bits(~x) : Bits(x ^ HIGH);
  }
  static constexpr __host__ __device__ Bits unflip(Bits t)
  {
    return (t & HIGH) ? Bits(t ^ HIGH) : Bits(~t);
  }

  // The rotation that takes -inf to 0 and so puts the negative NaNs above the positive ones.
  static constexpr Bits ROTATION = flip(Bits(POS_INF | HIGH));
  static constexpr __host__ __device__ Bits in(Bits x) { return Bits(flip(x) - ROTATION); }
  static constexpr __host__ __device__ Bits out(Bits r) { return unflip(Bits(r + ROTATION)); }

  static constexpr Bits LARGEST = Bits(flip(POS_INF) - ROTATION);  // +inf; above it: NaNs
  static constexpr Bits NEG_ZERO = Bits(flip(HIGH) - ROTATION);
  static constexpr Bits POS_ZERO = Bits(flip(Bits(0)) - ROTATION);
};

CUB_NAMESPACE_BEGIN

template <class Bits, int Mantissa, bool Descending>
struct NumericTraits<OrderedFloat<Bits, Mantissa, Descending>>
{
  using Order = FloatOrder<Bits, Mantissa>;
  using UnsignedBits = Bits;
  // CUB pads a partial tile with these; both land in the last digit of every pass.
  static constexpr Bits LOWEST_KEY = Order::out(0);
  static constexpr Bits MAX_KEY = Order::out(Order::ONES);
  static __host__ __device__ __forceinline__ Bits TwiddleIn(Bits key) { return Order::in(key); }
  static __host__ __device__ __forceinline__ Bits TwiddleOut(Bits key) { return Order::out(key); }
};

template <class Bits, int Mantissa, bool Descending>
struct BaseDigitExtractor<OrderedFloat<Bits, Mantissa, Descending>, false>
{
  using Order = FloatOrder<Bits, Mantissa>;
  using UnsignedBits = Bits;

  // key: Order::in of the element, complemented when descending.
  static __host__ __device__ __forceinline__ Bits ProcessFloatMinusZero(Bits key)
  {
    Bits r = Descending ? Bits(~key) : key;
    if (r > Order::LARGEST)
      return Descending ? Bits(0) : Order::ONES;
    if (r == Order::NEG_ZERO)
      r = Order::POS_ZERO;
    return Descending ? Bits(~r) : r;
  }
};

CUB_NAMESPACE_END

template <class Key, class Value>
using SortPolicy =
  typename cub::detail::radix::policy_hub<Key, Value, unsigned>::MaxPolicy::ActivePolicy;

// The launch shape of the device this compiles for, read by the host once per program.
template <class Key, class Value>
__global__ void onesweep_config(int* out)
{
  using P = SortPolicy<Key, Value>;
  out[0] = P::HistogramPolicy::BLOCK_THREADS;
  out[1] = P::ExclusiveSumPolicy::BLOCK_THREADS;
  out[2] = P::OnesweepPolicy::BLOCK_THREADS;
  out[3] = P::OnesweepPolicy::ITEMS_PER_THREAD;
  out[4] = P::ONESWEEP_RADIX_BITS;
}

// bins[pass][digit] += the count of the keys' digit of each pass (bins zeroed first).
template <class Key, class Value, bool Descending>
__global__ void __launch_bounds__(SortPolicy<Key, Value>::HistogramPolicy::BLOCK_THREADS)
  onesweep_histogram(unsigned* bins, const Key* keys, unsigned n, int end_bit)
{
  using Policy = typename SortPolicy<Key, Value>::HistogramPolicy;
  using Agent =
    cub::detail::radix_sort::AgentRadixSortHistogram<Policy, Descending, Key, unsigned>;
  __shared__ typename Agent::TempStorage storage;
  Agent(storage, bins, keys, n, 0, end_bit).Process();
}

// Each pass's bins to their exclusive sums (a block per pass).
template <class Key, class Value>
__global__ void onesweep_starts(unsigned* bins)
{
  using P = typename SortPolicy<Key, Value>::ExclusiveSumPolicy;
  constexpr int DIGITS = 1 << P::RADIX_BITS;
  constexpr int PER_THREAD = (DIGITS + P::BLOCK_THREADS - 1) / P::BLOCK_THREADS;
  using Scan = cub::BlockScan<unsigned, P::BLOCK_THREADS>;
  __shared__ typename Scan::TempStorage storage;
  unsigned counts[PER_THREAD];
  unsigned* pass = bins + blockIdx.x * DIGITS;
  for (int u = 0; u < PER_THREAD; ++u)
  {
    int digit = threadIdx.x * PER_THREAD + u;
    counts[u] = digit < DIGITS ? pass[digit] : 0u;
  }
  Scan(storage).ExclusiveSum(counts, counts);
  for (int u = 0; u < PER_THREAD; ++u)
  {
    int digit = threadIdx.x * PER_THREAD + u;
    if (digit < DIGITS)
      pass[digit] = counts[u];
  }
}

// One pass: keys (and values) in, scattered by the digit at current_bit.
template <class Key, class Value, bool Descending>
__global__ void __launch_bounds__(SortPolicy<Key, Value>::OnesweepPolicy::BLOCK_THREADS)
onesweep_pass(
  int* lookback,
  int* counter,
  const unsigned* bins,
  unsigned* next_bins,
  int has_next,
  Key* keys_out,
  const Key* keys_in,
  Value* values_out,
  const Value* values_in,
  int n,
  int current_bit,
  int num_bits)
{
  using Policy = typename SortPolicy<Key, Value>::OnesweepPolicy;
  using Agent = cub::detail::radix_sort::
    AgentRadixSortOnesweep<Policy, Descending, Key, Value, unsigned, int>;
  __shared__ typename Agent::TempStorage storage;
  // next_bins: the next portion's digit starts, which this launch completes.
  Agent(storage, lookback, counter, has_next ? next_bins : nullptr, bins, keys_out, keys_in,
        values_out, values_in, n, current_bit, num_bits)
    .Process();
}

extern "C" __global__ void onesweep_zero(int* out, long long n)
{
  long long i = blockIdx.x * (long long)blockDim.x + threadIdx.x;
  if (i < n)
    out[i] = 0;
}

extern "C" __global__ void onesweep_iota(long long* out, long long n)
{
  long long i = blockIdx.x * (long long)blockDim.x + threadIdx.x;
  if (i < n)
    out[i] = i;
}
"""


# The key type CUB sorts for each dtype: the element's own bits (bool as its byte).
_INTEGER_KEYS = {"b1": "unsigned char", "i1": "signed char", "u1": "unsigned char",
                 "i2": "short", "u2": "unsigned short", "i4": "int", "u4": "unsigned",
                 "i8": "long long", "u8": "unsigned long long"}
_FLOAT_KEYS = {2: ("unsigned short", 10), 4: ("unsigned", 23), 8: ("unsigned long long", 52)}

# Past this many elements a pass's 32-bit offsets (and CUB's int counts) would overflow.
MAX_ELEMENTS = 2 ** 31 - 1

# CUB's portion: onesweep's look-back sorts at most this many elements (a multiple of the
# tile) in one launch; longer arrays take several launches per pass.
_PORTION_LIMIT = (1 << 28) - 1

_programs = {}     # (device id, dtype, descending, indices) -> _Program
_unavailable = {}  # device id -> NVRTC's log where the source did not compile there


def _key_type(dtype, descending):
    if dtype.kind == "f":
        bits, mantissa = _FLOAT_KEYS[dtype.itemsize]
        return f"OrderedFloat<{bits}, {mantissa}, {'true' if descending else 'false'}>"
    return _INTEGER_KEYS[dtype.str[1:] if dtype.kind != "b" else "b1"]


class _Program:
    """The kernels of one (dtype, direction, keys or pairs) on one device, and the launch
    shape CUB's tuning policy gives that device's architecture (read from the device)."""

    def __init__(self, device, dtype, descending, indices):
        key = _key_type(dtype, descending)
        value = "long long" if indices else "cub::NullType"
        flag = "true" if descending else "false"
        names = {"config": f"onesweep_config<{key}, {value}>",
                 "histogram": f"onesweep_histogram<{key}, {value}, {flag}>",
                 "starts": f"onesweep_starts<{key}, {value}>",
                 "pass": f"onesweep_pass<{key}, {value}, {flag}>"}
        module = _raw_kernels.RawModule(SOURCE, options=("-std=c++17",),
                                        name_expressions=list(names.values()), device=device,
                                        backend="cuda")
        names.update(iota="onesweep_iota", zero="onesweep_zero")
        self.kernels = {role: module.get_function(name) for role, name in names.items()}
        config = zeros((5,), np.int32, device)
        self.kernels["config"][1, 1](config)
        (self.histogram_threads, self.starts_threads, self.threads, items,
         self.radix_bits) = (int(v) for v in config.get())
        self.tile = self.threads * items
        self.portion = _PORTION_LIMIT // self.tile * self.tile
        self.histogram_blocks = max(1, self.kernels["histogram"].max_resident_blocks(
            self.histogram_threads, device=device))


def program(device, dtype, descending, indices):
    """The device's _Program for these, or None where NVRTC cannot compile it there: no
    CCCL headers, or a CCCL whose internals differ from CUDA 13's (CUB's agents and
    tuning policies are not a stable interface; CI compiles this source with the
    toolkit's NVRTC, tests/python/test_sorting_onesweep.py). The generated sort then
    runs, and _unavailable[device.id] keeps NVRTC's log."""
    key = (device.id, dtype.str, descending, indices)
    return _raw_kernels.cached_program(_programs, _unavailable, device, key,
                                       lambda: _Program(device, dtype, descending, indices))


def onesweep_sort(flat, out, descending, indices, plan):
    """out = flat (1-D, contiguous) sorted, or (indices) the int64 indices that sort it, by
    plan (program()'s _Program for flat's dtype, the direction and indices), on the current
    stream as CUB's dispatch does it."""
    device, n = flat.device, flat.shape[0]
    kernels = plan.kernels
    passes = -(-flat.dtype.itemsize * 8 // plan.radix_bits)
    portions = -(-n // plan.portion)
    digits = 1 << plan.radix_bits
    blocks = -(-min(n, plan.portion) // plan.tile)

    # One scratch array, zeroed by one launch: each pass's digit starts per portion, each
    # portion-pass's tile counter, and per pass the tiles' look-back flags (zeroed again
    # for the later portions of a pass).
    bins_size, counters_size, lookback_size = (portions * passes * digits, portions * passes,
                                               blocks * digits)
    scratch = empty((bins_size + counters_size + passes * lookback_size,), np.int32, device)
    _zero(kernels, scratch, scratch.shape[0])
    bins = scratch
    counters = _at(scratch, bins_size)
    lookbacks = _at(scratch, bins_size + counters_size)
    kernels["histogram"][plan.histogram_blocks, plan.histogram_threads](
        bins, flat, np.uint32(n), np.int32(flat.dtype.itemsize * 8))
    kernels["starts"][passes, plan.starts_threads](bins)

    # Pass j reads buffer (passes - j) % 2 and writes (passes - 1 - j) % 2, so the last
    # writes buffer 0, the result; the keys' pass 0 reads the input, the values' the iota.
    keys = [out if not indices else empty((n,), flat.dtype, device),
            empty((n,), flat.dtype, device) if passes > 1 else None]
    if indices:
        values = [out, empty((n,), np.int64, device)]
        kernels["iota"][-(-n // 256), 256](values[passes % 2], np.int64(n))
    unused = empty((1,), np.int64, device)
    for j in range(passes):
        keys_in = flat if j == 0 else keys[(passes - j) % 2]
        keys_out = keys[(passes - 1 - j) % 2]
        values_in = values[(passes - j) % 2] if indices else unused
        values_out = values[(passes - 1 - j) % 2] if indices else unused
        for p in range(portions):
            start = p * plan.portion
            count = min(n - start, plan.portion)
            lookback = _at(lookbacks, j * lookback_size)
            if p > 0:
                _zero(kernels, lookback, lookback_size)
            kernels["pass"][-(-count // plan.tile), plan.threads](
                lookback, _at(counters, p * passes + j),
                _at(bins, (p * passes + j) * digits),
                _at(bins, ((p + 1) * passes + j) * digits) if p + 1 < portions else bins,
                np.int32(p + 1 < portions),
                keys_out, _at(keys_in, start), values_out,
                _at(values_in, start) if indices else unused,
                np.int32(count), np.int32(j * plan.radix_bits),
                np.int32(min(plan.radix_bits, flat.dtype.itemsize * 8 - j * plan.radix_bits)))


def _zero(kernels, array, count):
    kernels["zero"][-(-count // 256), 256](array, np.int64(count))


def _at(array, k):
    """The 1-D view of `array` from its element k on: what array[k:] gives, at a quarter
    of its cost (a sort takes some 25 of these a call)."""
    return Array._wrap(array._impl.view(array._impl.offset + k * array.itemsize,
                                        [array.shape[0] - k], [array.itemsize]))
