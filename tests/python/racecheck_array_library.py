"""Runs the array library's operations on the cpu device with every kernel race-checked
(started with SIMT_RACECHECK=1 by test_racecheck.py, so the library's generated kernels are
made with racecheck on): any RaceError fails the run. Each result is compared with NumPy's.
Prints one line per operation family and "all clean" at the end."""

import numpy as np

import simt

rng = np.random.default_rng(7)
# Large enough that the cpu device's launches have several blocks (elementwise
# kernels take at least 4096 elements per block there).
a = rng.standard_normal((301, 257)).astype(np.float32)
b = rng.standard_normal((257, 29)).astype(np.float32)
v = rng.standard_normal(40000).astype(np.float64)
ints = rng.integers(0, 50, 30000).astype(np.int32)
d_a, d_b, d_v, d_ints = (simt.asarray(x, device=simt.get_device("cpu")) for x in (a, b, v, ints))


def check(name, got, want, **tol):
    got = got.get() if hasattr(got, "get") else np.asarray(got)
    np.testing.assert_allclose(got, want, **(tol or {"rtol": 1e-4, "atol": 1e-4}))
    print("clean:", name, flush=True)


families = {
    "elementwise": lambda: check("elementwise", simt.sin(d_a) * 2 + d_a[0] - simt.exp(-d_a),
                                 np.sin(a) * 2 + a[0] - np.exp(-a)),
    "where": lambda: check("where", simt.where(d_a > 0, d_a, 0.5), np.where(a > 0, a, 0.5)),
    "sum": lambda: check("sum", simt.sum(d_a, axis=0), a.sum(axis=0)),
    "sum rows": lambda: check("sum rows", simt.sum(d_a, axis=1), a.sum(axis=1)),
    "sum all": lambda: check("sum all", simt.sum(d_v), v.sum()),
    "max": lambda: check("max", simt.max(d_a, axis=1), a.max(axis=1)),
    "argmax": lambda: check("argmax", simt.argmax(d_v), v.argmax()),
    "mean/var": lambda: check("var", simt.var(d_a, axis=0), a.var(axis=0), rtol=1e-3),
    "any/all": lambda: check("any", simt.any(d_a > 2, axis=1), (a > 2).any(axis=1)),
    "cumsum": lambda: check("cumsum", simt.cumsum(d_v), np.cumsum(v), rtol=1e-6),
    "sort": lambda: check("sort", simt.sort(d_v), np.sort(v)),
    "argsort": lambda: check("argsort", simt.argsort(d_ints, stable=True),
                             np.argsort(ints, kind="stable")),
    "sort ints": lambda: check("sort ints", simt.sort(d_ints), np.sort(ints)),
    "unique": lambda: check("unique", simt.unique_values(d_ints), np.unique(ints)),
    "searchsorted": lambda: check("searchsorted", simt.searchsorted(simt.sort(d_v), d_v[:5000]),
                                  np.searchsorted(np.sort(v), v[:5000])),
    "nonzero": lambda: check("nonzero", simt.nonzero(d_ints > 40)[0], np.nonzero(ints > 40)[0]),
    "boolean mask": lambda: check("mask", d_v[d_v > 0], v[v > 0]),
    "take": lambda: check("take", simt.take(d_v, d_ints), np.take(v, ints)),
    "setitem": lambda: setitem(),
    "concat": lambda: check("concat", simt.concat([d_a, d_a * 2]), np.concatenate([a, a * 2])),
    "flip/roll": lambda: check("roll", simt.roll(simt.flip(d_a, axis=0), 3, axis=1),
                               np.roll(np.flip(a, axis=0), 3, axis=1)),
    "transpose copy": lambda: check("transpose", simt.ascontiguousarray(d_a.T), a.T),
    "matmul": lambda: check("matmul", d_a @ d_b, a @ b, rtol=1e-3, atol=1e-3),
    "isin": lambda: check("isin", simt.isin(d_ints, d_ints[:10]), np.isin(ints, ints[:10])),
    "diff": lambda: check("diff", simt.diff(d_v), np.diff(v)),
    "linspace/eye/tril": lambda: check("tril", simt.tril(simt.eye(7) + simt.linspace(0, 1, 7)),
                                       np.tril(np.eye(7) + np.linspace(0, 1, 7))),
    "fft": lambda: check("fft", simt.fft.fft(d_v.astype(simt.complex128)), np.fft.fft(v),
                         rtol=1e-6, atol=1e-8),
    "rfft": lambda: check("rfft", simt.fft.rfft(d_v), np.fft.rfft(v), rtol=1e-6, atol=1e-8),
    "random": lambda: random_numbers(),
}


def setitem():
    # Distinct indices: with repeated ones the scatter's threads write one element each
    # (a race the checker reports, harmless only when every value written is the same).
    x = simt.asarray(v.copy(), device=simt.get_device("cpu"))
    where = rng.permutation(v.size)[:20000]
    x[simt.asarray(where, device=simt.get_device("cpu"))] = d_v[:20000]
    want = v.copy()
    want[where] = v[:20000]
    check("setitem", x, want)


def random_numbers():
    g = simt.random.default_rng(1)
    x = g.standard_normal(10000)
    y = g.integers(0, 10, 10000)
    assert abs(float(x.mean().get())) < 0.1 and 0 <= int(y.min().get()) <= int(y.max().get()) < 10
    print("clean: random", flush=True)


for name, run in families.items():
    run()
from simt._array_api import _generated  # noqa: E402

made = list(_generated._kernels.values())
assert made and all(k.racecheck is True for k in made), "SIMT_RACECHECK=1 did not reach them"
print(f"all clean: {len(made)} generated kernels race-checked")
