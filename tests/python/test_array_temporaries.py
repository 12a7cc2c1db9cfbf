"""Temporaries reused as results (NumPy's elision: `2*a + b` adds into the memory of `2*a`)
on every device, against NumPy on fresh random inputs with NaN and signed zeros: a
temporary is reused only where nothing else can see it, and never changes a value that a
name, a view, a NumPy array or a DLPack export still holds."""

import operator

import numpy as np
import pytest

import simt
from simt._array_api import _methods

N = 2 ** 19  # 2 MiB of float32: past the 1 MiB below which nothing is reused


def _floats(rng, n, dtype=np.float32):
    x = rng.standard_normal(n).astype(dtype)
    picks = rng.choice(n, size=6, replace=False)
    x[picks[:2]] = np.nan
    x[picks[2:4]] = 0.0
    x[picks[4:]] = -0.0
    return x


def _same(got, want):
    got = got.get() if isinstance(got, simt.Array) else got
    assert got.shape == want.shape and got.dtype == want.dtype, (got.dtype, want.dtype)
    np.testing.assert_array_equal(got, want)
    zeros = want == 0
    np.testing.assert_array_equal(np.signbit(got[zeros]), np.signbit(want[zeros]))


@pytest.fixture
def operands(device, rng):
    ah, bh = _floats(rng, N), _floats(rng, N)
    return ah, bh, simt.asarray(ah, device=device), simt.asarray(bh, device=device)


class _Pointers:
    """Records the memory of a temporary as it passes (holding no reference to it)."""

    def __init__(self):
        self.seen = []

    def __call__(self, x):
        self.seen.append(x._impl.data_ptr)
        return x


def _check_reuse(got, pointer, reused):
    """The result is the temporary's memory where it is reused. On the cpu device always;
    on queued devices (opencl, cuda) a launch not yet finished holds the memory too, so
    there it may be new either way."""
    if got.device.backend == "cpu" or not reused:
        assert (got._impl.data_ptr == pointer) == reused


def _warm(fn):
    fn()  # the first call of a layout plans it; the reuse takes kept plans
    return fn()


def test_the_interpreter_is_calibrated():
    # CPython 3.11-3.13: a temporary has fewer references than any named operand.
    assert _methods._TEMPORARY_REFERENCES is not None


# Each expression computes its temporary inline (`r(a * -2)`: r records its memory): a
# temporary passed as an argument is a named parameter in the callee.
@pytest.mark.parametrize("expression, reused", [
    (lambda a, b, r: r(a * -2) + b, True), (lambda a, b, r: b - r(a * -2), True),
    (lambda a, b, r: 3 - r(a * -2), True), (lambda a, b, r: r(a * -2) * 0.5, True),
    (lambda a, b, r: r(a * -2) / b, True),
    # pow checks its values before a call (negative integer powers): never reused.
    (lambda a, b, r: abs(b) ** r(a * -2), False),
    # A NumPy scalar is not a kept layout's operand: a new array.
    (lambda a, b, r: np.float32(2) * r(a * -2), False)],
    ids=["t+b", "b-t", "3-t", "t*0.5", "t/b", "b**t", "f32*t"])
def test_a_temporary_operand_becomes_the_result(operands, expression, reused):
    ah, bh, a, b = operands
    record = _Pointers()
    got = _warm(lambda: expression(a, b, record))
    want = expression(ah, bh, lambda x: x)
    if reused:
        _same(got, want)
    else:  # pow: the devices' own, within an ulp or two of NumPy's
        np.testing.assert_allclose(got.get(), want, rtol=1e-6)
    _check_reuse(got, record.seen[-1], reused)


def test_chains_reuse_one_temporary(operands):
    ah, bh, a, b = operands
    record = _Pointers()
    got = _warm(lambda: record(2 * a) + b - a * a + 1)
    _same(got, 2 * ah + bh - ah * ah + 1)
    _check_reuse(got, record.seen[-1], True)


def test_named_arrays_are_never_written(operands):
    ah, bh, a, b = operands
    t = a * 2
    u = _warm(lambda: t + b)
    _same(t, ah * 2)
    _same(u, ah * 2 + bh)
    assert u._impl.data_ptr != t._impl.data_ptr
    holder = {"t": a * 3}
    _same(_warm(lambda: holder["t"] - b), ah * 3 - bh)
    _same(holder["t"], ah * 3)

    def argument(x):
        return x + b
    x = a * 4
    _same(_warm(lambda: argument(x)), ah * 4 + bh)
    _same(x, ah * 4)


def test_what_shares_the_memory_is_never_written(operands):
    ah, bh, a, b = operands
    whole = a * 2
    # A view (the temporary's memory is another array's), a NumPy array on the memory
    # (cpu), a DLPack export: each keeps the values it had.
    _same(_warm(lambda: whole[:] + b), ah * 2 + bh)
    _same(_warm(lambda: whole[::-1] + b), (ah * 2)[::-1] + bh)
    _same(whole, ah * 2)
    if a.device.backend == "cpu":
        # Host memory that NumPy holds too, through __array_interface__ and through DLPack
        # each way: an array made on it is a temporary whose memory is not simt's alone.
        exported = a * 5
        host = np.asarray(exported)
        shared = np.from_dlpack(a * 6)
        _same(_warm(lambda: simt.from_dlpack(host) + b), ah * 5 + bh)
        _same(_warm(lambda: simt.from_dlpack(shared) + b), ah * 6 + bh)
        _same(host, ah * 5)
        _same(shared, ah * 6)
        _same(exported, ah * 5)


def test_results_of_another_dtype_or_shape_are_new(device, rng):
    ih = rng.integers(-9, 9, N).astype(np.int32)
    i = simt.asarray(ih, device=device)
    _same(_warm(lambda: (i * 2) / 3), (ih * 2) / 3)  # int32 -> float64
    _same(_warm(lambda: (i * 2) < 5), (ih * 2) < 5)  # bool
    rows = rng.standard_normal((512, 1024)).astype(np.float32)
    column = rng.standard_normal((512, 1)).astype(np.float32)
    x, c = simt.asarray(rows, device=device), simt.asarray(column, device=device)
    _same(_warm(lambda: (c * 2) + x), column * 2 + rows)  # broadcast to a larger shape
    _same(_warm(lambda: (x * 2) + c), rows * 2 + column)


def test_calls_that_are_not_the_operator_allocate(operands):
    ah, bh, a, b = operands
    record = _Pointers()
    got = _warm(lambda: operator.add(record(a * 2), b))
    _same(got, ah * 2 + bh)
    _check_reuse(got, record.seen[-1], False)
    got = _warm(lambda: simt.add(record(a * 2), b))
    _check_reuse(got, record.seen[-1], False)


def test_small_temporaries_are_not_reused(device, rng):
    ah = _floats(rng, 1000)
    a = simt.asarray(ah, device=device)
    record = _Pointers()
    got = _warm(lambda: record(a * 2) + a)
    _same(got, ah * 2 + ah)
    _check_reuse(got, record.seen[-1], False)
