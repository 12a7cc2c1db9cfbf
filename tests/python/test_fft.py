"""simt.fft on every device against numpy.fft on fresh random inputs: every function, the
norms, axes, n and s (padding and truncation), 2-D and 3-D, non-contiguous views, the
result dtypes (single precision kept) and the errors."""

import numpy as np
import pytest

import simt
from array_helpers import random_numbers
from simt.fft import _stockham

NORMS = ["backward", "ortho", "forward"]
# Powers of two (on GPUs: whole rows in one shared-memory block up to 1024; longer rows:
# their first passes in shared memory, then radix-4 and radix-2 passes), 1, and lengths
# the GPU transforms by Bluestein's algorithm.
LENGTHS = [1, 2, 8, 16, 32, 1024, 2048, 8192, 3, 5, 12, 17, 100, 1000]


def _on(device, array):
    return simt.asarray(array, device=device)


def _check(got, want, what=""):
    """got (a simt array) is NumPy's `want`: dtype, shape, values within the precision's
    tolerance relative to the largest magnitude."""
    assert isinstance(got, simt.Array), f"{what}: {type(got).__name__}"
    host = got.get()
    assert host.dtype == want.dtype, f"{what}: dtype {host.dtype}, NumPy's {want.dtype}"
    assert host.shape == want.shape, f"{what}: shape {host.shape}, NumPy's {want.shape}"
    single = want.dtype in (np.complex64, np.float32)
    scale = max(float(np.abs(want).max(initial=0.0)), 1e-30)
    error = float(np.abs(host.astype(np.complex128) - want).max(initial=0.0)) / scale
    assert error < (1e-4 if single else 1e-10), f"{what}: relative error {error}"


@pytest.mark.parametrize("n", LENGTHS)
@pytest.mark.parametrize("dtype", [np.complex64, np.complex128])
def test_fft_and_ifft_of_each_length(device, rng, n, dtype):
    a = random_numbers(rng, (3, n), dtype)
    x = _on(device, a)
    _check(simt.fft.fft(x), np.fft.fft(a), f"fft n={n}")
    _check(simt.fft.ifft(x), np.fft.ifft(a), f"ifft n={n}")


@pytest.mark.parametrize("n, rows", [(2, 3), (16, 100), (1024, 2), (2048, 3), (2 ** 16, 1),
                                     (12, 5)])
@pytest.mark.parametrize("shared", [True, False], ids=["shared-memory", "global-passes"])
def test_both_gpu_paths(device, rng, monkeypatch, n, rows, shared):
    # GPUs take the shared-memory kernel, OpenCL CPU devices the global passes alone:
    # each device here runs both (the cuda kernels of both are compiled by NVRTC).
    if device.backend == "cpu":
        pytest.skip("the cpu device runs pocketfft")
    monkeypatch.setattr(_stockham, "uses_shared_memory", lambda device: shared)
    a = random_numbers(rng, (rows, n), np.complex64)
    x = _on(device, a)
    _check(simt.fft.fft(x, norm="ortho"), np.fft.fft(a, norm="ortho"), f"fft n={n}")
    _check(simt.fft.ifft(x), np.fft.ifft(a), f"ifft n={n}")


@pytest.mark.parametrize("norm", NORMS)
def test_norms(device, rng, norm):
    a = random_numbers(rng, (4, 64), np.complex128)
    r = random_numbers(rng, (4, 20), np.float64)
    x, y = _on(device, a), _on(device, r)
    _check(simt.fft.fft(x, norm=norm), np.fft.fft(a, norm=norm), norm)
    _check(simt.fft.ifft(x, norm=norm), np.fft.ifft(a, norm=norm), norm)
    _check(simt.fft.rfft(y, norm=norm), np.fft.rfft(r, norm=norm), norm)
    _check(simt.fft.irfft(x, norm=norm), np.fft.irfft(a, norm=norm), norm)
    _check(simt.fft.fftn(x, norm=norm), np.fft.fftn(a, norm=norm), norm)
    _check(simt.fft.hfft(x, norm=norm), np.fft.hfft(a, norm=norm), norm)
    _check(simt.fft.ihfft(y, norm=norm), np.fft.ihfft(r, norm=norm), norm)


@pytest.mark.parametrize("dtype, result", [(np.float32, np.complex64),
                                           (np.complex64, np.complex64),
                                           (np.float64, np.complex128),
                                           (np.int32, np.complex128),
                                           (np.float16, np.complex64)])
def test_result_dtypes_keep_single_precision(device, rng, dtype, result):
    a = random_numbers(rng, (16,), dtype)
    got = simt.fft.fft(_on(device, a))
    assert got.dtype == result
    _check(got, np.fft.fft(a).astype(result))


@pytest.mark.parametrize("n", [1, 5, 16, 33, 64, 100])
@pytest.mark.parametrize("dtype", [np.float32, np.float64])
def test_rfft_and_irfft(device, rng, n, dtype):
    r = random_numbers(rng, (2, n), dtype)
    x = _on(device, r)
    _check(simt.fft.rfft(x), np.fft.rfft(r), f"rfft n={n}")
    spectrum = np.fft.rfft(r) + 0.5j  # imaginary parts where irfft ignores them too
    s = _on(device, spectrum.astype(np.result_type(dtype, np.complex64)))
    want = np.fft.irfft(spectrum.astype(s.dtype), n=n)
    _check(simt.fft.irfft(s, n=n), want, f"irfft n={n}")
    if n > 1:
        _check(simt.fft.irfft(s), np.fft.irfft(spectrum.astype(s.dtype)), "irfft default n")


@pytest.mark.parametrize("function", ["fft", "ifft", "rfft", "irfft", "hfft"])
@pytest.mark.parametrize("n", [5, 8, 32, 13])
@pytest.mark.parametrize("axis", [0, -1, 1])
def test_n_pads_or_truncates_along_axis(device, rng, function, n, axis):
    a = random_numbers(rng, (12, 10, 3),
                       np.float64 if function == "rfft" else np.complex128)
    got = getattr(simt.fft, function)(_on(device, a), n=n, axis=axis)
    _check(got, getattr(np.fft, function)(a, n=n, axis=axis), f"{function} n={n} axis={axis}")


@pytest.mark.parametrize("shape, s, axes", [
    ((8, 16), None, None), ((6, 10), None, None), ((4, 8, 16), None, None),
    ((4, 8, 16), (5, 32), None), ((4, 8, 16), None, (0, 2)), ((4, 8, 16), (16, 3), (2, 0)),
    ((3, 5, 7), (4, -1, 2), None)])
def test_n_dimensional(device, rng, shape, s, axes):
    a = random_numbers(rng, shape, np.complex128)
    r = random_numbers(rng, shape, np.float64)
    x, y = _on(device, a), _on(device, r)
    # NumPy 2 deprecates s without axes (simt keeps the meaning: the last len(s) axes).
    host_axes = axes if axes is not None or s is None else \
        tuple(range(len(shape) - len(s), len(shape)))
    for name, operand, host in [("fftn", x, a), ("ifftn", x, a), ("rfftn", y, r),
                                ("irfftn", x, a)]:
        if s is not None and -1 in s and name.startswith(("rfftn", "irfftn")):
            continue  # NumPy 2 takes -1 in s for the complex transforms only
        _check(getattr(simt.fft, name)(operand, s=s, axes=axes),
               getattr(np.fft, name)(host, s=s, axes=host_axes), f"{name} s={s} axes={axes}")


def test_two_dimensional_defaults(device, rng):
    a = random_numbers(rng, (3, 8, 12), np.complex64)
    r = random_numbers(rng, (3, 8, 12), np.float32)
    x, y = _on(device, a), _on(device, r)
    _check(simt.fft.fft2(x), np.fft.fft2(a), "fft2")
    _check(simt.fft.ifft2(x, axes=(0, 2)), np.fft.ifft2(a, axes=(0, 2)), "ifft2")
    _check(simt.fft.rfft2(y), np.fft.rfft2(r), "rfft2")
    _check(simt.fft.irfft2(x, s=(8, 10)), np.fft.irfft2(a, s=(8, 10)), "irfft2")


def test_non_contiguous_views(device, rng):
    a = random_numbers(rng, (20, 64), np.complex64)
    r = random_numbers(rng, (20, 64), np.float32)
    x, y = _on(device, a), _on(device, r)
    _check(simt.fft.fft(x[::3, ::2]), np.fft.fft(a[::3, ::2]), "strided")
    _check(simt.fft.fft(x.T, axis=0), np.fft.fft(a.T, axis=0), "transposed")
    _check(simt.fft.ifft(x[:, ::-1], axis=0), np.fft.ifft(a[:, ::-1], axis=0), "reversed")
    _check(simt.fft.rfft(y[1::2, 3:35]), np.fft.rfft(r[1::2, 3:35]), "rfft of a slice")
    _check(simt.fft.fft2(x[2:18:2, 1::4]), np.fft.fft2(a[2:18:2, 1::4]), "fft2 of a view")
    assert np.array_equal(x.get(), a) and np.array_equal(y.get(), r)  # inputs untouched


def test_fft_layouts_and_shapes(device, rng):
    """What a library plan sees differently: axes other than the last (alone, in pairs,
    more than three at once), odd lengths of the real transforms under each norm, integer
    input, and empty batches."""
    a = random_numbers(rng, (6, 5, 8), np.complex64)
    x = _on(device, a)
    _check(simt.fft.fft(x, axis=0), np.fft.fft(a, axis=0), "fft axis 0")
    _check(simt.fft.ifft(x, axis=1, norm="ortho"), np.fft.ifft(a, axis=1, norm="ortho"),
           "ifft axis 1")
    _check(simt.fft.fftn(x, axes=(0, 2)), np.fft.fftn(a, axes=(0, 2)), "fftn (0, 2)")
    _check(simt.fft.fftn(x, axes=(1, 0)), np.fft.fftn(a, axes=(1, 0)), "fftn (1, 0)")
    four = random_numbers(rng, (3, 4, 2, 6), np.complex128)
    _check(simt.fft.ifftn(_on(device, four), norm="forward"),
           np.fft.ifftn(four, norm="forward"), "ifftn of four axes")
    r = random_numbers(rng, (4, 9, 7), np.float64)
    y = _on(device, r)
    for norm in NORMS:
        _check(simt.fft.rfft(y, axis=1, norm=norm), np.fft.rfft(r, axis=1, norm=norm),
               f"rfft axis 1 {norm}")
        spectrum = np.fft.rfft(r, norm=norm)
        _check(simt.fft.irfft(_on(device, spectrum), n=7, norm=norm),
               np.fft.irfft(spectrum, n=7, norm=norm), f"irfft odd n {norm}")
        _check(simt.fft.rfftn(y, axes=(2, 0), norm=norm),
               np.fft.rfftn(r, axes=(2, 0), norm=norm), f"rfftn (2, 0) {norm}")
        half = np.fft.rfftn(r, axes=(0, 1), norm=norm)
        _check(simt.fft.irfftn(_on(device, half), s=(4, 9), axes=(0, 1), norm=norm),
               np.fft.irfftn(half, s=(4, 9), axes=(0, 1), norm=norm), f"irfftn {norm}")
    ints = rng.integers(-9, 9, (3, 10)).astype(np.int32)
    _check(simt.fft.fft(_on(device, ints)), np.fft.fft(ints), "fft of int32")
    empty = np.zeros((0, 8), np.complex64)
    _check(simt.fft.fft(_on(device, empty)), np.fft.fft(empty), "fft of an empty batch")
    _check(simt.fft.rfft(_on(device, empty.real.copy())), np.fft.rfft(empty.real),
           "rfft of an empty batch")
    _check(simt.fft.irfft(_on(device, empty[:, :5])), np.fft.irfft(empty[:, :5]),
           "irfft of an empty batch")


def test_round_trips(device, rng):
    a = random_numbers(rng, (4, 48), np.complex128)
    x = _on(device, a)
    _check(simt.fft.ifft(simt.fft.fft(x)), a, "ifft(fft(x))")
    r = random_numbers(rng, (4, 48), np.float64)
    _check(simt.fft.irfft(simt.fft.rfft(_on(device, r)), n=48), r, "irfft(rfft(x))")


@pytest.mark.parametrize("n", [1, 2, 7, 8, 101])
@pytest.mark.parametrize("d", [1.0, 0.25])
def test_frequencies(device, n, d):
    _check(simt.fft.fftfreq(n, d, device=device), np.fft.fftfreq(n, d), "fftfreq")
    _check(simt.fft.rfftfreq(n, d=d, device=device), np.fft.rfftfreq(n, d), "rfftfreq")
    got = simt.fft.fftfreq(n, d, dtype=np.float32, device=device)
    assert got.dtype == np.float32 and got.device == device
    _check(got, np.fft.fftfreq(n, d).astype(np.float32), "fftfreq float32")


@pytest.mark.parametrize("shape, axes", [((7,), None), ((8,), None), ((4, 5), None),
                                         ((4, 5, 6), (0, 2)), ((4, 5), 1), ((3, 6), -2)])
def test_shifts(device, rng, shape, axes):
    a = random_numbers(rng, shape, np.float64)
    x = _on(device, a)
    assert np.array_equal(simt.fft.fftshift(x, axes=axes).get(), np.fft.fftshift(a, axes))
    assert np.array_equal(simt.fft.ifftshift(x, axes=axes).get(), np.fft.ifftshift(a, axes))


def test_errors(device, rng):
    x = _on(device, random_numbers(rng, (4, 8), np.complex64))
    with pytest.raises(ValueError, match=r"simt.fft.fft: invalid number of data points \(0\)"):
        simt.fft.fft(x, n=0)
    # An empty axis is the same error, on every device (NumPy's), not an empty result.
    empty = x[:, :0]
    for transform in (simt.fft.fft, simt.fft.rfft):
        with pytest.raises(ValueError, match=r"invalid number of data points \(0\)"):
            transform(simt.real(empty) if transform is simt.fft.rfft else empty)
    with pytest.raises(ValueError, match=r"invalid number of data points \(0\)"):
        simt.fft.ifft2(x[:0, :0])
    with pytest.raises(ValueError, match="simt.fft.ifft: invalid number of data points"):
        simt.fft.ifft(x, n=-3)
    with pytest.raises(ValueError, match="simt.fft.fftn: norm must be"):
        simt.fft.fftn(x, norm="unitary")
    with pytest.raises(np.exceptions.AxisError):
        simt.fft.fft(x, axis=2)
    with pytest.raises(np.exceptions.AxisError):
        simt.fft.fftn(x, axes=(0, -3))
    with pytest.raises(ValueError, match="simt.fft.fftn: an axis repeats"):
        simt.fft.fftn(x, axes=(1, 1))
    with pytest.raises(ValueError, match="s and axes have different lengths"):
        simt.fft.fftn(x, s=(4,), axes=(0, 1))
    with pytest.raises(TypeError, match="simt.fft.rfft: x must be real"):
        simt.fft.rfft(x)
    with pytest.raises(TypeError, match="simt.fft.fft: x must be a simt array"):
        simt.fft.fft(np.ones(4))
    with pytest.raises(ValueError, match="simt.fft.irfft: invalid number of data points"):
        simt.fft.irfft(x[:, :1])
    with pytest.raises(ValueError, match="simt.fft.fftfreq: invalid number of data points"):
        simt.fft.fftfreq(0)
    with pytest.raises(TypeError, match="simt.fft.rfftfreq: dtype must be a real floating"):
        simt.fft.rfftfreq(4, dtype=np.int32)


def test_simt_fft_loads_on_first_use():  # (in a fresh interpreter: this file imports it)
    import subprocess
    import sys

    code = ("import sys, simt; assert 'simt.fft' not in sys.modules; "
            "assert 'simt.linalg' not in sys.modules; simt.fft.fftfreq(4); "
            "assert 'simt.fft' in sys.modules")
    subprocess.run([sys.executable, "-c", code], check=True)
