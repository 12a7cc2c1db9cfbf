"""The CUDA C++ simt generates reaches the GPU's own instructions (checked in the PTX NVRTC
makes of it; no GPU needed): builtin min/max of floats as min/max, float16 arithmetic,
comparisons and integer conversions as f16 instructions, float16 <-> float32 as cvt (not
integer code). The values these kernels compute are checked on every device by
test_numba_fp16.py and test_codegen_semantics.py."""

import re

import pytest

import simt
from simt import cuda
from simt.cuda import float16, float32, float64, int8, int16, int32, int64, uint8, uint64, void

pytestmark = pytest.mark.skipif(not simt._nvrtc_ptx.available(),
                                reason="PTX needs NVRTC, which is not installed")


def ptx_of(function, signature):
    ptx, _ = cuda.compile_ptx(function, signature, device=True)
    return ptx


def instructions(ptx):
    """The PTX's instruction mnemonics (`add.f16`, `cvt.rn.f16.s8`, ...), comments aside."""
    lines = (line.split("//")[0].strip() for line in ptx.splitlines())
    return {m.group(1) for line in lines if (m := re.match(r"(?:@!?%p\d+\s+)?([a-z][\w.]*)", line))}


def py_min(a, b):
    return min(a, b)


def py_max(a, b):
    return max(a, b)


@pytest.mark.parametrize("types, suffix", [((float32, float32), "f32"),
                                           ((float64, float64), "f64"),
                                           ((float32, float64), "f64")])
def test_min_max_of_floats_are_min_max_instructions(types, suffix):
    assert f"min.{suffix}" in instructions(ptx_of(py_min, types))
    assert f"max.{suffix}" in instructions(ptx_of(py_max, types))


def h_add(a, b):
    return a + b


def h_sub(a, b):
    return a - b


def h_mul(a, b):
    return a * b


def h_neg(a):
    return -a


def h_abs(a):
    return abs(a)


def h_fma(a, b, c):
    return cuda.fp16.hfma(a, b, c)


def h_hadd(a, b):
    return cuda.fp16.hadd(a, b)


def h_habs(a):
    return cuda.fp16.habs(a)


@pytest.mark.parametrize("function, arity, instruction", [
    (h_add, 2, "add.f16"), (h_sub, 2, "sub.f16"), (h_mul, 2, "mul.f16"), (h_neg, 1, "neg.f16"),
    (h_abs, 1, "abs.f16"), (h_fma, 3, "fma.rn.f16"), (h_hadd, 2, "add.f16"),
    (h_habs, 1, "abs.f16")])
def test_float16_arithmetic_is_f16_instructions(function, arity, instruction):
    found = instructions(ptx_of(function, (float16,) * arity))
    assert instruction in found, sorted(found)
    # The operands arrive as float16 bits: cvt, not the portable integer conversion.
    assert "cvt.f32.f16" in found or "cvt.rn.f16.f32" in found


def h_gt(a, b):
    return a > b


def h_ge(a, b):
    return a >= b


def h_lt(a, b):
    return a < b


def h_le(a, b):
    return a <= b


def h_eq(a, b):
    return a == b


def h_ne(a, b):
    return a != b


@pytest.mark.parametrize("function, instruction", [
    (h_gt, "setp.gt.f16"), (h_ge, "setp.ge.f16"), (h_lt, "setp.lt.f16"), (h_le, "setp.le.f16"),
    (h_eq, "setp.eq.f16"), (h_ne, "setp.neu.f16")])  # != is true for NaN, as Python's
@pytest.mark.parametrize("other", [float16, int8])
def test_float16_comparisons_are_f16_setp(function, instruction, other):
    assert instruction in instructions(ptx_of(function, (float16, other)))


def to_half(x):
    return float16(x)


@pytest.mark.parametrize("integer, ptx_type", [(int8, "s8"), (int16, "s16"), (int32, "s32"),
                                               (int64, "s64"), (uint8, "u8"), (uint64, "u64")])
def test_integers_convert_to_float16_in_one_cvt(integer, ptx_type):
    assert f"cvt.rn.f16.{ptx_type}" in instructions(ptx_of(to_half, (integer,)))


def widen(x):
    return float32(x)


def test_float16_widens_with_cvt():
    assert "cvt.f32.f16" in instructions(ptx_of(widen, (float16,)))


def select_loads(a, b, c):
    i = cuda.grid(1)
    a[i] = cuda.selp(a[i] > 4, c[i], b)


def test_selp_evaluates_both_values_and_selects_without_a_branch():
    # Both arguments are evaluated (a call's, as Python's): the load of c[i] is not behind
    # a branch, and the choice is a selp.
    ptx, _ = cuda.compile_ptx(select_loads, void(int64[:], int64, int64[:]))
    found = instructions(ptx)
    assert "bra" not in found and ("selp.b64" in found or "selp.s64" in found), sorted(found)


def vote_eq(p, out):
    i = cuda.grid(1)
    out[i] = cuda.eq_sync(0xFFFFFFFF, p[i])


def test_eq_sync_is_the_warps_votes():
    ptx, _ = cuda.compile_ptx(vote_eq, void(int32[:], int32[:]))
    found = instructions(ptx)
    assert {"vote.sync.all.pred", "vote.sync.any.pred"} <= found, sorted(found)
