"""Named tuples (collections.namedtuple, typing.NamedTuple) as kernel arguments: fields
read by name (`p.x`) and by index, passed on to device functions, nested, and holding
arrays; on every device against NumPy. The field names are part of the argument's type:
another class with other names compiles its own specialization."""

import collections
import typing

import numpy as np
import pytest

import simt
from simt import cuda

Point = collections.namedtuple("Point", ["x", "y"])
Scaled = collections.namedtuple("Scaled", ["factor", "offset"])


class Params(typing.NamedTuple):
    scale: float
    bounds: tuple
    data: object


@cuda.jit(device=True)
def dev_norm2(p):
    return p.x * p.x + p.y * p.y


@cuda.jit
def k_points(p, q, out):
    i = cuda.grid(1)
    if i < out.size:
        out[i] = dev_norm2(p) * i + q.factor * p[0] - q.offset + p.y


@cuda.jit
def k_params(params, out):
    i = cuda.grid(1)
    lo, hi = params.bounds
    if lo <= i < hi:
        out[i] = params.scale * params.data[i] + params.bounds[1]


def test_named_tuple_fields_by_name_and_index(device, rng):
    p, q = Point(float(rng.random()), 3.0), Scaled(2.5, 7)
    out = simt.full(50, np.nan, device=device)
    k_points[2, 32](p, q, out)
    i = np.arange(50)
    np.testing.assert_allclose(out.get(), (p.x ** 2 + p.y ** 2) * i + q.factor * p.x
                               - q.offset + p.y, rtol=1e-13)


def test_typing_named_tuple_with_a_nested_tuple_and_an_array(device, rng):
    data = rng.random(40)
    params = Params(1.5, (5, 30), simt.to_device(data, device=device))
    out = simt.full(40, np.nan, device=device)
    k_params[2, 32](params, out)
    expected = np.full(40, np.nan)
    expected[5:30] = 1.5 * data[5:30] + 30
    np.testing.assert_allclose(out.get(), expected, rtol=1e-14)


def test_field_names_are_part_of_the_type(device):
    Other = collections.namedtuple("Other", ["x", "z"])

    @cuda.jit
    def k_x(p, out):
        out[0] = p.x

    out = simt.zeros(1, device=device)
    k_x[1, 1](Point(2.0, 1.0), out)
    assert out.get()[0] == 2.0
    k_x[1, 1](Other(4.0, 1.0), out)
    assert out.get()[0] == 4.0
    assert len(k_x.overloads) == 2
    assert simt.typeof(Point(1.0, 2)) == "(x=float64, y=int64)"

    @cuda.jit
    def k_y(p, out):
        out[0] = p.y

    with pytest.raises(simt.TypingError, match="has no field 'y' \\(its fields: x, z\\)"):
        k_y[1, 1](Other(4.0, 1.0), out)
    with pytest.raises(simt.TypingError, match="a plain tuple"):
        k_y[1, 1]((4.0, 1.0), out)


def test_explicit_signature_with_a_named_tuple(device):
    @cuda.jit("void((x=float64, y=float64), float64[::1])")
    def k_sum(p, out):
        out[0] = p.x + p.y

    out = simt.zeros(1, device=device)
    k_sum[1, 1](Point(1.25, 2.5), out)
    assert out.get()[0] == 3.75
