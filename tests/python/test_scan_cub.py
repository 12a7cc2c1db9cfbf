"""Scans (cumulative_sum, cumulative_prod) at the edges of the CUDA scan's kernels
(_scan_cub: CUB's single-pass scan through NVRTC, a warp per short row).

Without a GPU: the source compiles with NVRTC for every (input, accumulator, operation)
the scan can ask for, so a CCCL update that breaks it shows in CI. On every device: the
scans match NumPy at lengths around CUB's tile (0, 1, tile - 1, tile, tile + 1, several
tiles, 2**22), for many short rows and few long ones, along every axis, with
include_initial, wrapping integers, NaN and -0.0; on CUDA devices they must take
_scan_cub's kernels (CUB's tiles, or the warps when rows are short) where it applies.
"""

import numpy as np
import pytest

import simt
from simt._array_api import _scan_cub

from test_sorting_onesweep import _nvrtc_with_cub

OPS = {"sum": (simt.cumulative_sum, np.cumsum), "prod": (simt.cumulative_prod, np.cumprod)}
NUMPY_INITIAL = {"sum": np.cumulative_sum, "prod": np.cumulative_prod}

# Tile sizes (threads x items) CUB's sm_90 tuning gives: used where no CUDA device reports its own.
_TILES = {4: 128 * 24, 8: 224 * 24}


def _instances(dtype, acc, product):
    """Explicit instantiations of a program's kernels (what name expressions ask NVRTC)."""
    t, a, p = _scan_cub._TYPES[_scan_cub._code(dtype)], _scan_cub._TYPES[_scan_cub._code(acc)], \
        int(product)
    lines = [f"template __global__ void scan_config<{t}, {a}, {p}>(long long*);",
             f"template __global__ void scan_tiles_init<{a}>(char*, long long, int);",
             f"template __global__ void scan_rows<{t}, {a}, {p}>(const {t}*, long long, {a}*, "
             f"long long, int, long long, char*, long long, long long);"]
    lines += [f"template __global__ void scan_short_rows<{t}, {a}, {p}, {w}>(const {t}*, "
              f"long long, {a}*, long long, int, long long, long long);" for w in (4, 8, 16, 32)]
    return lines


@pytest.mark.skipif(not _nvrtc_with_cub(), reason="NVRTC with CCCL's headers is not installed")
def test_scan_source_compiles_for_every_instance(cc=90):
    """One program with every instance a scan can ask for, for Hopper's tuning (one
    compile, for one architecture, keeps CI short: ~20 s on its two cores)."""
    lines = {line: None for dtype, acc in sorted(_scan_cub.PAIRS, key=str)
             for product in (False, True) for line in _instances(dtype, acc, product)}
    text = _scan_cub.SOURCE + "\n".join(lines)  # each instance once
    result = simt._core.nvrtc_ptx(text, cc, ["--simt-toolkit-includes", "-std=c++17",
                                             "-default-device"])
    assert result["ok"], result["log"][:4000]
    for kernel in ("scan_rows", "scan_tiles_init", "scan_short_rows", "scan_config"):
        assert kernel in result["ptx"]


def test_pairs_are_the_default_accumulators_and_the_dtypes_themselves():
    pairs = {(d.str, a.str) for d, a in _scan_cub.PAIRS}
    assert ("|b1", "<i8") in pairs and ("|i1", "<i8") in pairs and ("<u2", "<u8") in pairs
    assert ("<i4", "<i4") in pairs and ("<f2", "<f4") in pairs and ("<c16", "<c16") in pairs
    assert ("<f4", "<i8") not in pairs and ("|i1", "|i1") not in pairs


# ----------------------------------------------------------------------------------------
# On every device (CUDA ones through _scan_cub)


@pytest.fixture
def cub_calls(monkeypatch, device):
    """The (rows, k) of each scan _scan_cub ran; on CUDA devices where it compiles."""
    calls = []
    real = _scan_cub.scan

    def spy(rows, *args):
        calls.append(rows.shape)
        return real(rows, *args)
    monkeypatch.setattr(_scan_cub, "scan", spy)
    if device.backend == "cuda" and \
            _scan_cub.program(device, np.dtype(np.float32), np.dtype(np.float32), False) is None:
        why = _scan_cub._unavailable[device.id]
        if _nvrtc_with_cub():  # the headers are there: the source must compile
            pytest.fail(f"the CUB scan does not compile on {device.id}: {why[:3000]}")
        return None  # the generated scan runs: nothing to count
    return calls if device.backend == "cuda" else None


def _tile(device, dtype, acc):
    if device.backend == "cuda":
        plan = _scan_cub.program(device, np.dtype(dtype), np.dtype(acc), False)
        if plan is not None:
            return plan.tile
    return _TILES[np.dtype(acc).itemsize]


def _lengths(tile):
    return [0, 1, 2, 33, _scan_cub.SHORT_ROW, _scan_cub.SHORT_ROW + 1, tile - 1, tile,
            tile + 1, 3 * tile + 17]


def _check_float(got, x, op, rtol):
    """got against the float64 (complex128) scan of x: within rtol of the scan of |x| for
    sums (CUB and the segments add in another order), of the product itself for products;
    NaN where NumPy's is."""
    wide = x.astype(np.complex128 if x.dtype.kind == "c" else np.float64)
    want = OPS[op][1](wide)
    scale = np.cumsum(np.abs(wide)) if op == "sum" else np.abs(want)
    assert got.shape == want.shape
    np.testing.assert_array_equal(np.isnan(got), np.isnan(want))
    finite = ~np.isnan(want)
    bad = np.abs(got[finite] - want[finite]) > rtol * scale[finite] + 1e-30
    assert not bad.any(), f"{op} {x.dtype} n={x.size}: wrong at {np.nonzero(bad)[0][:5]}"


@pytest.mark.parametrize("dtype", [np.int32, np.int64, np.uint32, np.bool_], ids=str)
def test_integer_scans_across_tiles_wrap_as_numpy(device, rng, cub_calls, dtype):
    """Exact: every length around the tile, sums that overflow and wrap, include_initial."""
    tile = _tile(device, dtype, np.uint64 if dtype == np.uint32 else np.int64)
    for n in _lengths(tile):
        if dtype == np.bool_:
            xh = rng.random(n) < 0.5
        else:
            info = np.iinfo(dtype)
            xh = rng.integers(info.min, info.max, n, dtype=dtype, endpoint=True)
        x = simt.asarray(xh, device=device)
        for op, (ours, numpys) in OPS.items():
            got = ours(x)
            want = numpys(xh)
            assert got.dtype == want.dtype
            np.testing.assert_array_equal(got.get(), want, err_msg=f"{op} n={n}")
            initial = ours(x, include_initial=True).get()
            assert initial[0] == (0 if op == "sum" else 1)
            np.testing.assert_array_equal(initial[1:], want, err_msg=f"{op} initial n={n}")
        if dtype == np.int32:  # in int32 itself: wraps at 32 bits
            np.testing.assert_array_equal(simt.cumulative_sum(x, dtype=np.int32).get(),
                                          np.cumsum(xh, dtype=np.int32))
    if cub_calls is not None:
        assert len(cub_calls) >= 2 * (len(_lengths(tile)) - 1)


@pytest.mark.parametrize("dtype", [np.float32, np.float64], ids=str)
def test_float_scans_across_tiles_match_numpy(device, rng, cub_calls, dtype):
    tile = _tile(device, dtype, dtype)
    rtol = 1e-4 if dtype == np.float32 else 1e-12
    for n in _lengths(tile) + [(1 << 22) + 3]:
        xh = (rng.random(n) * 2 - 0.5).astype(dtype)
        x = simt.asarray(xh, device=device)
        _check_float(simt.cumulative_sum(x).get(), xh, "sum", rtol)
        if n > 100_000:
            continue  # a product's rounding errors grow with its factors
        ph = (0.999 + 0.002 * rng.random(n)).astype(dtype)  # neither over- nor underflows
        _check_float(simt.cumulative_prod(simt.asarray(ph, device=device)).get(), ph, "prod",
                     rtol)
    if cub_calls is not None:
        assert cub_calls and cub_calls[-1] == (1, (1 << 22) + 3)


def test_float_scans_propagate_nan_and_keep_negative_zero(device, rng, cub_calls):
    tile = _tile(device, np.float32, np.float32)
    for n in (1, 7, 40, _scan_cub.SHORT_ROW + 3, tile + 5, 3 * tile):
        zeros = np.full(n, -0.0, np.float32)
        got = simt.cumulative_sum(simt.asarray(zeros, device=device)).get()
        assert np.signbit(got).all(), f"n={n}: a sum of -0.0s is -0.0"
        initial = simt.cumulative_sum(simt.asarray(zeros, device=device),
                                      include_initial=True).get()
        assert not np.signbit(initial[0]) and np.signbit(initial[1:]).all()
        xh = (0.95 + 0.1 * rng.random(n)).astype(np.float32)  # products neither over- nor underflow
        for k, value in zip(rng.integers(0, n, 3), (np.nan, np.inf, -np.inf)):
            xh[k] = value
        for op, (ours, numpys) in OPS.items():
            got = ours(simt.asarray(xh, device=device)).get()
            with np.errstate(invalid="ignore"):  # inf - inf
                want = numpys(xh.astype(np.float64))
            np.testing.assert_array_equal(np.isnan(got), np.isnan(want), err_msg=f"{op} n={n}")


def test_small_and_complex_types_scan_as_numpy(device, rng, cub_calls):
    """float16 accumulates in float32 (a float16 result); int8 and uint16 in 64 bits."""
    for n in (5, 3000, 20_000):
        hh = rng.random(n).astype(np.float16)
        got = simt.cumulative_sum(simt.asarray(hh, device=device))
        assert got.dtype == np.float16
        want = np.cumsum(hh.astype(np.float32)).astype(np.float16)
        np.testing.assert_allclose(got.get().astype(np.float32), want.astype(np.float32),
                                   rtol=2e-3)
        for dtype in (np.int8, np.uint16):
            xh = rng.integers(0, 100, n).astype(dtype)
            got = simt.cumulative_sum(simt.asarray(xh, device=device))
            np.testing.assert_array_equal(got.get(), np.cumsum(xh))
            assert got.dtype == np.cumsum(xh).dtype
        ch = (rng.random(n) + 1j * rng.random(n)).astype(np.complex64)
        _check_float(simt.cumulative_sum(simt.asarray(ch, device=device)).get(), ch, "sum", 1e-4)


@pytest.mark.parametrize("shape, axis", [((5000, 3), 1), ((3000, 7), 1), ((700, 16), 1),
                                         ((300, 33), 1), ((80, 1000), 1), ((3, 1025), 1),
                                         ((2, 10_000), 1), ((4, 5, 7000), -1), ((40, 3000, 3), 1),
                                         ((1 << 16, 3), 0), ((3, 2, 1), 0), ((0, 5), 1),
                                         ((5, 0), 1)], ids=str)
@pytest.mark.parametrize("force", ["", "cub", "chunked"])
def test_row_scans_match_numpy(device, rng, cub_calls, monkeypatch, shape, axis, force):
    """Rows along every axis: short ones by warps (or, forced, by CUB's tiles), long ones by
    tiles, launched in chunks of rows when forced (gridDim.y's limit); strided rows few
    enough to be copied first, or many and left to a thread each."""
    if force == "cub":
        monkeypatch.setattr(_scan_cub, "SHORT_ROW", 0)
    elif force == "chunked":
        monkeypatch.setattr(_scan_cub, "SHORT_ROW", 0)
        monkeypatch.setattr(_scan_cub, "_MAX_GRID_Y", 3)
    xh = rng.integers(-2 ** 31, 2 ** 31, shape, dtype=np.int64)
    x = simt.asarray(xh, device=device)
    for op, (ours, numpys) in OPS.items():
        np.testing.assert_array_equal(ours(x, axis=axis).get(), numpys(xh, axis=axis),
                                      err_msg=op)
        got = ours(x, axis=axis, include_initial=True).get()
        want = NUMPY_INITIAL[op](xh, axis=axis, include_initial=True)
        np.testing.assert_array_equal(got, want, err_msg=f"{op} include_initial")
    fh = rng.random(shape).astype(np.float32)
    got = simt.cumulative_sum(simt.asarray(fh, device=device), axis=axis).get()
    np.testing.assert_allclose(got, np.cumsum(fh.astype(np.float64), axis=axis), rtol=1e-4)
    if cub_calls is not None and xh.size and (axis in (-1, xh.ndim - 1) or shape == (1 << 16, 3)):
        assert cub_calls


def test_scans_of_views_match_numpy(device, rng, cub_calls):
    """Rows apart by more than their length, reversed rows, reversed elements."""
    big = rng.integers(-1000, 1000, (50, 4000)).astype(np.int64)
    x = simt.asarray(big, device=device)
    for view in ((slice(None), slice(7, 3907)), (slice(None, None, -1), slice(None)),
                 (slice(None), slice(None, None, -1)), (slice(None, None, 3), slice(1, None, 2))):
        np.testing.assert_array_equal(simt.cumulative_sum(x[view], axis=1).get(),
                                      np.cumsum(big[view], axis=1), err_msg=str(view))
    np.testing.assert_array_equal(simt.cumsum(x).get(), np.cumsum(big))
    np.testing.assert_array_equal(simt.cumprod(x[:2, :5]).get(), np.cumprod(big[:2, :5]))


@pytest.fixture
def poisoned_scan(monkeypatch):
    """Every array the scan allocates (results, tile states) starts as 0xA5 bytes."""
    from simt._array_api import _reduction
    from test_array_sorting import poison_allocations
    poison_allocations(monkeypatch, _scan_cub, _reduction)


def test_scans_into_poisoned_memory_match_numpy(device, rng, cub_calls, poisoned_scan):
    """Nothing read before it is written: CUB's tile states, the include_initial column."""
    tile = _tile(device, np.int64, np.int64)
    for shape in ((3 * tile + 5,), (4, tile + 3), (300, 20)):
        xh = rng.integers(-1000, 1000, shape)
        x = simt.asarray(xh, device=device)
        np.testing.assert_array_equal(simt.cumulative_sum(x, axis=-1, include_initial=True).get(),
                                      np.cumulative_sum(xh, axis=-1, include_initial=True))


def test_scans_in_a_graph_are_recorded(device, rng, monkeypatch):
    """A scan whose program is not built yet, first called in a graph's capture, records
    the generated scan (building the program reads its launch shape, which a capture
    refuses); built, the CUB scan records its launches. Replays read the inputs then."""
    monkeypatch.setattr(_scan_cub, "_programs", {})
    for shape in ((5000,), (30, 20)):
        h = rng.integers(-100, 100, shape).astype(np.int64)
        x = simt.to_device(h, device=device)  # (asarray may share the cpu's memory with h)
        for attempt in range(2):
            with simt.use_device(device), simt.graph() as g:
                out = simt.cumulative_sum(x, axis=-1, include_initial=True)
            x.set(h + attempt)
            g.launch()
            np.testing.assert_array_equal(
                out.get(), np.cumulative_sum(h + attempt, axis=-1, include_initial=True))
            simt.cumulative_sum(x, axis=-1)  # builds the program outside the capture
            x.set(h)


# ----------------------------------------------------------------------------------------
# The host side of the CUDA path on the cpu device: _scan_cub's kernels modelled in NumPy


class _ModelKernel:
    """A kernel of _scan_cub's source as NumPy: checks its launch shape and arguments as
    the CUDA kernel reads them (pointers as the arrays' first elements, row strides in
    elements) and writes what the kernel would."""

    def __init__(self, role, plan, log):
        self.role, self.plan, self.log = role, plan, log

    def __getitem__(self, config):
        grid, block = config
        return lambda *args: self.run(grid if isinstance(grid, tuple) else (grid, 1), block,
                                      *args)

    def run(self, grid, block, *args):
        self.log.append((self.role, grid, block))
        if self.role == "init":
            states, state_bytes, tiles = args
            assert grid[0] * block >= int(tiles) and states.size >= grid[1] * int(state_bytes)
            np.asarray(states)[: grid[1] * int(state_bytes)] = 0  # "not yet", in the model
            return
        x, x_row, out, out_row, first = args[:5]
        if self.role == "rows":
            row0, states, state_bytes, k = args[5:]
            rows = range(int(row0), int(row0) + grid[1])
            assert block == self.plan.threads and grid[1] <= _scan_cub._MAX_GRID_Y
            assert grid[0] == -(-int(k) // self.plan.tile)
            assert states.size >= grid[1] * int(state_bytes) and int(state_bytes) % 256 == 0
        else:
            m, k = args[5:]
            width = int(self.role[len("short"):])
            assert block == 256 and grid[0] * 256 >= int(m) * width
            assert int(k) <= width or width == 32
            rows = range(int(m))
        k, first = int(k), int(first)
        assert x.shape[1] == k and (k <= 1 or x.strides[1] == x.itemsize)
        assert x.shape[0] <= 1 or x.strides[0] == int(x_row) * x.itemsize
        assert out.strides[0] == int(out_row) * out.itemsize and out.shape[1] == k + first
        xs, os = x.get(), np.asarray(out)
        op = np.cumprod if self.plan.product else np.cumsum
        for r in rows:
            if first:
                os[r, 0] = 1 if self.plan.product else 0
            os[r, first:] = op(xs[r].astype(os.dtype))


class _ModelPlan:
    def __init__(self, product, log):
        self.threads, self.tile, self.product = 128, 128 * 3, product
        self.description_bytes, self.payload_bytes = 16, 0
        self.kernels = {role: _ModelKernel(role, self, log)
                        for role in ("init", "rows", "short4", "short8", "short16", "short32")}

    state_bytes = _scan_cub._Program.state_bytes


@pytest.mark.parametrize("shape, axis", [((1000,), 0), ((0,), 0), ((7, 3), 1), ((9, 2000), 1),
                                         ((20, 30, 40), 2), ((5, 2000), 0), ((4000, 4), 0),
                                         ((2, 3, 2000), 1)], ids=str)
def test_cuda_scan_host_side_on_a_model(rng, monkeypatch, shape, axis):
    """_reduction's dispatch to _scan_cub and _scan_cub.scan's launches (rows in chunks of
    gridDim.y, warps by row length, views and strided rows) against NumPy, the kernels
    being NumPy models: the part of the CUDA path a machine without a GPU can run."""
    from simt._array_api import _reduction
    device = simt.get_device("cpu")
    log = []
    monkeypatch.setattr(_reduction, "builds_cuda", lambda d: True)
    monkeypatch.setattr(_scan_cub, "program", lambda d, t, a, p: _ModelPlan(p, log))
    monkeypatch.setattr(_scan_cub, "SHORT_ROW", 100)
    monkeypatch.setattr(_scan_cub, "_MAX_GRID_Y", 3)
    xh = rng.integers(-50, 50, shape).astype(np.int32)
    x = simt.asarray(xh, device=device)
    for view in (x, x[..., ::-1]):
        host = view.get()
        for initial in (False, True):
            for ours, theirs in ((simt.cumulative_sum, np.cumulative_sum),
                                 (simt.cumulative_prod, np.cumulative_prod)):
                got = ours(view, axis=axis, include_initial=initial)
                want = theirs(host, axis=axis, include_initial=initial)
                assert got.dtype == want.dtype
                np.testing.assert_array_equal(got.get(), want)
    if xh.size and axis == xh.ndim - 1:
        assert {role for role, _, _ in log} >= ({"init", "rows"} if shape[axis] > 100 else
                                                {"short4" if shape[axis] <= 4 else "short32"})
