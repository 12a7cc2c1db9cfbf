"""The CUDA sort of one long row: CUB's onesweep through NVRTC (_sorting_onesweep).

Without a GPU: its source compiles with NVRTC for every key type, direction and pairs or
keys, so a CCCL update that breaks it shows in CI. On CUDA devices: simt.sort and
simt.argsort take it for 1-D arrays longer than a short row, and match NumPy's stable sort
bit for bit (NaN payloads and signed zeros included) at sizes around CUB's tile, across
look-back portions, into poisoned memory; where NVRTC cannot compile it the generated
sort runs.
"""

import numpy as np
import pytest

import simt
from simt._array_api import _sorting, _sorting_onesweep

from test_array_sorting import (REAL_DTYPES, _awkward, _skip_unless_fp64, expected_argsort,
                                poison_allocations)

DIRECTIONS = [False, True]


def _instances(dtype, descending, indices):
    """Explicit instantiations of a program's kernels (what name expressions ask NVRTC)."""
    key = _sorting_onesweep._key_type(np.dtype(dtype), descending)
    value = "long long" if indices else "cub::NullType"
    flag = "true" if descending else "false"
    return (f"template __global__ void onesweep_config<{key}, {value}>(int*);\n"
            f"template __global__ void onesweep_histogram<{key}, {value}, {flag}>"
            f"(unsigned*, const {key}*, unsigned, int);\n"
            f"template __global__ void onesweep_starts<{key}, {value}>(unsigned*);\n"
            f"template __global__ void onesweep_pass<{key}, {value}, {flag}>(int*, int*, "
            f"const unsigned*, unsigned*, int, {key}*, const {key}*, {value}*, "
            f"const {value}*, int, int, int);\n")


def _nvrtc_with_cub():
    if not simt._nvrtc_ptx.available():
        return False
    probe = simt._core.nvrtc_ptx("#include <cub/version.cuh>\n", 90, ["--simt-toolkit-includes"])
    return bool(probe["ok"])


@pytest.mark.skipif(not _nvrtc_with_cub(), reason="NVRTC with CCCL's headers is not installed")
@pytest.mark.parametrize("cc", [75, 90])
def test_onesweep_source_compiles_for_every_key(cc):
    """One program with every instance a sort can ask for (one compile keeps CI short)."""
    lines = {line: None for dtype in REAL_DTYPES for descending in DIRECTIONS
             for indices in (False, True)
             for line in _instances(dtype, descending, indices).splitlines()}
    text = _sorting_onesweep.SOURCE + "\n".join(lines)  # each instance once
    result = simt._core.nvrtc_ptx(text, cc, ["--simt-toolkit-includes"])
    assert result["ok"], result["log"][:4000]
    assert ".entry" in result["ptx"] and "onesweep_pass" in result["ptx"]


def test_onesweep_float_keys_order_as_numpy():
    """The keys' bijection (CUB's twiddle) and digit ties, modelled on the host: every
    float's key is in NumPy's order, every NaN and both zeros tie, and the bijection keeps
    bits; checked on every float16 and on random float32/float64 bits."""
    rng = np.random.default_rng(5)
    cases = [np.arange(1 << 16, dtype=np.uint16),
             rng.integers(0, 1 << 32, 200_000, dtype=np.uint64).astype(np.uint32),
             rng.integers(0, 1 << 63, 200_000, dtype=np.uint64) * np.uint64(2)
             + rng.integers(0, 2, 200_000, dtype=np.uint64)]
    for bits in cases:
        unsigned = bits.dtype.type
        width = bits.dtype.itemsize * 8
        mantissa = {16: 10, 32: 23, 64: 52}[width]
        high = unsigned(1) << unsigned(width - 1)
        pos_inf = unsigned((~high) >> unsigned(mantissa) << unsigned(mantissa))

        def flip(x):
            return np.where(x & high, ~x, x ^ high).astype(unsigned)

        rotation = flip(np.array([pos_inf | high], unsigned))[0]
        keys = (flip(bits) - rotation).astype(unsigned)
        unflipped = keys + rotation
        back = np.where(unflipped & high, unflipped ^ high, ~unflipped).astype(unsigned)
        np.testing.assert_array_equal(back, bits)  # a bijection: bits survive
        largest = (flip(np.array([pos_inf], unsigned)) - rotation).astype(unsigned)[0]
        tied = np.where(keys > largest, ~unsigned(0), keys)
        tied = np.where(tied == (flip(np.array([high], unsigned)) - rotation)[0],
                        (flip(np.array([0], unsigned)) - rotation)[0], tied)
        values = bits.view(f"f{width // 8}")
        order = np.argsort(tied, kind="stable")
        np.testing.assert_array_equal(order, np.argsort(values, kind="stable"))


# ----------------------------------------------------------------------------------------
# On CUDA devices


@pytest.fixture
def cuda_device(device):
    if device.backend != "cuda":
        pytest.skip("onesweep runs on CUDA devices")
    if _sorting_onesweep.program(device, np.dtype(np.int32), False, False) is None:
        why = _sorting_onesweep._unavailable[device.id]
        if _nvrtc_with_cub():  # the headers are there: the source must compile
            pytest.fail(f"onesweep does not compile on {device.id}: {why[:3000]}")
        pytest.skip(f"NVRTC finds no CCCL headers on {device.id}")
    return device


@pytest.fixture
def poisoned_onesweep(monkeypatch):
    """Every array onesweep (and the sort around it) allocates starts as 0xA5 bytes."""
    poison_allocations(monkeypatch, _sorting_onesweep, _sorting)


@pytest.fixture
def counted(monkeypatch):
    """How many sorts went through onesweep."""
    calls = []
    real = _sorting_onesweep.onesweep_sort

    def spy(*args):
        calls.append(args[0].shape[0])
        return real(*args)
    monkeypatch.setattr(_sorting_onesweep, "onesweep_sort", spy)
    return calls


def _bits(a):
    a = np.asarray(a)
    return a.view(f"u{a.itemsize}") if a.dtype.kind == "f" else a


def check_public_sorts(device, x, descending):
    """simt.sort/argsort of x against NumPy's stable order, every bit of the values."""
    a = simt.asarray(x, device=device)
    order = expected_argsort(x, -1, descending)
    what = f"{x.dtype} n={x.size} descending={descending}"
    got = simt.argsort(a, descending=descending).get()
    assert got.dtype == np.int64
    bad = np.nonzero(got != order)[0]
    assert bad.size == 0, f"argsort {what}: wrong at {bad[:5]}"
    values = simt.sort(a, descending=descending).get()
    bad = np.nonzero(_bits(values) != _bits(x[order]))[0]
    assert bad.size == 0, f"sort {what}: wrong at {bad[:5]}: {values[bad[:5]]}"


@pytest.mark.parametrize("dtype", REAL_DTYPES)
def test_public_sort_of_a_long_row_is_onesweep_at_tile_edges(cuda_device, rng, dtype,
                                                             poisoned_onesweep, counted):
    _skip_unless_fp64(cuda_device, dtype)
    tile = _sorting_onesweep.program(cuda_device, np.dtype(dtype), False, False).tile
    for n in (_sorting.SHORT_ROW + 1, tile - 1, tile, tile + 1, 3 * tile + 17):
        x = _awkward(rng, n, dtype)
        for descending in DIRECTIONS:
            check_public_sorts(cuda_device, x, descending)
    assert len(counted) == 5 * 2 * 2


def test_short_rows_and_many_rows_keep_the_generated_kernels(cuda_device, rng, counted):
    x = rng.standard_normal((3, 5000)).astype(np.float32)
    np.testing.assert_array_equal(simt.sort(simt.asarray(x, device=cuda_device)).get(),
                                  np.sort(x, kind="stable"))
    short = rng.standard_normal(_sorting.SHORT_ROW).astype(np.float32)
    np.testing.assert_array_equal(simt.sort(simt.asarray(short, device=cuda_device)).get(),
                                  np.sort(short))
    assert counted == []
    # A (1, N) or (N, 1) array is one row: onesweep, whatever the axis's place.
    column = rng.integers(-9, 9, (20_000, 1)).astype(np.int16)
    got = simt.argsort(simt.asarray(column, device=cuda_device), axis=0).get()
    np.testing.assert_array_equal(got, np.argsort(column, axis=0, kind="stable"))
    assert counted == [20_000]


@pytest.mark.parametrize("indices", [False, True])
@pytest.mark.parametrize("descending", DIRECTIONS)
def test_onesweep_across_look_back_portions(cuda_device, rng, poisoned_onesweep, descending,
                                            indices):
    """Arrays longer than a portion (2**28 elements in CUB's layout) take a launch per
    portion and pass, each finishing the next portion's digit starts: modelled here with
    portions of two tiles, so 5 portions sort a small array."""
    for dtype in (np.float32, np.int64, np.uint8):
        program = _sorting_onesweep.program(cuda_device, np.dtype(dtype), descending, indices)
        small = _sorting_onesweep._Program.__new__(_sorting_onesweep._Program)
        small.__dict__.update(program.__dict__, portion=2 * program.tile)
        x = _awkward(rng, 9 * program.tile + 5, dtype)
        out = simt.empty((x.size,), np.int64 if indices else x.dtype, device=cuda_device)
        _sorting_onesweep.onesweep_sort(simt.asarray(x, device=cuda_device), out, descending,
                                        indices, small)
        order = expected_argsort(x, -1, descending)
        expected = order if indices else x[order]
        bad = np.nonzero(_bits(out.get()) != _bits(expected))[0]
        assert bad.size == 0, f"{np.dtype(dtype)}: wrong at {bad[:5]}"


def test_without_cub_headers_the_generated_sort_runs(cuda_device, rng, monkeypatch, counted):
    monkeypatch.setattr(_sorting_onesweep, "SOURCE",
                        "#include <cub/no_such_header.cuh>\n" + _sorting_onesweep.SOURCE)
    monkeypatch.setattr(_sorting_onesweep, "_programs", {})
    monkeypatch.setattr(_sorting_onesweep, "_unavailable", {})
    x = rng.standard_normal(50_000).astype(np.float32)
    np.testing.assert_array_equal(simt.sort(simt.asarray(x, device=cuda_device)).get(),
                                  np.sort(x))
    assert counted == []
    assert "no_such_header" in _sorting_onesweep._unavailable[cuda_device.id]
