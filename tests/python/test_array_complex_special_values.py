"""Complex element-wise functions at infinite, NaN and signed-zero parts: the special
values of C99's Annex G, which the array API standard restates, against NumPy (whose libm
gives them) on a grid of such values, and against the standard's own table where NumPy
does not follow it (expm1), on every device."""

import numpy as np
import pytest

import simt

PARTS = [0.0, -0.0, 1.0, -1.0, 0.5, 2.0, -2.0, 1e300, -1e300, np.inf, -np.inf, np.nan]
GRID = np.array([complex(a, b) for a in PARTS for b in PARTS])

NUMPY = {"exp": np.exp, "log": np.log, "log2": np.log2, "log10": np.log10,
         "log1p": np.log1p, "sqrt": np.sqrt, "sin": np.sin, "cos": np.cos, "tan": np.tan,
         "sinh": np.sinh, "cosh": np.cosh, "tanh": np.tanh, "asin": np.arcsin,
         "acos": np.arccos, "atan": np.arctan, "asinh": np.arcsinh, "acosh": np.arccosh,
         "atanh": np.arctanh}


def _parts_agree(got, want, other_got, other_want, both_special, rtol, scale):
    """One part of a result against NumPy's: NaN where NumPy has NaN, infinities and
    exact zeros where NumPy has them (their signs too, unless the standard leaves them
    open: beside a NaN part, or when both input parts were infinite or NaN), finite
    values within rtol of the result's modulus."""
    if np.isnan(want) or np.isnan(got):
        return np.isnan(want) and np.isnan(got)
    loose_sign = both_special or np.isnan(other_want)
    if np.isinf(want) or np.isinf(got):
        return got == want or (loose_sign and np.isinf(got) and np.isinf(want))
    if want == 0 and got == 0:
        return loose_sign or np.signbit(got) == np.signbit(want)
    return abs(got - want) <= rtol * scale


@pytest.mark.parametrize("dtype", [np.complex64, np.complex128])
@pytest.mark.parametrize("name", sorted(NUMPY))
def test_special_values_are_numpys(name, dtype, device):
    if dtype == np.complex128 and not device.supports_float64:
        pytest.skip("no double precision")
    with np.errstate(over="ignore"):  # complex64: +-1e300 becomes +-inf, also a case
        z = GRID.astype(dtype)
    got = getattr(simt, name)(simt.asarray(z, device=device)).get()
    with np.errstate(all="ignore"):
        want = NUMPY[name](z)
    rtol = 1e-5 if dtype == np.complex64 else 1e-12
    bad = []
    for i, v in enumerate(z):
        both_special = not (np.isfinite(v.real) or np.isfinite(v.imag))
        with np.errstate(all="ignore"):
            scale = abs(want[i]) if np.isfinite(abs(want[i])) else 1.0
        for part in ("real", "imag"):
            other = "imag" if part == "real" else "real"
            if not _parts_agree(getattr(got[i], part), getattr(want[i], part),
                                getattr(got[i], other), getattr(want[i], other),
                                both_special, rtol, scale):
                bad.append(f"{name}({v}) = {got[i]}, NumPy {want[i]}")
                break
    assert not bad, "\n".join(bad[:10])


INF, NAN = np.inf, np.nan
PI = np.pi

# The standard's special values (the array API's restatement of Annex G) for the
# functions where the suite of NumPy-derived checks above cannot stand in for them:
# expm1 (NumPy's own complex expm1 gives NaN for most of these), and one case of each
# function whose finite formula would give NaN there. (input, expected); None in a part:
# the standard leaves that part's sign open.
STANDARD = {
    "expm1": [(complex(0.0, 0.0), complex(0.0, 0.0)),
              (complex(1.0, INF), complex(NAN, NAN)),
              (complex(1.0, NAN), complex(NAN, NAN)),
              (complex(INF, 0.0), complex(INF, 0.0)),
              (complex(INF, -0.0), complex(INF, -0.0)),
              (complex(-INF, INF), (-1.0, None)),
              (complex(INF, INF), (None, NAN)),
              (complex(-INF, NAN), (-1.0, None)),
              (complex(INF, NAN), (None, NAN)),
              (complex(NAN, 0.0), complex(NAN, 0.0)),
              (complex(NAN, 1.0), complex(NAN, NAN)),
              (complex(NAN, NAN), complex(NAN, NAN))],
    "exp": [(complex(-INF, INF), (None, None)), (complex(INF, NAN), (None, NAN)),
            (complex(NAN, 0.0), complex(NAN, 0.0))],
    "sinh": [(complex(0.0, INF), (None, NAN)), (complex(INF, INF), (None, NAN)),
             (complex(NAN, 0.0), complex(NAN, 0.0))],
    "cosh": [(complex(0.0, NAN), (NAN, None)), (complex(INF, NAN), complex(INF, NAN)),
             (complex(NAN, -0.0), (NAN, None))],
    "tanh": [(complex(0.0, INF), complex(0.0, NAN)), (complex(INF, NAN), (1.0, None)),
             (complex(3.0, NAN), complex(NAN, NAN)), (complex(NAN, 0.0), complex(NAN, 0.0)),
             (complex(1e38, NAN), complex(NAN, NAN))],
    "asinh": [(complex(NAN, 0.0), complex(NAN, 0.0)), (complex(NAN, INF), (None, NAN)),
              (complex(INF, INF), complex(INF, PI / 4))],
    "acosh": [(complex(0.0, NAN), (NAN, None)), (complex(2.0, INF), complex(INF, PI / 2)),
              (complex(-INF, 1.0), complex(INF, PI)),
              (complex(-INF, INF), complex(INF, 3 * PI / 4)),
              (complex(NAN, INF), complex(INF, NAN))],
    "atanh": [(complex(0.0, NAN), complex(0.0, NAN)), (complex(1.0, 0.0), complex(INF, 0.0)),
              (complex(2.0, INF), complex(0.0, PI / 2)),
              (complex(INF, 2.0), complex(0.0, PI / 2)), (complex(INF, NAN), complex(0.0, NAN)),
              (complex(NAN, INF), (None, PI / 2))],
    "acos": [(complex(0.0, NAN), complex(PI / 2, NAN)),
             (complex(-INF, 1.0), complex(PI, -INF))],
    "log1p": [(complex(-1.0, 0.0), complex(-INF, 0.0)), (complex(INF, NAN), complex(INF, NAN)),
              (complex(NAN, INF), complex(INF, NAN))],
    "log2": [(complex(0.0, 0.0), complex(-INF, 0.0)), (complex(INF, 1.0), complex(INF, 0.0))],
    "sqrt": [(complex(NAN, INF), complex(INF, INF)), (complex(-INF, 1.0), complex(0.0, INF)),
             (complex(INF, NAN), complex(INF, NAN))],
}


def _matches(got, expected):
    if isinstance(expected, complex):
        expected = (expected.real, expected.imag)
    for g, e in zip((got.real, got.imag), expected):
        if e is None:  # sign open: the magnitude (or NaN) must still be right
            continue
        if np.isnan(e):
            if not np.isnan(g):
                return False
        elif not (g == e or abs(g - e) <= 1e-6 * abs(e)) or (e == 0 and
                                                              np.signbit(g) != np.signbit(e)):
            return False
    return True


@pytest.mark.parametrize("dtype", [np.complex64, np.complex128])
@pytest.mark.parametrize("name", sorted(STANDARD))
def test_the_standards_special_values(name, dtype, device):
    if dtype == np.complex128 and not device.supports_float64:
        pytest.skip("no double precision")
    cases = STANDARD[name]
    z = np.array([case for case, _ in cases], dtype)
    got = getattr(simt, name)(simt.asarray(z, device=device)).get()
    bad = [f"{name}({v}) = {g}, the standard's {e}"
           for v, g, (_, e) in zip(z, got, cases) if not _matches(g, e)]
    assert not bad, "\n".join(bad)
