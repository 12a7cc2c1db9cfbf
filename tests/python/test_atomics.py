"""cuda.atomic.* on every available device, against NumPy.

Atomics return the value they replaced, so beyond the final contents of the array each
test checks the returned old values: for every slot, the updates must chain from the
initial value to the final one in some order (each thread's `old` is what an earlier
update produced, or the initial value). Inputs are fresh random values; float inputs of
the exact tests are multiples of 1/8 small enough for every order of additions to give
the same result.
"""

import functools
from collections import Counter

import numpy as np
import pytest

import simt
import kernel_helpers
from kernel_helpers import on  # noqa: F401
from simt import cuda

SIX = [np.int32, np.uint32, np.int64, np.uint64, np.float32, np.float64]
INTS = [np.int32, np.uint32, np.int64, np.uint64]
UNSIGNED = [np.uint32, np.uint64]
SLOTS = 8  # slots of the array the atomics hammer (few: heavy contention)
BLOCK = 128
NBINS_SHARED = 64


def blocks(n, block=BLOCK):
    return kernel_helpers.blocks(n, block)


def poison(dtype):
    return np.nan if np.dtype(dtype).kind == "f" else 0x5A


# The value each operation stores, given the old value and the operand (NumPy, in the dtype).
def _inc(old, v):
    return np.where(old >= v, 0, old + 1).astype(old.dtype)


def _dec(old, v):
    return np.where((old == 0) | (old > v), v, old - 1).astype(old.dtype)


OPS = {
    # name: (stored value, dtypes, NumPy ufunc giving the final value or None)
    "add": (np.add, SIX, np.add),
    "sub": (np.subtract, SIX, np.subtract),
    "min": (np.minimum, SIX, np.minimum),
    "max": (np.maximum, SIX, np.maximum),
    "exch": (lambda old, v: v.copy(), SIX, None),
    "and_": (np.bitwise_and, INTS, np.bitwise_and),
    "or_": (np.bitwise_or, INTS, np.bitwise_or),
    "xor": (np.bitwise_xor, INTS, np.bitwise_xor),
    "inc": (_inc, UNSIGNED, None),
    "dec": (_dec, UNSIGNED, None),
}
CASES = [pytest.param(op, dt, id=f"{op}-{np.dtype(dt).name}")
         for op, (_, dtypes, _) in OPS.items() for dt in dtypes]


# --------------------------------------------------------- one kernel per op, global memory

@simt.kernel
def g_add(a, idx, vals, old):
    i = cuda.grid(1)
    if i < idx.size:
        old[i] = cuda.atomic.add(a, idx[i], vals[i])


@simt.kernel
def g_sub(a, idx, vals, old):
    i = cuda.grid(1)
    if i < idx.size:
        old[i] = cuda.atomic.sub(a, idx[i], vals[i])


@simt.kernel
def g_min(a, idx, vals, old):
    i = cuda.grid(1)
    if i < idx.size:
        old[i] = cuda.atomic.min(a, idx[i], vals[i])


@simt.kernel
def g_max(a, idx, vals, old):
    i = cuda.grid(1)
    if i < idx.size:
        old[i] = cuda.atomic.max(a, idx[i], vals[i])


@simt.kernel
def g_exch(a, idx, vals, old):
    i = cuda.grid(1)
    if i < idx.size:
        old[i] = cuda.atomic.exch(a, idx[i], vals[i])


@simt.kernel
def g_and_(a, idx, vals, old):
    i = cuda.grid(1)
    if i < idx.size:
        old[i] = cuda.atomic.and_(a, idx[i], vals[i])


@simt.kernel
def g_or_(a, idx, vals, old):
    i = cuda.grid(1)
    if i < idx.size:
        old[i] = cuda.atomic.or_(a, idx[i], vals[i])


@simt.kernel
def g_xor(a, idx, vals, old):
    i = cuda.grid(1)
    if i < idx.size:
        old[i] = cuda.atomic.xor(a, idx[i], vals[i])


@simt.kernel
def g_inc(a, idx, vals, old):
    i = cuda.grid(1)
    if i < idx.size:
        old[i] = cuda.atomic.inc(a, idx[i], vals[i])


@simt.kernel
def g_dec(a, idx, vals, old):
    i = cuda.grid(1)
    if i < idx.size:
        old[i] = cuda.atomic.dec(a, idx[i], vals[i])


@simt.kernel
def g_cas(a, idx, cmp, vals, old):
    i = cuda.grid(1)
    if i < idx.size:
        old[i] = cuda.atomic.cas(a, idx[i], cmp[i], vals[i])


GLOBAL_KERNELS = {"add": g_add, "sub": g_sub, "min": g_min, "max": g_max, "exch": g_exch,
                  "and_": g_and_, "or_": g_or_, "xor": g_xor, "inc": g_inc, "dec": g_dec,
                  "cas": g_cas}


# ------------------------------------------- the same on a shared array, one copy per block

@functools.lru_cache(maxsize=None)
def shared_kernels(dtype):
    """Kernels doing each atomic on a shared array of `dtype` (a closure constant): block b
    loads a[b, :] into shared memory, its threads update it, and it is stored to final[b]."""
    DT = dtype

    @simt.kernel
    def s_add(a, idx, vals, old, final):
        sh = cuda.shared.array(SLOTS, DT)
        tid = cuda.threadIdx.x
        if tid < SLOTS:
            sh[tid] = a[cuda.blockIdx.x, tid]
        cuda.syncthreads()
        i = cuda.grid(1)
        if i < idx.size:
            old[i] = cuda.atomic.add(sh, idx[i], vals[i])
        cuda.syncthreads()
        if tid < SLOTS:
            final[cuda.blockIdx.x, tid] = sh[tid]

    @simt.kernel
    def s_sub(a, idx, vals, old, final):
        sh = cuda.shared.array(SLOTS, DT)
        tid = cuda.threadIdx.x
        if tid < SLOTS:
            sh[tid] = a[cuda.blockIdx.x, tid]
        cuda.syncthreads()
        i = cuda.grid(1)
        if i < idx.size:
            old[i] = cuda.atomic.sub(sh, idx[i], vals[i])
        cuda.syncthreads()
        if tid < SLOTS:
            final[cuda.blockIdx.x, tid] = sh[tid]

    @simt.kernel
    def s_min(a, idx, vals, old, final):
        sh = cuda.shared.array(SLOTS, DT)
        tid = cuda.threadIdx.x
        if tid < SLOTS:
            sh[tid] = a[cuda.blockIdx.x, tid]
        cuda.syncthreads()
        i = cuda.grid(1)
        if i < idx.size:
            old[i] = cuda.atomic.min(sh, idx[i], vals[i])
        cuda.syncthreads()
        if tid < SLOTS:
            final[cuda.blockIdx.x, tid] = sh[tid]

    @simt.kernel
    def s_max(a, idx, vals, old, final):
        sh = cuda.shared.array(SLOTS, DT)
        tid = cuda.threadIdx.x
        if tid < SLOTS:
            sh[tid] = a[cuda.blockIdx.x, tid]
        cuda.syncthreads()
        i = cuda.grid(1)
        if i < idx.size:
            old[i] = cuda.atomic.max(sh, idx[i], vals[i])
        cuda.syncthreads()
        if tid < SLOTS:
            final[cuda.blockIdx.x, tid] = sh[tid]

    @simt.kernel
    def s_exch(a, idx, vals, old, final):
        sh = cuda.shared.array(SLOTS, DT)
        tid = cuda.threadIdx.x
        if tid < SLOTS:
            sh[tid] = a[cuda.blockIdx.x, tid]
        cuda.syncthreads()
        i = cuda.grid(1)
        if i < idx.size:
            old[i] = cuda.atomic.exch(sh, idx[i], vals[i])
        cuda.syncthreads()
        if tid < SLOTS:
            final[cuda.blockIdx.x, tid] = sh[tid]

    @simt.kernel
    def s_and_(a, idx, vals, old, final):
        sh = cuda.shared.array(SLOTS, DT)
        tid = cuda.threadIdx.x
        if tid < SLOTS:
            sh[tid] = a[cuda.blockIdx.x, tid]
        cuda.syncthreads()
        i = cuda.grid(1)
        if i < idx.size:
            old[i] = cuda.atomic.and_(sh, idx[i], vals[i])
        cuda.syncthreads()
        if tid < SLOTS:
            final[cuda.blockIdx.x, tid] = sh[tid]

    @simt.kernel
    def s_or_(a, idx, vals, old, final):
        sh = cuda.shared.array(SLOTS, DT)
        tid = cuda.threadIdx.x
        if tid < SLOTS:
            sh[tid] = a[cuda.blockIdx.x, tid]
        cuda.syncthreads()
        i = cuda.grid(1)
        if i < idx.size:
            old[i] = cuda.atomic.or_(sh, idx[i], vals[i])
        cuda.syncthreads()
        if tid < SLOTS:
            final[cuda.blockIdx.x, tid] = sh[tid]

    @simt.kernel
    def s_xor(a, idx, vals, old, final):
        sh = cuda.shared.array(SLOTS, DT)
        tid = cuda.threadIdx.x
        if tid < SLOTS:
            sh[tid] = a[cuda.blockIdx.x, tid]
        cuda.syncthreads()
        i = cuda.grid(1)
        if i < idx.size:
            old[i] = cuda.atomic.xor(sh, idx[i], vals[i])
        cuda.syncthreads()
        if tid < SLOTS:
            final[cuda.blockIdx.x, tid] = sh[tid]

    @simt.kernel
    def s_inc(a, idx, vals, old, final):
        sh = cuda.shared.array(SLOTS, DT)
        tid = cuda.threadIdx.x
        if tid < SLOTS:
            sh[tid] = a[cuda.blockIdx.x, tid]
        cuda.syncthreads()
        i = cuda.grid(1)
        if i < idx.size:
            old[i] = cuda.atomic.inc(sh, idx[i], vals[i])
        cuda.syncthreads()
        if tid < SLOTS:
            final[cuda.blockIdx.x, tid] = sh[tid]

    @simt.kernel
    def s_dec(a, idx, vals, old, final):
        sh = cuda.shared.array(SLOTS, DT)
        tid = cuda.threadIdx.x
        if tid < SLOTS:
            sh[tid] = a[cuda.blockIdx.x, tid]
        cuda.syncthreads()
        i = cuda.grid(1)
        if i < idx.size:
            old[i] = cuda.atomic.dec(sh, idx[i], vals[i])
        cuda.syncthreads()
        if tid < SLOTS:
            final[cuda.blockIdx.x, tid] = sh[tid]

    @simt.kernel
    def s_cas(a, idx, cmp, vals, old, final):
        sh = cuda.shared.array(SLOTS, DT)
        tid = cuda.threadIdx.x
        if tid < SLOTS:
            sh[tid] = a[cuda.blockIdx.x, tid]
        cuda.syncthreads()
        i = cuda.grid(1)
        if i < idx.size:
            old[i] = cuda.atomic.cas(sh, idx[i], cmp[i], vals[i])
        cuda.syncthreads()
        if tid < SLOTS:
            final[cuda.blockIdx.x, tid] = sh[tid]

    return {"add": s_add, "sub": s_sub, "min": s_min, "max": s_max, "exch": s_exch,
            "and_": s_and_, "or_": s_or_, "xor": s_xor, "inc": s_inc, "dec": s_dec,
            "cas": s_cas}


# ---------------------------------------------------------------------------- inputs

def random_values(rng, op, dtype, shape):
    """Operands (or initial values) suited to `op`: full-range integers (wrapping),
    exactly-summable floats for add/sub, single bits for and_/or_."""
    dtype = np.dtype(dtype)
    if dtype.kind == "f":
        if op in ("add", "sub"):
            return (rng.integers(-1000, 1001, shape) / 8).astype(dtype)
        return (rng.standard_normal(shape) * 100).astype(dtype)
    info = np.iinfo(dtype)
    if op in ("and_", "or_"):
        bits = rng.integers(0, info.bits, shape).astype(dtype)
        one_bit = np.left_shift(np.ones(shape, dtype), bits)
        return np.invert(one_bit) if op == "and_" else one_bit
    return rng.integers(info.min, info.max, shape, dtype=dtype, endpoint=True)


def make_inputs(rng, op, dtype, n_groups, slots_of_thread):
    """(init (n_groups,), vals (n,)) for `op`; slots_of_thread gives each thread's group."""
    dtype = np.dtype(dtype)
    if op in ("inc", "dec"):
        limit = rng.integers(5, 60, n_groups).astype(dtype)
        init = np.minimum(rng.integers(0, 60, n_groups), limit).astype(dtype)
        init[0] = limit[0] + 7  # above the limit
        init[1] = 0
        return init, limit[slots_of_thread]
    init = random_values(rng, "init" if op in ("and_", "or_") else op, dtype, n_groups)
    if op == "or_":
        init &= random_values(rng, "init", dtype, n_groups)  # fewer bits set
    return init, random_values(rng, op, dtype, len(slots_of_thread))


def expected_final(op, init, groups, vals):
    update, _, ufunc = OPS[op]
    final = init.copy()
    if ufunc is not None:
        ufunc.at(final, groups, vals)
    elif op in ("inc", "dec"):
        for g in range(len(final)):  # every thread of a slot has the same operand
            for v in vals[groups == g]:
                final[g] = update(final[g:g + 1], np.array([v]))[0]
    else:
        return None  # exch: any of the operands
    return final


def check_chains(what, op, init, groups, vals, old, final):
    """Per slot: the multiset of returned olds plus the final value equals the multiset
    of stored values plus the initial value (the updates form one chain)."""
    update = OPS[op][0] if op != "cas" else None
    for g in range(len(init)):
        sel = groups == g
        before = old[sel]
        after = update(before, vals[sel])
        seen = Counter(before.tolist())
        seen[final[g].item()] += 1
        produced = Counter(after.tolist())
        produced[init[g].item()] += 1
        if seen != produced:
            raise AssertionError(
                f"{what}, slot {g}: the {sel.sum()} returned old values do not chain from "
                f"{init[g]!r} to the final {final[g]!r}: seen but never stored "
                f"{list((seen - produced).items())[:6]}, stored but never seen "
                f"{list((produced - seen).items())[:6]}")


# ------------------------------------------------------------------------------ tests

@pytest.mark.parametrize("op,dtype", CASES)
def test_atomic_on_global_array(device, rng, op, dtype):
    """Each op on each type: many threads per slot of a global array; the final values and
    the returned old values."""
    n = 2000
    idx = rng.integers(0, SLOTS, n)
    init, vals = make_inputs(rng, op, dtype, SLOTS, idx)
    what = f"atomic.{op} on a global {np.dtype(dtype).name} array on {device.id}"
    with on(device):
        a = simt.to_device(init, device=device)
        old = simt.full(n, poison(dtype), dtype=dtype, device=device)
        GLOBAL_KERNELS[op][blocks(n), BLOCK](a, simt.to_device(idx, device=device),
                                             simt.to_device(vals, device=device), old)
    final, old = a.get(), old.get()
    expected = expected_final(op, init, idx, vals)
    if expected is not None:
        np.testing.assert_array_equal(final, expected, err_msg=f"{what}: final values")
    check_chains(what, op, init, idx, vals, old, final)


@pytest.mark.parametrize("op,dtype", CASES)
def test_atomic_on_shared_array(device, rng, op, dtype):
    """The same on a shared array: each block updates its own copy."""
    nb, block = 4, 256
    n = nb * block - 24  # the last block is partial
    idx = rng.integers(0, SLOTS, n)
    groups = np.arange(n) // block * SLOTS + idx
    init, vals = make_inputs(rng, op, dtype, nb * SLOTS, groups)
    what = f"atomic.{op} on a shared {np.dtype(dtype).name} array on {device.id}"
    with on(device):
        old = simt.full(n, poison(dtype), dtype=dtype, device=device)
        final = simt.full((nb, SLOTS), poison(dtype), dtype=dtype, device=device)
        shared_kernels(dtype)[op][nb, block](
            simt.to_device(init.reshape(nb, SLOTS), device=device),
            simt.to_device(idx, device=device), simt.to_device(vals, device=device), old, final)
    final, old = final.get().ravel(), old.get()
    expected = expected_final(op, init, groups, vals)
    if expected is not None:
        np.testing.assert_array_equal(final, expected, err_msg=f"{what}: final values")
    check_chains(what, op, init, groups, vals, old, final)


def cas_inputs(rng, dtype, n_groups, groups):
    """Initial values and operands that never equal them (so one cas per slot succeeds)."""
    dtype = np.dtype(dtype)
    if dtype.kind == "f":
        init = (-1 - rng.random(n_groups) * 100).astype(dtype)
        vals = (1 + rng.random(len(groups)) * 100).astype(dtype)
    elif dtype.kind == "u":
        init = rng.integers(0, 1000, n_groups).astype(dtype)
        vals = rng.integers(10**6, np.iinfo(dtype).max, len(groups), dtype=dtype, endpoint=True)
    else:
        init = rng.integers(np.iinfo(dtype).min, -1, n_groups, dtype=dtype)
        vals = rng.integers(0, np.iinfo(dtype).max, len(groups), dtype=dtype, endpoint=True)
    return init, vals


def check_cas(what, init, groups, vals, old, final):
    for g in range(len(init)):
        sel = np.flatnonzero(groups == g)
        winners = sel[old[sel] == init[g]]
        assert len(winners) == 1, (
            f"{what}, slot {g}: {len(winners)} threads saw the initial value {init[g]!r} "
            f"(exactly one cas should succeed); olds {old[sel][:8]}")
        assert final[g] == vals[winners[0]], (
            f"{what}, slot {g}: final {final[g]!r}, but the successful cas stored "
            f"{vals[winners[0]]!r}")
        losers = sel[sel != winners[0]]
        bad = losers[old[losers] != final[g]]
        assert len(bad) == 0, (
            f"{what}, slot {g}: failed cas calls must return the current value {final[g]!r}; "
            f"threads {bad[:5]} returned {old[bad[:5]]}")


@pytest.mark.parametrize("dtype", SIX)
def test_atomic_cas_on_global_array(device, rng, dtype):
    """Every thread tries cas(a, slot, initial, its value): one per slot succeeds and
    returns the initial value, the others return the winner's value."""
    n = 2000
    idx = rng.integers(0, SLOTS, n)
    init, vals = cas_inputs(rng, dtype, SLOTS, idx)
    what = f"atomic.cas on a global {np.dtype(dtype).name} array on {device.id}"
    with on(device):
        a = simt.to_device(init, device=device)
        old = simt.full(n, poison(dtype), dtype=dtype, device=device)
        g_cas[blocks(n), BLOCK](a, simt.to_device(idx, device=device),
                                simt.to_device(init[idx], device=device),
                                simt.to_device(vals, device=device), old)
    check_cas(what, init, idx, vals, old.get(), a.get())


@pytest.mark.parametrize("dtype", SIX)
def test_atomic_cas_on_shared_array(device, rng, dtype):
    nb, block = 4, 256
    n = nb * block - 24
    idx = rng.integers(0, SLOTS, n)
    groups = np.arange(n) // block * SLOTS + idx
    init, vals = cas_inputs(rng, dtype, nb * SLOTS, groups)
    what = f"atomic.cas on a shared {np.dtype(dtype).name} array on {device.id}"
    with on(device):
        old = simt.full(n, poison(dtype), dtype=dtype, device=device)
        final = simt.full((nb, SLOTS), poison(dtype), dtype=dtype, device=device)
        shared_kernels(dtype)["cas"][nb, block](
            simt.to_device(init.reshape(nb, SLOTS), device=device),
            simt.to_device(idx, device=device), simt.to_device(init[groups], device=device),
            simt.to_device(vals, device=device), old, final)
    check_cas(what, init, groups, vals, old.get(), final.get().ravel())


@simt.kernel
def k_ticket(counter, old):
    i = cuda.grid(1)
    if i < old.size:
        old[i] = cuda.atomic.add(counter, 0, 1)


@pytest.mark.parametrize("dtype", SIX)
def test_add_one_returns_every_ticket_once(device, dtype):
    """Every thread does atomic.add(a, 0, 1): the returned olds are exactly 0 .. n-1."""
    n = 5000
    with on(device):
        counter = simt.zeros(1, dtype=dtype, device=device)
        old = simt.full(n, poison(dtype), dtype=dtype, device=device)
        k_ticket[blocks(n), BLOCK](counter, old)
    assert counter.get()[0] == n
    got = np.sort(old.get())
    missing = np.setdiff1d(np.arange(n), got)
    assert np.array_equal(got, np.arange(n, dtype=dtype)), (
        f"returned tickets are not 0..{n - 1}: missing {missing[:10]}, "
        f"duplicates {np.unique(got[1:][got[1:] == got[:-1]])[:10]}")


@simt.kernel
def k_cas_counter(counter, old_out):
    i = cuda.grid(1)
    if i < old_out.size:
        old = counter[0]
        while True:
            prev = cuda.atomic.cas(counter, 0, old, old + 1)
            if prev == old:
                break
            old = prev
        old_out[i] = old


@pytest.mark.parametrize("dtype", SIX)
def test_cas_loop_increment(device, dtype):
    """An increment written as a cas retry loop gives every thread a distinct ticket."""
    n = 3000
    with on(device):
        counter = simt.zeros(1, dtype=dtype, device=device)
        old = simt.full(n, poison(dtype), dtype=dtype, device=device)
        k_cas_counter[blocks(n), BLOCK](counter, old)
    assert counter.get()[0] == n
    np.testing.assert_array_equal(np.sort(old.get()), np.arange(n, dtype=dtype),
                                  err_msg="tickets from the cas loop")


@simt.kernel
def k_cas_max(x, result):
    i = cuda.grid(1)
    if i < x.size:
        v = x[i]
        old = result[0]
        while old < v:
            prev = cuda.atomic.cas(result, 0, old, v)
            if prev == old:
                break
            old = prev


@pytest.mark.parametrize("dtype", [np.int32, np.uint64, np.float32, np.float64])
def test_lock_free_max_with_cas(device, rng, dtype):
    n = 4000
    x = random_values(rng, "max", dtype, n)
    start = np.array([np.iinfo(dtype).min if np.dtype(dtype).kind in "iu" else -np.inf], dtype)
    with on(device):
        result = simt.to_device(start, device=device)
        k_cas_max[blocks(n), BLOCK](simt.to_device(x, device=device), result)
    assert result.get()[0] == x.max(), (result.get()[0], x.max())


@simt.kernel
def k_cas_bits(a, cmp, vals, old):
    i = cuda.grid(1)
    if i < a.size:
        old[i] = cuda.atomic.cas(a, i, cmp[i], vals[i])


@pytest.mark.parametrize("dtype", [np.float32, np.float64])
def test_float_cas_compares_bits(device, dtype):
    """cas on floats compares bits: -0.0 does not match 0.0, a NaN matches the same NaN."""
    a = np.array([0.0, np.nan, 1.5, -0.0], dtype)
    cmp = np.array([-0.0, np.nan, 1.5, 0.0], dtype)
    vals = np.array([5.0, 7.0, 9.0, 11.0], dtype)
    with on(device):
        d_a = simt.to_device(a, device=device)
        old = simt.zeros(4, dtype=dtype, device=device)
        k_cas_bits[1, 32](d_a, simt.to_device(cmp, device=device),
                          simt.to_device(vals, device=device), old)
    bits = np.dtype(dtype.__name__.replace("float", "uint")).type
    expected = np.array([0.0, 7.0, 9.0, -0.0], dtype)
    np.testing.assert_array_equal(d_a.get().view(bits), expected.view(bits),
                                  err_msg="values after cas (compared as bits)")
    np.testing.assert_array_equal(old.get().view(bits), a.view(bits),
                                  err_msg="returned old values (compared as bits)")


@simt.kernel
def k_atomic_types(a, out):
    o = cuda.atomic.add(a, 0, 1)
    m = cuda.atomic.max(a, 0, 1)
    e = cuda.atomic.exch(a, 0, a[0])
    out[0] = o + m + e


@pytest.mark.parametrize("dtype", SIX)
def test_atomic_results_have_the_array_dtype(device, dtype):
    a = np.zeros(1, dtype)
    types = k_atomic_types.inspect_types(a, a)
    name = np.dtype(dtype).name
    assert (types["o"], types["m"], types["e"]) == (name, name, name), types
    with on(device):
        d_a = simt.zeros(1, dtype=dtype, device=device)
        out = simt.zeros(1, dtype=dtype, device=device)
        k_atomic_types[1, 1](d_a, out)
    assert d_a.get()[0] == 1 and out.get()[0] == 0 + 1 + 1, (d_a.get(), out.get())


# --------------------------------------------------------------------------- histograms

@simt.kernel
def k_hist_global(x, hist):
    i = cuda.grid(1)
    if i < x.size:
        cuda.atomic.add(hist, x[i], 1)


@pytest.mark.parametrize("bins,n,dtype", [(4, 100_000, np.int32), (4, 100_000, np.uint64),
                                          (1000, 30_000, np.uint32), (1, 20_000, np.float32)])
def test_histogram_contention(device, rng, bins, n, dtype):
    """Global-memory histograms: few bins (heavy contention) and many bins."""
    x = rng.integers(0, bins, n).astype(np.int32)
    with on(device):
        hist = simt.zeros(bins, dtype=dtype, device=device)
        k_hist_global[blocks(n, 256), 256](simt.to_device(x, device=device), hist)
    np.testing.assert_array_equal(hist.get(), np.bincount(x, minlength=bins).astype(dtype),
                                  err_msg=f"{bins}-bin histogram of {n} values")


@simt.kernel
def k_hist_shared(x, hist):
    local = cuda.shared.array(NBINS_SHARED, np.uint32)
    tid = cuda.threadIdx.x
    for b in range(tid, NBINS_SHARED, cuda.blockDim.x):
        local[b] = 0
    cuda.syncthreads()
    for j in range(cuda.grid(1), x.size, cuda.gridsize(1)):
        cuda.atomic.add(local, x[j], 1)
    cuda.syncthreads()
    for b in range(tid, NBINS_SHARED, cuda.blockDim.x):
        cuda.atomic.add(hist, b, local[b])


@pytest.mark.parametrize("grid,block", [(8, 128), (3, 32)])
def test_shared_histogram_merged_with_global_atomics(device, rng, grid, block):
    """Per-block histograms in shared memory (skewed: bin 0 is hot), then merged."""
    n = 40_000
    x = np.minimum(rng.geometric(0.15, n) - 1, NBINS_SHARED - 1).astype(np.int64)
    with on(device):
        hist = simt.zeros(NBINS_SHARED, dtype=np.uint32, device=device)
        k_hist_shared[grid, block](simt.to_device(x, device=device), hist)
    np.testing.assert_array_equal(hist.get(), np.bincount(x, minlength=NBINS_SHARED))


@simt.kernel
def k_hist2d(r, c, w, counts, wmax, old):
    i = cuda.grid(1)
    if i < r.size:
        old[i] = cuda.atomic.add(counts, (r[i], c[i]), 1)
        cuda.atomic.max(wmax, (r[i], c[i]), w[i])


@pytest.mark.parametrize("order", ["C", "F"])
def test_atomics_with_2d_index_tuples(device, rng, order):
    n, shape = 3000, (5, 7)
    r = rng.integers(0, shape[0], n)
    c = rng.integers(0, shape[1], n)
    w = rng.standard_normal(n).astype(np.float32)
    with on(device):
        counts = simt.zeros(shape, dtype=np.int32, device=device, order=order)
        wmax = simt.full(shape, -np.inf, dtype=np.float32, device=device, order=order)
        old = simt.full(n, -1, dtype=np.int32, device=device)
        k_hist2d[blocks(n), BLOCK](*(simt.to_device(v, device=device) for v in (r, c, w)),
                                   counts, wmax, old)
    exp_counts = np.zeros(shape, np.int32)
    np.add.at(exp_counts, (r, c), 1)
    exp_max = np.full(shape, -np.inf, np.float32)
    np.maximum.at(exp_max, (r, c), w)
    np.testing.assert_array_equal(counts.get(), exp_counts, err_msg="atomic.add at (r, c)")
    np.testing.assert_array_equal(wmax.get(), exp_max, err_msg="atomic.max at (r, c)")
    old = old.get()
    for cell in np.ndindex(shape):
        sel = (r == cell[0]) & (c == cell[1])
        assert np.array_equal(np.sort(old[sel]), np.arange(sel.sum())), (
            f"olds returned for cell {cell} are not 0..{sel.sum() - 1}: {np.sort(old[sel])[:10]}")


@simt.kernel
def k_add_into_view(view, idx):
    i = cuda.grid(1)
    if i < idx.size:
        cuda.atomic.add(view, idx[i], 1)


def test_atomics_on_a_strided_view(device, rng):
    """A view with an offset and a stride (on OpenCL: a buffer plus an offset)."""
    n = 2000
    idx = rng.integers(0, 10, n)
    with on(device):
        base = simt.zeros(25, dtype=np.int64, device=device)
        k_add_into_view[blocks(n), BLOCK](base[3:23:2], simt.to_device(idx, device=device))
    expected = np.zeros(25, np.int64)
    expected[3:23:2] = np.bincount(idx, minlength=10)
    np.testing.assert_array_equal(base.get(), expected)


@simt.kernel
def k_hist2d_shared(r, c, counts):
    local = cuda.shared.array((4, 6), np.int64)
    tid = cuda.threadIdx.x
    if tid < 24:
        local[tid // 6, tid % 6] = 0
    cuda.syncthreads()
    i = cuda.grid(1)
    if i < r.size:
        cuda.atomic.add(local, (r[i], c[i]), 1)
    cuda.syncthreads()
    if tid < 24:
        cuda.atomic.add(counts, (tid // 6, tid % 6), local[tid // 6, tid % 6])


def test_atomics_with_index_tuples_on_a_2d_shared_array(device, rng):
    n = 5000
    r = rng.integers(0, 4, n)
    c = rng.integers(0, 6, n)
    with on(device):
        counts = simt.zeros((4, 6), dtype=np.int64, device=device)
        k_hist2d_shared[blocks(n), BLOCK](simt.to_device(r, device=device),
                                          simt.to_device(c, device=device), counts)
    expected = np.zeros((4, 6), np.int64)
    np.add.at(expected, (r, c), 1)
    np.testing.assert_array_equal(counts.get(), expected)


def e_and_on_float(a):
    cuda.atomic.and_(a, 0, 1)  # err:and-float


def e_inc_on_float(a):
    cuda.atomic.inc(a, 0, 1)  # err:inc-float


def e_add_on_scalar(a):
    x = a[0]
    cuda.atomic.add(x, 0, 1)  # err:add-scalar


@pytest.mark.parametrize("function", [e_and_on_float, e_inc_on_float, e_add_on_scalar],
                         ids=["and_-float32", "inc-float32", "add-on-a-scalar"])
def test_atomic_type_errors(device, function):
    """Bitwise and inc/dec atomics need integer arrays; atomics need an array."""
    kernel = simt.kernel(function)
    with on(device):
        a = simt.zeros(4, dtype=np.float32, device=device)
        with pytest.raises(simt.TypingError) as info:
            kernel[1, 32](a)
    assert "atomic" in str(info.value), str(info.value)


# ------------------------------------------------------------------------------ float sums

@simt.kernel
def k_float_sum(x, slot, total):
    i = cuda.grid(1)
    if i < x.size:
        cuda.atomic.add(total, slot[i], x[i])


@pytest.mark.parametrize("dtype", [np.float32, np.float64])
@pytest.mark.parametrize("slots", [1, 16])
def test_float_atomic_add_sums(device, rng, dtype, slots):
    """Float sums in any order: equal to NumPy's within the rounding of n additions."""
    n = 5000
    x = rng.standard_normal(n).astype(dtype)
    slot = rng.integers(0, slots, n)
    with on(device):
        total = simt.zeros(slots, dtype=dtype, device=device)
        k_float_sum[blocks(n), BLOCK](simt.to_device(x, device=device),
                                      simt.to_device(slot, device=device), total)
    expected = np.zeros(slots)
    np.add.at(expected, slot, x.astype(np.float64))
    scale = np.zeros(slots)
    np.add.at(scale, slot, np.abs(x.astype(np.float64)))
    got = total.get()
    assert got.dtype == dtype
    np.testing.assert_array_less(np.abs(got - expected), 8 * np.finfo(dtype).eps * scale + 1e-30,
                                 err_msg=f"float atomic sums: got {got}, expected {expected}")
