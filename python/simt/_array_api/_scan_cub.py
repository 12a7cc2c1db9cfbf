"""The CUDA scans of rows contiguous along the scanned axis: CUB's single-pass scan
(AgentScan with decoupled look-back), compiled by NVRTC, and a warp per row for short
rows.

The generated scan (_reduction._scan) gives a GPU thread a segment of a row each and reads
and writes every element three times (segment totals, a scan of the totals, a rescan from
offsets); along the last axis neighbouring threads read addresses a segment apart, so no
read is coalesced: 0.25x CuPy's cumulative_sum of 2**26 float32 on an H100 (issue 38).
Here each element is read and written once, coalesced:
- rows of more than SHORT_ROW elements (a 1-D array is one row): CUB's AgentScan, as
  cub::DeviceScan runs it (Merrill and Garland, 2016: each tile of a row scans itself
  in a block and chains its prefix from the tiles before it by decoupled look-back), with
  the tile CUB's tuning policy gives the device; rows are blockIdx.y, tiles blockIdx.x,
  so a row's earlier tiles are always scheduled before its later ones;
- shorter rows: a logical warp of the smallest power of two >= the row (at most 32) per
  row, reading the row 32 elements at a time (four such reads in flight) and carrying
  the running total.
simt drives CUB's agents with its own kernels, as _sorting_onesweep does: CUB's dispatch
is host code (the runtime API) that NVRTC cannot compile.

Rows whose elements are strided (a scan along any axis but the last) enough to fill the
device by a thread each stay with the generated scan, where neighbouring threads read
neighbouring addresses; other strided rows are copied contiguous first
(_reduction._cub_scan). Other devices, pairs of input and accumulator dtypes outside PAIRS,
and CUDA devices where NVRTC cannot compile this source (no CCCL headers, or CCCL
internals unlike CUDA 13's) take the generated scan.
"""

import numpy as np

from .. import _raw_kernels
from .._array import zeros, empty
from ._accumulators import accumulator

SOURCE = r"""
// CUB's scan tuning (tuning_scan.cuh) declares host-side policy wrappers for its dispatch
// next to the policies: with -default-device and CUB_RUNTIME_FUNCTION on both sides NVRTC
// parses them, and the PolicyWrapper they name (which CUB leaves out under NVRTC) only
// needs to exist, as nothing here instantiates them.
#define CUB_RUNTIME_FUNCTION __host__ __device__
#include <cub/agent/agent_scan.cuh>
CUB_NAMESPACE_BEGIN
namespace detail
{
template <class Policy, class = void>
struct PolicyWrapper : Policy
{};
template <class Policy>
__host__ __device__ constexpr PolicyWrapper<Policy> MakePolicyWrapper(Policy policy)
{
  return PolicyWrapper<Policy>{policy};
}
} // namespace detail
CUB_NAMESPACE_END
#include <cub/device/dispatch/tuning/tuning_scan.cuh>
#include <cub/warp/warp_scan.cuh>
#include <cuda/std/complex>
#include <cuda/std/functional>
#include <cuda_fp16.h>

template <class Acc, int Product>
using Combine =
  cuda::std::conditional_t<Product != 0, cuda::std::multiplies<Acc>, cuda::std::plus<Acc>>;

template <class Acc, int Product>
__device__ __forceinline__ Acc identity()
{
  return Acc(Product != 0 ? 1 : 0);
}

template <class In, class Acc, int Product>
using ScanPolicy = typename cub::detail::scan::
  policy_hub<In, Acc, Acc, long long, Combine<Acc, Product>>::MaxPolicy::ActivePolicy::ScanPolicyT;

// The launch shape of the device this compiles for and the tile states' sizes, read by
// the host once per program.
template <class In, class Acc, int Product>
__global__ void scan_config(long long* out)
{
  using P = ScanPolicy<In, Acc, Product>;
  using State = cub::ScanTileState<Acc>;
  out[0] = P::BLOCK_THREADS;
  out[1] = P::ITEMS_PER_THREAD;
  out[2] = State::description_bytes_per_tile;
  out[3] = State::payload_bytes_per_tile;
}

// Row row0 + blockIdx.y's tile states (state_bytes apart) set to "not yet".
template <class Acc>
__global__ void scan_tiles_init(char* states, long long state_bytes, int tiles)
{
  cub::ScanTileState<Acc> state;
  state.Init(tiles, states + blockIdx.y * state_bytes, state_bytes);
  state.InitializeStatus(tiles);
}

// out[row, first:] = the inclusive scan of x[row, :k] for rows row0 + blockIdx.y, and
// out[row, 0] = the identity when first is 1 (include_initial).
template <class In, class Acc, int Product>
__global__ void __launch_bounds__(ScanPolicy<In, Acc, Product>::BLOCK_THREADS) scan_rows(
  const In* x,
  long long x_row,
  Acc* out,
  long long out_row,
  int first,
  long long row0,
  char* states,
  long long state_bytes,
  long long k)
{
  using Agent = cub::detail::scan::AgentScan<ScanPolicy<In, Acc, Product>, const In*, Acc*,
                                             Combine<Acc, Product>, cub::NullType, long long, Acc>;
  __shared__ typename Agent::TempStorage storage;
  long long row = row0 + blockIdx.y;
  Acc* o = out + row * out_row;
  if (first && blockIdx.x == 0 && threadIdx.x == 0)
    o[0] = identity<Acc, Product>();
  cub::ScanTileState<Acc> state;
  state.Init(gridDim.x, states + blockIdx.y * state_bytes, state_bytes);  // a tile a block
  Agent(storage, x + row * x_row, o + first, Combine<Acc, Product>{}, cub::NullType{})
    .ConsumeRange(k, state, 0);
}

// The same for short rows, a logical warp of Width lanes per row (Width < 32 only for rows
// of Width elements at most): lane l reads elements l, l + Width, ..., so a warp reads
// 32 consecutive elements at a time, or whole neighbouring rows; STEPS such reads are in
// flight before the first is scanned (one at a time left a warp waiting on each).
template <class In, class Acc, int Product, int Width>
__global__ void __launch_bounds__(256) scan_short_rows(
  const In* x, long long x_row, Acc* out, long long out_row, int first, long long m, long long k)
{
  constexpr int STEPS = 4;
  using Scan = cub::WarpScan<Acc, Width>;
  __shared__ typename Scan::TempStorage storage[256 / Width];
  const Combine<Acc, Product> op{};
  const int lane = threadIdx.x % Width;
  const int group = threadIdx.x / Width;
  const long long groups = (long long)gridDim.x * (blockDim.x / Width);
  for (long long row = (long long)blockIdx.x * (blockDim.x / Width) + group; row < m;
       row += groups)
  {
    const In* xr = x + row * x_row;
    Acc* o = out + row * out_row;
    if (first && lane == 0)
      o[0] = identity<Acc, Product>();
    o += first;
    // The first step takes no carry: a sum of -0.0s is -0.0, as NumPy's (0.0 + -0.0 is
    // 0.0). The identity pads only the last step, whose total is not carried.
    Acc carry = identity<Acc, Product>();
    for (long long c = 0; c < k; c += STEPS * Width)
    {
      Acc v[STEPS];
#pragma unroll
      for (int s = 0; s < STEPS; ++s)
      {
        long long j = c + s * Width + lane;
        v[s] = j < k ? Acc(xr[j]) : identity<Acc, Product>();
      }
#pragma unroll
      for (int s = 0; s < STEPS; ++s)
      {
        long long j = c + s * Width + lane;
        if (c + s * Width >= k)
          break;
        Acc inclusive, total;
        Scan(storage[group]).InclusiveScan(v[s], inclusive, op, total);
        bool head = c + s == 0;
        if (j < k)
          o[j] = head ? inclusive : op(carry, inclusive);
        carry = head ? total : op(carry, total);
      }
    }
  }
}
"""

# The C++ type of each dtype this source scans (bool as CUB loads it: a byte read as bool).
_TYPES = {"b1": "bool", "i1": "signed char", "u1": "unsigned char", "i2": "short",
          "u2": "unsigned short", "i4": "int", "u4": "unsigned", "i8": "long long",
          "u8": "unsigned long long", "f2": "__half", "f4": "float", "f8": "double",
          "c8": "cuda::std::complex<float>", "c16": "cuda::std::complex<double>"}

# Rows up to this long take a logical warp each (scan_short_rows); longer ones CUB's tiles.
# A tile (1536 to 5376 elements, by the type and architecture) per row of 1024 would leave
# most of a block idle, while a warp's 32-element steps still read whole 128-byte lines.
SHORT_ROW = 1024

# gridDim.y's limit: more rows take several launches.
_MAX_GRID_Y = 65535

_programs = {}     # (device id, input dtype, accumulator dtype, product) -> _Program
_unavailable = {}  # device id -> NVRTC's log where the source did not compile there


def instances(dtype, acc, product):
    """The name expressions of the kernels one scan's program compiles."""
    t, a, p = _TYPES[_code(dtype)], _TYPES[_code(acc)], int(product)
    return {"config": f"scan_config<{t}, {a}, {p}>", "init": f"scan_tiles_init<{a}>",
            "rows": f"scan_rows<{t}, {a}, {p}>",
            **{f"short{w}": f"scan_short_rows<{t}, {a}, {p}, {w}>" for w in (4, 8, 16, 32)}}


def supported(dtype, acc):
    """Whether this source scans dtype into acc: with NumPy's default accumulator (int64
    for booleans and signed integers, uint64 for unsigned ones, float32 for float16) or in
    dtype itself (dtype=x.dtype) where it is 4 bytes or wider; other requested dtypes stay
    with the generated scan, which keeps the instances one program can ask for (and CI
    compiles, PAIRS) few."""
    return (dtype, acc) in PAIRS


def _dtype(code):
    return np.dtype(bool) if code == "b1" else np.dtype(code)


# Every (input, accumulator) the source is compiled for.
PAIRS = {(d, a) for d in map(_dtype, _TYPES)
         for a in {accumulator("sum", d, None)[0], d} if a.itemsize >= 4 and a.kind != "b"}


def _code(dtype):
    return "b1" if dtype.kind == "b" else dtype.str[1:]


class _Program:
    """The kernels of one (input, accumulator, operation) on one device, and the tile CUB's
    tuning policy gives that device's architecture (read from the device)."""

    def __init__(self, device, dtype, acc, product):
        names = instances(dtype, acc, product)
        config = zeros((4,), np.int64, device)  # first: a graph's capture refuses it
        # -default-device: CUB's tuning (tuning_scan.cuh) has unannotated constexpr helpers.
        module = _raw_kernels.RawModule(SOURCE, options=("-std=c++17", "-default-device"),
                                        name_expressions=list(names.values()), device=device,
                                        backend="cuda")
        self.kernels = {role: module.get_function(name) for role, name in names.items()}
        self.kernels["config"][1, 1](config)
        self.threads, items, self.description_bytes, self.payload_bytes = (
            int(v) for v in config.get())
        self.tile = self.threads * items

    def state_bytes(self, tiles):
        """A row's tile states: CUB's descriptors and (for values wider than a word) its
        partial and inclusive values, each aligned to CUB's 256 bytes, plus the alignment
        CUB's AliasTemporaries may take from the start; a multiple of 256 so that each row's
        states start aligned."""
        states = tiles + 32  # CUB's warp of padding states before the first tile

        def aligned(n):
            return -(-n // 256) * 256
        return aligned(states * self.description_bytes) + \
            2 * aligned(states * self.payload_bytes) + 256


def program(device, dtype, acc, product):
    """The device's _Program for these, or None where NVRTC cannot compile it there (no
    CCCL headers, or a CCCL whose internals differ from CUDA 13's: CUB's agents and tuning
    policies are not a stable interface; tests/python/test_scan_cub.py compiles every
    instance with the toolkit's NVRTC). The generated scan then runs, and
    _unavailable[device.id] keeps NVRTC's log."""
    key = (device.id, dtype.str, acc.str, product)
    try:
        return _raw_kernels.cached_program(_programs, _unavailable, device, key,
                                           lambda: _Program(device, dtype, acc, product))
    except RuntimeError as error:
        # A graph's capture refuses the launch-shape read (before queueing anything):
        # the generated scan records this call, a later one outside captures builds it.
        if "cannot be captured into a graph" not in str(error):
            raise
        return None


def scan(rows, out, product, first, plan):
    """out[:, first:] = the inclusive scans (sums, or products) of rows (m, k), whose
    elements are contiguous within a row, and out[:, 0] = the identity when first is 1;
    out is C-contiguous, (m, k + first). plan: program()'s _Program for the types."""
    m, k = rows.shape
    x_row, out_row = rows.strides[0] // rows.itemsize, out.strides[0] // out.itemsize
    kernels = plan.kernels
    if k <= SHORT_ROW or k == 0:  # (k == 0: include_initial's column alone)
        width = next(w for w in (4, 8, 16, 32) if w >= k or w == 32)
        blocks = -(-m * width // 256)
        kernels[f"short{width}"][blocks, 256](rows, np.int64(x_row), out, np.int64(out_row),
                                             np.int32(first), np.int64(m), np.int64(k))
        return
    tiles = -(-k // plan.tile)
    row_bytes = plan.state_bytes(tiles)
    for row0 in range(0, m, _MAX_GRID_Y):
        count = min(m - row0, _MAX_GRID_Y)
        states = empty((count * row_bytes,), np.uint8, rows.device)
        kernels["init"][(-(-tiles // 128), count), 128](states, np.int64(row_bytes),
                                                       np.int32(tiles))
        kernels["rows"][(tiles, count), plan.threads](
            rows, np.int64(x_row), out, np.int64(out_row), np.int32(first), np.int64(row0),
            states, np.int64(row_bytes), np.int64(k))
