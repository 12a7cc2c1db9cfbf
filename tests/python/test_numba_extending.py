"""Numba's extension API as simt.cuda has it (simt/cuda/extending.py): a types.Type
subclass with a registered StructModel is a record type in kernels (local and shared
arrays of it, arrays of it in signatures, its members as fields); Numba's number type
classes; dtypes named by strings in local and shared arrays; the typemap of a compiled
signature; and clear errors for what only Numba's LLVM lowering could do."""

import numpy as np
import pytest

import simt
from simt import cuda
from simt.cuda import cgutils, int32, float64, types, void
from simt.cuda.cudaimpl import lower
from simt.cuda.extending import (core_models, intrinsic, make_attribute_wrapper, overload,
                                 register_model, type_callable, typeof_impl)


class Point:
    def __init__(self, x, w):
        self.x, self.w = x, w


class PointType(types.Type):
    def __init__(self):
        super().__init__(name="PointType")


point_type = PointType()


@typeof_impl.register(Point)
def typeof_point(val, c):
    return point_type


@register_model(PointType)
class PointModel(core_models.StructModel):
    def __init__(self, dmm, fe_type):
        super().__init__(dmm, fe_type, [("x", int32), ("w", float64)])


make_attribute_wrapper(PointType, "x", "x")
make_attribute_wrapper(PointType, "w", "w")


@type_callable(Point)
def type_point(context):
    def typer(x, w):
        if isinstance(x, types.Integer) and isinstance(w, types.Float):
            return point_type
    return typer


@lower(Point, types.Integer, types.Float)
def lower_point(context, builder, sig, args):
    obj = cgutils.create_struct_proxy(point_type)(context, builder)
    obj.x, obj.w = args
    return obj._getvalue()


def random_points(rng, n):
    a = np.zeros(n, point_type.dtype)
    a["x"] = rng.integers(-1000, 1000, n)
    a["w"] = rng.standard_normal(n)
    return a


def test_a_struct_model_is_a_record_of_its_members():
    assert point_type.dtype == np.dtype([("x", np.int32), ("w", np.float64)], align=True)
    assert str(point_type) == "PointType" and point_type.name == "PointType"
    assert np.dtype(point_type) == point_type.dtype
    assert typeof_impl(Point(1, 2.0)) is point_type


def test_struct_arrays_in_local_and_shared_memory_and_signatures(current, rng):
    n = 64
    host = random_points(rng, n)

    @cuda.jit(void(point_type[::1], float64[::1]))
    def reverse_and_weigh(pts, out):
        s = cuda.shared.array(64, dtype=point_type)
        l = cuda.local.array(2, dtype=point_type)
        i = cuda.threadIdx.x
        s[i] = pts[i]
        cuda.syncthreads()
        l[0] = s[n - 1 - i]
        l[1].x = l[0].x * 2
        l[1].w = l[0].w
        pts[i] = l[1]
        out[i] = l[1].x * l[1].w

    pts = cuda.to_device(host)
    out = cuda.to_device(np.full(n, np.nan))
    reverse_and_weigh[1, n](pts, out)
    want = host[::-1].copy()
    want["x"] *= 2
    got = pts.copy_to_host()
    np.testing.assert_array_equal(got["x"], want["x"])
    np.testing.assert_array_equal(got["w"], want["w"])
    np.testing.assert_allclose(out.copy_to_host(), want["x"] * want["w"], rtol=1e-15)

    typemap = next(iter(reverse_and_weigh.overloads.values()))._type_annotation.typemap
    assert typemap["s"].dtype == point_type and typemap["l"].dtype == point_type
    assert typemap["i"].dtype == np.int64 or typemap["i"].dtype == np.int32


@pytest.mark.parametrize("space", ["local", "shared"])
def test_dtypes_named_by_strings(current, rng, space):
    src = rng.integers(-100, 100, 8).astype(np.int16)

    @cuda.jit(void(types.int16[::1], float64[::1]))
    def local_copy(a, out):
        t = cuda.local.array(8, dtype="int16")
        for i in range(8):
            t[i] = a[i] * 3
        for i in range(8):
            out[i] = t[i]

    @cuda.jit(void(types.int16[::1], float64[::1]))
    def shared_copy(a, out):
        t = cuda.shared.array(8, dtype="int16")
        for i in range(8):
            t[i] = a[i] * 3
        for i in range(8):
            out[i] = t[i]

    k = local_copy if space == "local" else shared_copy
    out = cuda.to_device(np.full(8, np.nan))
    k[1, 1](cuda.to_device(src), out)
    np.testing.assert_array_equal(out.copy_to_host(), (src * 3).astype(np.int16))
    assert next(iter(k.overloads.values()))._type_annotation.typemap["t"].dtype == types.int16


def test_an_unknown_dtype_name_is_an_error_naming_it(current):
    with pytest.raises(simt.TypingError, match="Invalid NumPy dtype specified: 'int33'"):
        @cuda.jit(void(int32[::1]))
        def f(x):
            t = cuda.local.array(4, dtype="int33")
            t[0] = x[0]


def test_number_type_classes():
    assert isinstance(types.int8, types.Integer) and isinstance(types.uint64, types.Integer)
    assert types.int16.signed and not types.uint16.signed and types.uint16.bitwidth == 16
    assert isinstance(types.float32, types.Float) and not isinstance(types.float32, types.Integer)
    assert isinstance(types.complex64, types.Complex) and types.complex128.bitwidth == 128
    assert isinstance(types.boolean, types.Boolean)
    assert all(isinstance(t, types.Number) for t in (types.int8, types.float16, types.complex64))


def test_what_only_numbas_lowering_could_do_is_a_clear_error():
    with pytest.raises(NotImplementedError, match="write the implementation as a device"):
        overload(np.sum)
    with pytest.raises(NotImplementedError, match="intrinsic"):
        intrinsic(lambda typingctx, x: None)
    with pytest.raises(NotImplementedError, match="create_struct_proxy"):
        lower_point(None, None, None, (1, 2.0))  # with a builder of Numba's
    with pytest.raises(NotImplementedError, match="name the attribute as the member"):
        make_attribute_wrapper(PointType, "x", "first")
    with pytest.raises(TypeError, match="not a StructModel"):
        class Opaque(types.Type):
            def __init__(self):
                super().__init__(name="Opaque")

        register_model(Opaque)(core_models.OpaqueModel)
        Opaque().dtype  # noqa: B018


def test_a_struct_constructor_lowered_from_its_arguments_runs_in_kernels(current, rng):
    # numba-cuda's test_struct_model_type_arr: Point(x, w) in a kernel, its lowering
    # setting member k from argument k, stored into local and global arrays of the type.
    @cuda.jit(void(int32[::1], float64[::1], point_type[::1]))
    def make(xs, ws, out):
        arr = cuda.local.array(10, dtype=point_type)
        for i in range(len(arr)):
            p = Point(xs[i], ws[i] * 2)
            arr[i] = p
            out[i] = Point(xs[i] + 1, p.w)
        for i in range(len(arr)):
            xs[i] = arr[i].x
            ws[i] = arr[i].w

    xs = rng.integers(-50, 50, 10).astype(np.int32)
    ws = rng.standard_normal(10)
    out = np.zeros(10, point_type.dtype)
    want_x, want_w = xs.copy(), ws * 2
    make[1, 1](xs, ws, out)
    np.testing.assert_array_equal(xs, want_x)
    np.testing.assert_array_equal(ws, want_w)
    np.testing.assert_array_equal(out["x"], want_x + 1)
    np.testing.assert_array_equal(out["w"], want_w)


def test_a_constructor_lowering_simt_cannot_read_is_an_error_naming_it(current):
    class Swapped:
        def __init__(self, w, x):
            self.w, self.x = w, x

    @lower(Swapped, types.Float, types.Integer)
    def lower_swapped(context, builder, sig, args):
        obj = cgutils.create_struct_proxy(point_type)(context, builder)
        obj.w, obj.x = args
        return obj._getvalue()

    with pytest.raises(simt.TypingError, match=r"'Swapped' is the class Swapped, whose lowering "
                                               r"does not set member k of \['x', 'w'\] from "
                                               r"argument k"):
        @cuda.jit(void(int32[::1]))
        def make(out):
            p = Swapped(1.5, out[0])
            out[0] = p.x

        make[1, 1](np.zeros(1, np.int32))


def test_tuples_store_into_records_field_by_field(current, rng):
    # NumPy's a[i] = (1, 2.5): the fields in order, each converted.
    rec = np.dtype([("a", np.int16), ("b", np.float32), ("c", np.int64)], align=False)

    @cuda.jit
    def fill(out, vals):
        i = cuda.grid(1)
        if i < out.size:
            out[i] = (vals[i], vals[i] / 2, i)

    vals = rng.integers(-100, 100, 40).astype(np.int64)
    out = np.zeros(40, rec)
    fill[1, 64](out, vals)
    want = np.zeros(40, rec)
    for i, v in enumerate(vals):
        want[i] = (v, v / 2, i)
    np.testing.assert_array_equal(out, want)

    @cuda.jit
    def too_few(out):
        out[0] = (1, 2)

    with pytest.raises(simt.TypingError, match="a tuple sets its 3 fields in order, and has 2"):
        too_few[1, 1](out)
