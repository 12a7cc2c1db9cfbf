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


# ---- named tuples made in kernels, and held in globals ---------------------------------------

Span = collections.namedtuple("Span", ["lo", "hi", "step"], defaults=[1])
ORIGIN = Point(0.5, -2)                      # a global named tuple: a constant with fields
LIMITS = Span(2, 40, 3)


class Box(typing.NamedTuple):
    corner: tuple
    size: float = 2.0


@cuda.jit(device=True)
def mirrored(p):
    # A device function receiving and returning named tuples made in the kernel.
    return Point(p.y, y=p.x * -1.0)


@cuda.jit
def k_make(x, out):
    i = cuda.grid(1)
    if i < x.size:
        p = Point(x[i], i)                    # positional
        q = Point(y=2.0 * x[i], x=ORIGIN.x)   # keywords, in any order
        m = mirrored(p)
        s = Span(LIMITS.lo, hi=LIMITS[1])     # the default fills `step`
        b = Box((p.x, q.y))                   # a typing.NamedTuple with a default and a tuple field
        a, c = q                              # unpacking
        total = 0.0
        for k in range(s.lo, s.hi, s.step):
            total += k
        out[i, 0] = p.x + p.y
        out[i, 1] = a + c + ORIGIN.y
        out[i, 2] = m.x * 10.0 + m[1]
        out[i, 3] = total + b.size + b.corner[0] * b.corner[1]


def test_named_tuples_made_in_kernels(device, rng):
    x = rng.random(100)
    out = simt.full((100, 4), np.nan, device=device)
    k_make[4, 32](simt.to_device(x, device=device), out)
    i = np.arange(100)
    expected = np.stack([
        x + i,
        0.5 + 2.0 * x - 2,
        i * 10.0 - x,
        np.full(100, float(sum(range(2, 40, 1)))) + 2.0 + x * 2.0 * x,
    ], axis=1)
    np.testing.assert_allclose(out.get(), expected, rtol=1e-14)


def test_named_tuple_made_in_a_kernel_has_its_fields_in_the_type(device):
    @cuda.jit
    def k_types(out, n):
        p = Point(out[0] * 2, n + 1)
        out[0] = p.x
        out[1] = p.y

    assert k_types.inspect_types("float32[::1]", "int32")["p"] == "(x=float32, y=int32)"
    out = simt.to_device(np.array([0.75, 0.0], np.float32), device=device)
    k_types[1, 1](out, np.int32(4))
    np.testing.assert_array_equal(out.get(), [1.5, 5.0])


def test_named_tuple_class_errors(device):
    out = simt.zeros(2, device=device)

    @cuda.jit
    def too_many(out):
        p = Point(1.0, 2.0, 3.0)
        out[0] = p.x

    with pytest.raises(simt.TypingError, match=r"Point\(\) takes 2 arguments but 3 were given"):
        too_many[1, 1](out)

    @cuda.jit
    def unknown_field(out):
        p = Point(1.0, z=2.0)
        out[0] = p.x

    with pytest.raises(simt.TypingError, match="Point\\(\\) got an unexpected keyword argument 'z'"):
        unknown_field[1, 1](out)

    @cuda.jit
    def missing(out):
        p = Span(1)
        out[0] = p.lo

    with pytest.raises(simt.TypingError, match="Span\\(\\) missing required argument: 'hi'"):
        missing[1, 1](out)

    @cuda.jit
    def twice(out):
        p = Point(1.0, x=2.0)
        out[0] = p.x

    with pytest.raises(simt.TypingError, match="got multiple values for argument 'x'"):
        twice[1, 1](out)

    @cuda.jit
    def not_data(out):
        p = Point(np.float32, 1.0)
        out[0] = p.y

    with pytest.raises(simt.TypingError, match="field 'x' of Point\\(\\) must be a number"):
        not_data[1, 1](out)

    @cuda.jit
    def stored_class(out):
        c = Point
        out[0] = 1.0

    with pytest.raises(simt.TypingError, match="'c' cannot hold the named tuple class 'Point': "
                                               "call it"):
        stored_class[1, 1](out)


@cuda.jit(device=True)
def make_pair(cls, v):
    # A named tuple class passed to a device function, as Numba passes type objects.
    return cls(v, v + 1)


def test_named_tuple_class_passed_to_a_device_function(device):
    @cuda.jit
    def k_pair(out):
        p = make_pair(Point, out[0])
        out[1] = p.y - p.x
        out[2] = p.y

    out = simt.to_device(np.array([2.5, 0.0, 0.0]), device=device)
    k_pair[1, 1](out)
    np.testing.assert_array_equal(out.get(), [2.5, 1.0, 3.5])
