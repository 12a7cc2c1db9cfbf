"""cmath in kernels, NumPy's functions of complex numbers, and complex `**`, on every
device, against Python's cmath and NumPy on fresh random inputs (outputs poisoned).

Values are compared with a tolerance relative to the result's magnitude: the device's
libm and the helpers' formulas (codegen/complex_math.cpp) round differently from
CPython's cmath, by a few ulps of the larger part.
"""

import cmath
import math

import numpy as np
import pytest

import simt
from simt import cuda

NAMES = ["exp", "log", "log10", "sqrt", "sin", "cos", "tan", "asin", "acos", "atan",
         "sinh", "cosh", "tanh", "asinh", "acosh", "atanh"]


def _kernel(name):
    # One kernel per function, written as users write them: cmath.<name>(z[i]).
    namespace = {"cuda": cuda, "cmath": cmath, "np": np}
    source = (f"def k_cmath_{name}(z, out, out_np):\n"
              f"    i = cuda.grid(1)\n"
              f"    if i < z.size:\n"
              f"        out[i] = cmath.{name}(z[i])\n"
              f"        out_np[i] = np.{_numpy_name(name)}(z[i])\n")
    path = f"<cmath test {name}>"
    import linecache

    linecache.cache[path] = (len(source), None, source.splitlines(True), path)
    exec(compile(source, path, "exec"), namespace)
    return cuda.jit(namespace[f"k_cmath_{name}"])


def _numpy_name(name):
    return {"asin": "arcsin", "acos": "arccos", "atan": "arctan", "asinh": "arcsinh",
            "acosh": "arccosh", "atanh": "arctanh"}.get(name, name)


KERNELS = {name: _kernel(name) for name in NAMES}


def _inputs(rng, dtype, n=200):
    parts = rng.uniform(-3, 3, size=(2, n))
    z = parts[0] + 1j * parts[1]
    # Edges: the axes, zero with both signs of the imaginary part, the branch cuts' sides.
    edges = np.array([0, 1, -1, 1j, -1j, 0.5, -0.5, 2, -2, 2j, -2j, complex(0, -0.0),
                      complex(-4, 0.0), complex(-4, -0.0), complex(1.5, 1e-3)])
    return np.concatenate([edges, z]).astype(dtype)


def _check(got, want, dtype, what):
    eps = np.finfo(np.float32 if dtype == np.complex64 else np.float64).eps
    scale = np.maximum(np.abs(want), 1.0)
    bad = ~(np.abs(got - want) <= 64 * eps * scale)
    bad &= ~(np.isnan(got) & np.isnan(want))
    assert not bad.any(), (f"{what}: at {np.flatnonzero(bad)[:5]}: got {got[bad][:5]}, "
                           f"want {want[bad][:5]}")


@pytest.mark.parametrize("name", NAMES)
@pytest.mark.parametrize("dtype", [np.complex128, np.complex64])
def test_cmath_and_numpy_functions_of_complex_numbers(device, rng, name, dtype):
    if dtype == np.complex128 and not device.supports_float64:
        pytest.skip("no double precision")
    z = _inputs(rng, dtype)

    def defined(v):  # the poles (atan(1j), atanh(1), log(0)) are ValueErrors in Python
        try:
            getattr(cmath, name)(complex(v))
            return True
        except ValueError:
            return False

    z = z[[defined(v) for v in z]]
    out = simt.full(z.size, np.nan + 0j, dtype=dtype, device=device)
    out_np = simt.full(z.size, np.nan + 0j, dtype=dtype, device=device)
    KERNELS[name][-(-z.size // 64), 64](simt.to_device(z, device=device), out, out_np)
    python = np.array([getattr(cmath, name)(complex(v)) for v in z])
    _check(out.get(), python.astype(dtype), dtype, f"cmath.{name}")
    with np.errstate(all="ignore"):
        _check(out_np.get(), getattr(np, _numpy_name(name))(z), dtype, f"np.{name}")


SPECIAL_PARTS = [0.0, -0.0, 1.0, -1.0, 2.5, -0.5, math.pi, -math.pi, math.inf, -math.inf,
                 math.nan]


def _same_special(got, want, single):
    """One part: NaN for NaN, the same infinity, the same zero (its sign too), else within a
    few ulps of the result (float32's for complex64)."""
    if math.isnan(want):
        return math.isnan(got)
    if math.isinf(want) or want == 0:
        return got == want and math.copysign(1, got) == math.copysign(1, want)
    return abs(got - want) <= (2e-6 if single else 1e-15) * max(abs(want), 1.0)


@pytest.mark.parametrize("name", NAMES + ["rect"])
@pytest.mark.parametrize("dtype", [np.complex128, np.complex64])
def test_special_values_are_cmaths(device, name, dtype):
    """Infinite and NaN parts and signed zeros, every pair of SPECIAL_PARTS, as Python's
    cmath gives them (C99's Annex G where cmath follows it); the pairs where cmath raises
    ValueError are left out."""
    if dtype == np.complex128 and not device.supports_float64:
        pytest.skip("no double precision")
    real = np.float64 if dtype == np.complex128 else np.float32
    pairs, want = [], []
    for x in SPECIAL_PARTS:
        for y in SPECIAL_PARTS:
            x, y = float(real(x)), float(real(y))  # the parts the kernel sees (float32's pi)
            try:
                w = cmath.rect(x, y) if name == "rect" else getattr(cmath, name)(complex(x, y))
            except (ValueError, OverflowError):
                continue
            pairs.append((x, y))
            want.append(w)
    x, y = (np.array(p, real) for p in zip(*pairs))
    out = simt.full(len(pairs), 7 + 7j, dtype=dtype, device=device)
    if name == "rect":
        K_RECT[1, len(pairs)](simt.to_device(x, device=device), simt.to_device(y, device=device),
                              out)
    else:
        z = np.empty(len(pairs), dtype)  # part by part: x + 1j * y would lose signed zeros
        z.real, z.imag = x, y
        KERNELS_ONE[name][1, len(pairs)](simt.to_device(z, device=device), out)
    got = out.get()
    bad = [f"{name}{p} = {g}, cmath {w}" for p, g, w in zip(pairs, got, want)
           if not (_same_special(g.real, real(w.real), dtype == np.complex64)
                   and _same_special(g.imag, real(w.imag), dtype == np.complex64))]
    assert not bad, "\n".join(bad[:12])


def _one_kernel(name):
    namespace = {"cuda": cuda, "cmath": cmath}
    source = (f"def k_special_{name}(z, out):\n"
              f"    i = cuda.grid(1)\n"
              f"    if i < z.size:\n"
              f"        out[i] = cmath.{name}(z[i])\n")
    path = f"<cmath special-value test {name}>"
    import linecache

    linecache.cache[path] = (len(source), None, source.splitlines(True), path)
    exec(compile(source, path, "exec"), namespace)
    return cuda.jit(namespace[f"k_special_{name}"])


KERNELS_ONE = {name: _one_kernel(name) for name in NAMES}


@cuda.jit
def K_RECT(r, phi, out):
    i = cuda.grid(1)
    if i < r.size:
        out[i] = cmath.rect(r[i], phi[i])


@cuda.jit
def k_cmath_misc(z, r, phi, phase, modulus, argument, rect, flags):
    i = cuda.grid(1)
    if i < z.size:
        phase[i] = cmath.phase(z[i])
        m, a = cmath.polar(z[i])
        modulus[i] = m
        argument[i] = a
        rect[i] = cmath.rect(r[i], phi[i])
        flags[i] = (1 * cmath.isnan(z[i]) + 2 * cmath.isinf(z[i]) + 4 * cmath.isfinite(z[i])
                    + 8 * np.isnan(z[i]) + 16 * np.isinf(z[i]) + 32 * np.isfinite(z[i]))


def test_phase_polar_rect_and_predicates(device, rng):
    if not device.supports_float64:
        pytest.skip("no double precision")
    z = _inputs(rng, np.complex128)
    z = np.concatenate([z, [complex(np.nan, 1), complex(1, np.inf), complex(-np.inf, np.nan)]])
    r, phi = rng.uniform(0, 5, z.size), rng.uniform(-4, 4, z.size)
    phi[:3] = 0.0
    outs = [simt.full(z.size, np.nan, device=device) for _ in range(3)]
    rect = simt.full(z.size, np.nan + 0j, dtype=np.complex128, device=device)
    flags = simt.full(z.size, -1, dtype=np.int64, device=device)
    k_cmath_misc[-(-z.size // 64), 64](simt.to_device(z, device=device),
                                       simt.to_device(r, device=device),
                                       simt.to_device(phi, device=device), *outs, rect, flags)
    finite = np.isfinite(z)
    want_phase = np.array([cmath.phase(complex(v)) for v in z])
    np.testing.assert_allclose(outs[0].get()[finite], want_phase[finite], rtol=1e-14,
                               atol=1e-15)
    np.testing.assert_allclose(outs[1].get()[finite], np.abs(z)[finite], rtol=1e-15)
    np.testing.assert_allclose(outs[2].get()[finite], want_phase[finite], rtol=1e-14,
                               atol=1e-15)
    want_rect = np.array([cmath.rect(a, b) for a, b in zip(r, phi)])
    _check(rect.get(), want_rect, np.complex128, "cmath.rect")
    assert (rect.get()[:3].imag == 0).all()
    want_flags = (1 * np.isnan(z) + 2 * np.isinf(z) + 4 * np.isfinite(z)) * 9
    np.testing.assert_array_equal(flags.get(), want_flags)


@cuda.jit
def k_complex_pow(a, b, n, out_ab, out_an, out_a_half):
    i = cuda.grid(1)
    if i < a.size:
        out_ab[i] = a[i] ** b[i]
        out_an[i] = a[i] ** n[i]
        out_a_half[i] = a[i] ** 0.5


@pytest.mark.parametrize("dtype", [np.complex128, np.complex64])
def test_complex_powers(device, rng, dtype):
    if dtype == np.complex128 and not device.supports_float64:
        pytest.skip("no double precision")
    a = _inputs(rng, dtype)
    a = a[a != 0]
    b = _inputs(rng, dtype)[: a.size] * 0.7
    n = rng.integers(-6, 7, a.size).astype(np.int64)
    outs = [simt.full(a.size, np.nan + 0j, dtype=dtype, device=device) for _ in range(3)]
    k_complex_pow[-(-a.size // 64), 64](simt.to_device(a, device=device),
                                        simt.to_device(b, device=device),
                                        simt.to_device(n, device=device), *outs)
    with np.errstate(all="ignore"):
        _check(outs[0].get(), (a ** b).astype(dtype), dtype, "a ** b")
        # Integer exponents by repeated squaring, as NumPy's: compare with Python's.
        want = np.array([complex(x) ** int(k) for x, k in zip(a, n)]).astype(dtype)
        _check(outs[1].get(), want, dtype, "a ** n")
        _check(outs[2].get(), (a ** 0.5).astype(dtype), dtype, "a ** 0.5")


def test_cmath_constants_and_type_errors(device):
    @cuda.jit
    def consts(out):
        out[0] = cmath.pi + cmath.e + cmath.tau

    out = simt.zeros(1, device=device) if device.supports_float64 else None
    if out is not None:
        consts[1, 1](out)
        assert out.get()[0] == math.pi + math.e + math.tau

    @cuda.jit
    def real_math_of_complex(z, out):
        out[0] = math.exp(z[0])

    with pytest.raises(simt.TypingError, match="needs a real number"):
        real_math_of_complex.compile("(complex64[::1], float32[::1])", device)


@cuda.jit
def k_conjugate(z, out):
    i = cuda.grid(1)
    if i < z.size:
        out[i] = z[i].conjugate()


@pytest.mark.parametrize("dtype", [np.complex64, np.complex128])
def test_conjugate_method(device, rng, dtype):
    host = (rng.standard_normal(100) + 1j * rng.standard_normal(100)).astype(dtype)
    host[:4] = [complex(0.0, 0.0), complex(-0.0, -0.0), complex(np.inf, np.nan),
                complex(1.0, -np.inf)]
    z = simt.to_device(host, device=device)
    out = simt.to_device(np.full(100, np.nan, dtype), device=device)
    k_conjugate[4, 32](z, out)
    got, want = out.get(), np.conjugate(host)
    np.testing.assert_array_equal(got, want)
    # -0j too; a NaN's sign is not compared: PTX's neg gives "an unspecified NaN".
    real = ~np.isnan(want.imag)
    np.testing.assert_array_equal(np.signbit(got.imag[real]), np.signbit(want.imag[real]))


@cuda.jit
def k_log_with_base(out, z, base, x, b):
    i = cuda.grid(1)
    if i < z.size:
        out[i] = cmath.log(z[i], base[i])
        out[z.size + i] = math.log(x[i], b[i])


@pytest.mark.parametrize("dtype", [np.complex64, np.complex128])
def test_log_with_a_base(device, rng, dtype):
    # cmath.log(z, base) and math.log(x, base), as Python computes them: log(z) / log(base).
    n = 64
    z = (rng.uniform(-3, 3, n) + 1j * rng.uniform(-3, 3, n)).astype(dtype)
    base = (rng.uniform(0.5, 4, n) + 1j * rng.uniform(-1, 1, n)).astype(dtype)
    x, b = rng.uniform(0.1, 50, n), rng.uniform(1.5, 10, n)
    out = simt.to_device(np.full(2 * n, np.nan, np.complex128), device=device)
    k_log_with_base[2, 32](out, simt.to_device(z, device=device),
                           simt.to_device(base, device=device), simt.to_device(x, device=device),
                           simt.to_device(b, device=device))
    got = out.get()
    rtol = 1e-5 if dtype == np.complex64 else 1e-12
    np.testing.assert_allclose(got[:n], [cmath.log(complex(u), complex(v)) for u, v in
                                         zip(z, base)], rtol=rtol, atol=rtol)
    np.testing.assert_allclose(got[n:].real, [math.log(u, v) for u, v in zip(x, b)], rtol=1e-12)


@pytest.mark.parametrize("name", ["tanh", "tan"])
def test_complex64_tanh_and_tan_to_the_last_bits(device, rng, name):
    """complex64 tanh (and tan, -i tanh(iz)) within 2 ulps of float32 in each part, as
    Numba's tests ask: OpenCL and the CPU compute the formula in double (the float one
    compounds its functions' errors to 9 ulps); CUDA keeps float for speed."""
    if device.backend == "cuda":
        pytest.skip("CUDA computes complex64 tanh in float (codegen/dialect.h)")
    z = (rng.uniform(-4, 4, 500) + 1j * rng.uniform(-4, 4, 500)).astype(np.complex64)
    z[:2] = [1 + 1.5j, 1.5 + 1j]  # Numba's failing inputs
    out = simt.full(z.size, np.nan + 0j, dtype=np.complex64, device=device)
    out_np = simt.full(z.size, np.nan + 0j, dtype=np.complex64, device=device)
    KERNELS[name][-(-z.size // 64), 64](simt.to_device(z, device=device), out, out_np)
    want = np.array([getattr(cmath, name)(complex(v)) for v in z])
    got = out.get()
    for part in ("real", "imag"):
        w = getattr(want, part)
        ulps = np.abs(getattr(got, part) - w) / np.spacing(np.abs(w).astype(np.float32))
        assert ulps.max() <= 2, (part, z[np.argmax(ulps)], ulps.max())


@pytest.mark.parametrize("dtype", [np.complex64])
def test_complex64_log_with_a_base_to_the_last_bits(device, rng, dtype):
    """cmath.log(z, base) of complex64 within 2 ulps of float32 in each part where the
    device computes it in double (OpenCL with fp64, the CPU); CUDA keeps float."""
    if device.backend == "cuda":
        pytest.skip("CUDA computes complex64 in float (codegen/dialect.h, complex64_work)")
    n = 500
    z = (rng.uniform(-4, 4, n) + 1j * rng.uniform(-4, 4, n)).astype(dtype)
    base = (rng.uniform(-4, 4, n) + 1j * rng.uniform(-4, 4, n)).astype(dtype)
    z[0], base[0] = -np.pi + 1j, np.pi + 1j  # near Numba's failing input
    out = simt.to_device(np.full(2 * n, np.nan, np.complex128), device=device)
    k_log_with_base[-(-n // 32), 32](out, simt.to_device(z, device=device),
                                     simt.to_device(base, device=device),
                                     simt.to_device(np.ones(n), device=device),
                                     simt.to_device(np.full(n, 2.0), device=device))
    got = out.get()[:n].astype(np.complex64)
    want = np.array([cmath.log(complex(u), complex(v)) for u, v in zip(z, base)])
    for part in ("real", "imag"):
        w = getattr(want, part)
        ulps = np.abs(getattr(got, part) - w) / np.spacing(np.abs(w).astype(np.float32))
        assert ulps.max() <= 2, (part, z[np.argmax(ulps)], ulps.max())


# `.real` and `.imag` of complex arrays in kernels: NumPy's views of the parts, which reads,
# writes and atomics reach (numba-cuda's TestAtomicOnComplexComponents), in 1-D and 2-D,
# through slices, and passed to device functions.

@cuda.jit(device=True)
def _scale_row(v, factor):
    for j in range(v.shape[0]):
        v[j] *= factor


@cuda.jit
def k_parts(z, w, re_out, im_out):
    i = cuda.grid(1)
    if i < z.shape[0]:
        re_out[i] = z.real[i, 0] + z[i, 1:].imag[1]
        im_out[i] = z.imag[i, 0]
        cuda.atomic.add(w.real, (i, 0), 1)
        cuda.atomic.add(w.imag, (i, 1), 2)
        _scale_row(w.imag[i, 2:], 10.0)
        w.real[i, 3] = -w.real[i, 3]


@pytest.mark.parametrize("dtype", [np.complex128, np.complex64])
def test_real_and_imag_views_of_complex_arrays(device, rng, dtype):
    if dtype == np.complex128 and not device.supports_float64:
        pytest.skip("no double precision")
    n = 70
    z = (rng.standard_normal((n, 5)) + 1j * rng.standard_normal((n, 5))).astype(dtype)
    w = (rng.standard_normal((n, 5)) + 1j * rng.standard_normal((n, 5))).astype(dtype)
    part = np.float64 if dtype == np.complex128 else np.float32
    re_out = np.full(n, np.nan, part)
    im_out = np.full(n, np.nan, part)
    dw = simt.to_device(w, device=device)
    k_parts[-(-n // 32), 32](simt.to_device(z, device=device), dw, re_out, im_out)
    np.testing.assert_array_equal(re_out, z.real[:, 0] + z[:, 1:].imag[:, 1])
    np.testing.assert_array_equal(im_out, z.imag[:, 0])
    want = w.copy()
    want.real[:, 0] += 1
    want.imag[:, 1] += 2
    want.imag[:, 2:] *= 10
    want.real[:, 3] = -want.real[:, 3]
    np.testing.assert_array_equal(dw.get(), want)


def test_real_and_imag_of_real_arrays(device):
    @cuda.jit
    def real_of_real(a, out):
        i = cuda.grid(1)
        if i < a.size:
            out[i] = a.real[i] * 2

    a = np.arange(10.0)
    out = np.zeros(10)
    real_of_real[1, 32](a, out)
    np.testing.assert_array_equal(out, a * 2)

    @cuda.jit
    def imag_of_real(a, out):
        out[0] = a.imag[0]

    with pytest.raises(simt.TypingError, match=r"'\.imag' of a real array has no memory"):
        imag_of_real[1, 1](a, out)
