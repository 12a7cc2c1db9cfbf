"""Record (structured) dtypes in kernels, as Numba-CUDA has them: NumPy arrays of records
passed straight in or copied with cuda.to_device, fields read and written by name
(`a[i].x`, `a[i]['x']`, `a[i][k]`), `r = a[i]` a reference to the element, nested records
and fixed-size array fields, records as arguments (by reference: the kernel's writes reach
the array the record belongs to), records given to device functions, local, shared and
constant arrays of records. Aligned and packed layouts alike are read exactly as NumPy
lays them out, on every device, against NumPy on fresh random inputs."""

import collections

import numpy as np
import pytest

import simt
from simt import cuda


def fields_dtype(align):
    """Every kind of field: numbers of each size, complex, bool, float16, an array."""
    return np.dtype([("x", np.float32), ("b", np.int8), ("y", np.float64), ("c", np.complex64),
                     ("u", np.uint16), ("h", np.float16), ("ok", np.bool_),
                     ("v", np.float32, 3)], align=align)


def random_records(rng, dtype, n):
    a = np.zeros(n, dtype)
    a["x"] = rng.standard_normal(n)
    a["b"] = rng.integers(-100, 100, n)
    a["y"] = rng.standard_normal(n)
    a["c"] = rng.standard_normal(n) + 1j * rng.standard_normal(n)
    a["u"] = rng.integers(0, 60000, n)
    a["h"] = rng.standard_normal(n)
    a["ok"] = rng.integers(0, 2, n)
    a["v"] = rng.standard_normal((n, 3))
    return a


def padding(dtype):
    """The bytes of a record no field covers."""
    covered = np.zeros(dtype.itemsize, bool)
    for name in dtype.names:
        field, offset = dtype.fields[name][:2]
        covered[offset:offset + field.itemsize] = True
    return ~covered


def raw_bytes(a):
    """Each record's bytes, padding included (NumPy's copies of records leave it unset)."""
    return np.frombuffer(a.tobytes(), np.uint8).reshape(a.size, a.dtype.itemsize)


def poisoned(n, dtype=np.float64):
    return np.full(n, np.nan, dtype)


@cuda.jit
def read_and_update(a, out):
    i = cuda.grid(1)
    if i < a.size:
        out[i] = (a[i].x + a[i]["b"] + a[i].y + a[i].c.imag + a[i].u + a[i]["h"]
                  + (1.0 if a[i].ok else 0.0) + a[i].v[0] - a[i].v[2])
        a[i].y += 1.5
        a[i]["b"] -= 3
        a[i].c = complex(a[i].x, 2.0)
        a[i].v[1] = a[i].u
        a[i].ok = not a[i].ok
        a[i].h = a[i].h * 2


def expected_read_and_update(a):
    a = a.copy()
    f = {name: a[name].astype(np.float64) for name in ("x", "b", "y", "u", "h")}
    out = (f["x"] + f["b"] + f["y"] + a["c"].imag + f["u"] + f["h"] + a["ok"]
           + a["v"][:, 0] - a["v"][:, 2])
    a["y"] += 1.5
    a["b"] -= 3
    a["c"] = a["x"] + 2j
    a["v"][:, 1] = a["u"]
    a["ok"] = ~a["ok"]
    a["h"] = a["h"] * np.float16(2)
    return out, a


@pytest.mark.parametrize("align", [True, False], ids=["aligned", "packed"])
@pytest.mark.parametrize("copied", [True, False], ids=["to_device", "numpy"])
def test_fields_are_read_and_written_as_numpy_lays_them_out(device, rng, align, copied):
    dtype = fields_dtype(align)
    assert dtype.itemsize == (48 if align else 38)
    a = random_records(rng, dtype, int(rng.integers(1, 300)))
    original = raw_bytes(a)
    expected, after = expected_read_and_update(a)
    out = poisoned(a.size)
    with simt.use_device(device):
        if copied:
            d = cuda.to_device(a)
            read_and_update[(a.size + 63) // 64, 64](d, out)
            got = d.copy_to_host()
        else:
            read_and_update[(a.size + 63) // 64, 64](a, out)  # copied there and back
            got = a
    # The kernel adds float32 fields in float32 (NumPy's promotion), the reference all
    # in float64: partial sums up to ~100 round at float32's 8e-6 there, which a sum
    # cancelling to near 0 shows (seed 1249417960). A field read at a wrong offset is
    # off by far more.
    np.testing.assert_allclose(out, expected, rtol=1e-6, atol=1e-4)
    for name in dtype.names:
        np.testing.assert_array_equal(got[name], after[name], err_msg=name)
    # The padding of aligned records is left as it was.
    pad = padding(dtype)
    np.testing.assert_array_equal(raw_bytes(got)[:, pad], original[:, pad])


@cuda.jit
def through_references(a, out):
    i = cuda.grid(1)
    if i < a.size:
        r = a[i]
        s = r  # the same record
        s.x = r.x * 2
        r["y"] += s[1]  # by position: field 1 is b
        out[i] = r[-1][0] + s.y


def test_a_record_variable_is_a_reference_to_the_element(device, rng):
    a = random_records(rng, fields_dtype(False), 100)
    a = a[["x", "b", "y", "v"]]  # a view of four fields, still 37-byte records
    before = a.copy()
    out = poisoned(100)
    with simt.use_device(device):
        d = cuda.to_device(a)
        through_references[4, 32](d, out)
        got = d.copy_to_host()
    np.testing.assert_array_equal(got["x"], before["x"] * 2)
    np.testing.assert_array_equal(got["y"], before["y"] + before["b"])
    np.testing.assert_allclose(out, before["v"][:, 0] + before["y"] + before["b"], rtol=1e-12)


point = np.dtype([("x", np.float32), ("y", np.int16)])
segment = np.dtype([("id", np.int8), ("p", point), ("q", point), ("m", np.float64, (2, 3))])


@cuda.jit
def nested(a, out):
    i = cuda.grid(1)
    if i < a.size:
        s = a[i]
        total = 0.0
        for j in range(s.m.shape[0]):
            for k in range(len(s.m[j])):
                total += s.m[j, k] * (j + 1)
                s.m[j, k] = s.p.y * k
        out[i] = total + s.p.x - s["q"]["y"] + s.id
        s.q.x = s.p.x + 1
        s.p = s.q  # a whole nested record


def test_nested_records_and_two_dimensional_array_fields(device, rng):
    n = 77
    a = np.zeros(n, segment)
    a["id"] = rng.integers(-50, 50, n)
    a["p"]["x"], a["p"]["y"] = rng.standard_normal(n), rng.integers(-9, 9, n)
    a["q"]["x"], a["q"]["y"] = rng.standard_normal(n), rng.integers(-9, 9, n)
    a["m"] = rng.standard_normal((n, 2, 3))
    out = poisoned(n)
    with simt.use_device(device):
        d = cuda.to_device(a)
        nested[3, 32](d, out)
        got = d.copy_to_host()
    weights = np.array([1.0, 2.0])[None, :, None]
    np.testing.assert_allclose(out, (a["m"] * weights).sum(axis=(1, 2)) + a["p"]["x"]
                               - a["q"]["y"] + a["id"], rtol=1e-6)
    np.testing.assert_array_equal(got["m"], a["p"]["y"][:, None, None] * np.arange(3.0)
                                  + np.zeros((n, 2, 3)))
    np.testing.assert_array_equal(got["q"]["x"], (a["p"]["x"] + np.float32(1)))
    np.testing.assert_array_equal(got["p"], got["q"])


@cuda.jit
def copy_records(dst, src, perm):
    i = cuda.grid(1)
    if i < dst.size:
        dst[i] = src[perm[i]]


@pytest.mark.parametrize("align", [True, False], ids=["aligned", "packed"])
def test_whole_records_copy_between_arrays_at_any_alignment(device, rng, align):
    dtype = fields_dtype(align)
    src = random_records(rng, dtype, 60)
    perm = rng.permutation(60)
    # The destination starts one byte into a buffer: fields no longer sit at addresses
    # their types divide, so the kernel reads and writes them byte by byte.
    raw = np.zeros(60 * dtype.itemsize + 1, np.uint8)
    dst = np.frombuffer(raw.data, dtype, count=60, offset=1)
    assert not dst.flags.aligned or not align
    with simt.use_device(device):
        copy_records[2, 32](dst, src, perm)
    np.testing.assert_array_equal(raw_bytes(dst), raw_bytes(src)[perm])
    if device.host_accessible:
        assert "align 1)" in simt.typeof(dst)


@cuda.jit
def record_argument(r, out):
    out[0] = r.x + r["y"]
    r.y = 42.5
    r.v[2] = -1


def test_a_record_argument_is_passed_by_reference(device, rng):
    a = random_records(rng, fields_dtype(True), 10)
    before = raw_bytes(a).copy()
    x, y = a[4]["x"], a[4]["y"]
    out = poisoned(1)
    with simt.use_device(device):
        record_argument[1, 1](a[4], out)  # a NumPy record: a view of a's element 4
    np.testing.assert_allclose(out[0], np.float64(x) + y)
    expected = np.frombuffer(before.tobytes(), a.dtype).copy()
    expected[4]["y"] = 42.5
    expected[4]["v"][2] = -1
    for name in a.dtype.names:
        np.testing.assert_array_equal(a[name], expected[name], err_msg=name)
    np.testing.assert_array_equal(raw_bytes(a)[:, padding(a.dtype)], before[:, padding(a.dtype)])
    assert simt.typeof(a[4]) == simt.typeof(a).replace("[::1]", "")


def test_a_device_record_is_a_zero_dimensional_array(device, rng):
    a = random_records(rng, fields_dtype(False), 5)
    out = poisoned(1)
    with simt.use_device(device):
        record = cuda.to_device(a[3])
        assert record.shape == () and record.dtype == a.dtype
        record_argument[1, 1](record, out)
        got = record.copy_to_host()
    np.testing.assert_allclose(out[0], np.float64(a[3]["x"]) + a[3]["y"])
    assert got["y"] == 42.5 and got["v"][2] == -1 and got["x"] == a[3]["x"]


def test_records_of_read_only_arrays_are_read_only(device, rng):
    a = random_records(rng, fields_dtype(True), 4)
    a.flags.writeable = False

    @cuda.jit
    def reads(r, out):
        out[0] = r.y

    out = poisoned(1)
    with simt.use_device(device):
        reads[1, 1](a[1], out)
        assert out[0] == a[1]["y"]
        with pytest.raises(simt.TypingError, match="is read-only"):
            record_argument[1, 1](a[1], out)


@cuda.jit(device=True)
def weight(p):
    return p.x * p.y


@cuda.jit(device=True)
def bump(p, by):
    p.y += by


@cuda.jit
def with_device_functions(a, out):
    i = cuda.grid(1)
    if i < a.size:
        out[i] = weight(a[i].p) + weight(a[i]["q"])
        bump(a[i].q, 2)


def test_records_are_given_to_device_functions(device, rng):
    a = np.zeros(50, segment)
    a["p"]["x"], a["p"]["y"] = rng.standard_normal(50), rng.integers(-9, 9, 50)
    a["q"]["x"], a["q"]["y"] = rng.standard_normal(50), rng.integers(-9, 9, 50)
    out = poisoned(50, np.float32)
    with simt.use_device(device):
        d = cuda.to_device(a)
        with_device_functions[2, 32](d, out)
        got = d.copy_to_host()
    np.testing.assert_allclose(out, a["p"]["x"] * a["p"]["y"] + a["q"]["x"] * a["q"]["y"],
                               rtol=1e-6)
    np.testing.assert_array_equal(got["q"]["y"], a["q"]["y"] + 2)


@cuda.jit
def staged_in_memory(a, out):
    tid = cuda.threadIdx.x
    mine = cuda.local.array(2, dtype=point)
    block = cuda.shared.array(64, dtype=point)
    i = cuda.grid(1)
    if i < a.size:
        mine[0] = a[i]
        mine[1].x = mine[0].x * 3
        mine[1].y = mine[0].y - 1
        block[tid] = mine[1]
    cuda.syncthreads()
    if i < a.size:
        other = block[(tid + 1) % cuda.blockDim.x]
        out[i] = other.x + other.y


def test_local_and_shared_arrays_of_records(device, rng):
    n = 128
    a = np.zeros(n, point)
    a["x"], a["y"] = rng.standard_normal(n), rng.integers(-100, 100, n)
    out = poisoned(n, np.float32)
    with simt.use_device(device):
        staged_in_memory[2, 64](cuda.to_device(a), out)
    neighbour = np.arange(n).reshape(2, 64)
    neighbour = np.roll(neighbour, -1, axis=1).reshape(-1)
    expected = a["x"][neighbour] * np.float32(3) + (a["y"][neighbour] - 1)
    np.testing.assert_allclose(out, expected, rtol=1e-6, atol=1e-4)  # float32 sums near 0


CONST_RECORD_ALIGN = np.array(
    [(1, 2, 3, 0xDEADBEEF, 8), (4, 5, 6, 0xBEEFDEAD, 10)],
    dtype=np.dtype([("a", np.uint8), ("b", np.uint8), ("x", np.uint8), ("y", np.uint32),
                    ("z", np.uint8)], align=True))


@cuda.jit
def constant_records(A, B, C, D, E):
    Z = cuda.const.array_like(CONST_RECORD_ALIGN)
    i = cuda.grid(1)
    A[i] = Z[i]["a"]
    B[i] = Z[i]["b"]
    C[i] = Z[i]["x"]
    D[i] = Z[i]["y"]
    E[i] = Z[i]["z"]


def test_global_record_arrays_are_constant_arrays(device):
    outs = [poisoned(2) for _ in range(5)]
    with simt.use_device(device):
        constant_records[2, 1](*outs)
    for out, name in zip(outs, "abxyz"):
        np.testing.assert_array_equal(out, CONST_RECORD_ALIGN[name])


@cuda.jit
def set_array_fields(a, src):
    i = cuda.grid(1)
    if i < a.size:
        if i % 2 == 0:
            a[i].v = src[i]
        else:
            a[i]["v"] = i


def test_a_whole_array_field_is_set_from_an_array_or_a_number(device, rng):
    a = random_records(rng, fields_dtype(False), 40)
    src = rng.standard_normal((40, 3))
    with simt.use_device(device):
        d = cuda.to_device(a)
        set_array_fields[2, 32](d, cuda.to_device(src))
        got = d.copy_to_host()
    expected = np.where((np.arange(40) % 2 == 0)[:, None], src.astype(np.float32),
                        np.arange(40, dtype=np.float32)[:, None])
    np.testing.assert_array_equal(got["v"], expected)
    np.testing.assert_array_equal(got["x"], a["x"])


def test_fields_out_of_order_and_non_identifier_names(device, rng):
    dtype = np.dtype({"names": ["second", "first", "a b"], "formats": [np.int32, np.float64, np.int8],
                      "offsets": [8, 0, 12], "itemsize": 16})

    @cuda.jit
    def k(a, out):
        i = cuda.grid(1)
        if i < a.size:
            out[i] = a[i].first * a[i].second + a[i]["a b"]

    a = np.zeros(30, dtype)
    a["second"], a["first"], a["a b"] = (rng.integers(-9, 9, 30), rng.standard_normal(30),
                                         rng.integers(-9, 9, 30))
    out = poisoned(30)
    with simt.use_device(device):
        k[1, 32](cuda.to_device(a), out)
    np.testing.assert_allclose(out, a["first"] * a["second"] + a["a b"], rtol=1e-14)


def test_signatures_name_record_types(device, rng):
    a = np.zeros(8, [("x", np.float32), ("y", np.int32)])
    a["x"], a["y"] = rng.standard_normal(8), rng.integers(-99, 99, 8)
    text = simt.typeof(a)
    assert text == "record(x: float32 @ 0, y: int32 @ 4; size 8, align 4)[::1]"

    @cuda.jit(f"void({text}, float64[::1])")
    def k(a, out):
        i = cuda.grid(1)
        if i < a.size:
            out[i] = a[i].x - a[i].y

    out = poisoned(8)
    with simt.use_device(device):
        k[1, 8](cuda.to_device(a), out)
    np.testing.assert_allclose(out, a["x"].astype(np.float64) - a["y"])
    assert (text, "float64[::1]") in k.overloads


def test_unsupported_records_are_errors_naming_the_field_and_argument(device):
    out = simt.zeros(1, device=device)

    @cuda.jit
    def first(a, out):
        out[0] = a[0].x

    objects = np.zeros(2, [("x", np.float64), ("o", object)])
    with pytest.raises(TypeError, match="argument 'a': its record dtype cannot be passed to "
                                        "kernels: the field 'o' holds Python objects"):
        first[1, 1](objects, out)
    union = np.dtype({"names": ["x", "i"], "formats": [np.float32, np.int32], "offsets": [0, 0]})
    with pytest.raises(TypeError, match="argument 'a'.*the fields 'x' and 'i' overlap"):
        first[1, 1](np.zeros(2, union), out)

    @cuda.jit
    def name(a, out):
        out[0] = len(a[0].label)

    labelled = np.zeros(2, [("label", "S10"), ("x", np.float64)])
    with pytest.raises(simt.TypingError, match="the record field 'label' holds \\|S10 \\(bytes\\)"):
        name[1, 1](labelled, out)
    first[1, 1](labelled, out)  # fields kernels cannot read are fine where unused
    @cuda.jit
    def missing(a, out):
        out[0] = a[0].z

    with pytest.raises(simt.TypingError, match="has no field 'z' \\(its fields: label, x\\)"):
        missing[1, 1](labelled, out)

    @cuda.jit(device=True)
    def element(a):
        return a[0]

    @cuda.jit
    def returns(a, out):
        out[0] = element(a).x

    with pytest.raises(simt.TypingError, match="a device function cannot return a record"):
        returns[1, 1](labelled, out)


nvrtc = pytest.mark.skipif(not simt._nvrtc_ptx.available(), reason="NVRTC is not installed")


@nvrtc
def test_cuda_reads_aligned_fields_whole_and_packed_ones_by_bytes():
    @cuda.jit
    def k(a, out):
        out[0] = a[0].y

    for align, load in ((True, "ld.global.f64"), (False, "ld.global.u8")):
        types = (simt.typeof(np.zeros(1, fields_dtype(align))), "float64[::1]")
        k.compile(types)
        ptx = k.inspect_asm(types)
        assert load in ptx, (align, ptx)
    assert "ld.global.u8" not in k.inspect_asm((simt.typeof(np.zeros(1, fields_dtype(True))),
                                                "float64[::1]"))


def test_numba_record_types_from_dtype(device, rng):
    from simt.cuda import float64, void
    from simt.cuda.np import numpy_support

    rec = numpy_support.from_dtype(point)
    assert numpy_support.as_dtype(rec) == point
    assert str(rec[::1]) == "record(x: float32 @ 0, y: int16 @ 4; size 6, align 2)[::1]"

    @cuda.jit(void(rec[::1], float64[::1]))
    def k(a, out):
        i = cuda.grid(1)
        scratch = cuda.local.array(1, dtype=rec)
        if i < a.size:
            scratch[0] = a[i]
            out[i] = scratch[0].x * scratch[0].y

    a = np.zeros(20, point)
    a["x"], a["y"] = rng.standard_normal(20), rng.integers(-9, 9, 20)
    out = poisoned(20)
    with simt.use_device(device):
        k[1, 32](cuda.to_device(a), out)
    np.testing.assert_allclose(out, a["x"].astype(np.float64) * a["y"], rtol=1e-7)


@cuda.jit(boundscheck=True)
def grid_stride(a, out):
    start, stride = cuda.grid(2), cuda.gridsize(2)
    for i in range(start[0], a.shape[0], stride[0]):
        for j in range(start[1], a.shape[1], stride[1]):
            r = a[i, j]
            out[i, j] = r.v[j % 3] - r.b
            r.b = i - j


def test_strided_views_of_two_dimensional_record_arrays(device, rng):
    a = random_records(rng, fields_dtype(False), 7 * 12).reshape(7, 12)
    view = a[1::2, ::-3]  # strides of whole records, negative too
    before = view.copy()
    out = np.full(view.shape, np.nan)
    with simt.use_device(device):
        grid_stride[(1, 1), (2, 2)](view, out)  # fewer threads than records
    j = np.arange(view.shape[1])
    np.testing.assert_allclose(out, before["v"][:, j, j % 3] - before["b"], rtol=1e-6,
                               atol=1e-4)  # a difference near 0 of terms up to 100
    i = np.arange(view.shape[0])[:, None]
    np.testing.assert_array_equal(view["b"], (i - j).astype(np.int8))
    with simt.use_device(device), pytest.raises(IndexError):
        @cuda.jit(boundscheck=True)
        def past(a):
            a[a.shape[0], 0].b = 1
        past[1, 1](view)


def test_simt_arrays_of_records(device, rng):
    a = random_records(rng, fields_dtype(True), 12)
    d = simt.to_device(a, device=device)
    assert d.dtype == a.dtype and d.itemsize == a.dtype.itemsize and d.shape == (12,)
    m = d.reshape(3, 4)
    np.testing.assert_array_equal(m[1:, ::2].get(), a.reshape(3, 4)[1:, ::2])
    np.testing.assert_array_equal(simt.zeros(5, a.dtype, device=device).get(), np.zeros(5, a.dtype))
    assert d.reshape(3, 4)[:, 1:].get().dtype == a.dtype  # strided: no padding fields
    assert d[3].dtype == a.dtype
    with pytest.raises(TypeError, match="array operations take arrays of numbers"):
        simt.sum(d)
    with pytest.raises(TypeError, match="does not take"):
        d + d


Pair = collections.namedtuple("Pair", ["arr", "rec"])


@cuda.jit
def in_a_tuple(t, out):
    out[0] = t.arr[1].x + t.rec.x
    t.rec.y = 7


def test_records_inside_named_tuples(device, rng):
    a = np.zeros(3, [("x", np.float32), ("y", np.int32)])
    a["x"] = rng.standard_normal(3)
    out = poisoned(1)
    with simt.use_device(device):
        if device.host_accessible:  # NumPy memory in place: the record is a's element
            in_a_tuple[1, 1](Pair(a, a[2]), out)
            assert a[2]["y"] == 7 and a[1]["y"] == 0
        else:  # NumPy items of tuples are staged: copied there and back, into a's element
            in_a_tuple[1, 1](Pair(cuda.to_device(a), a[2]), out)
            assert a[2]["y"] == 7 and a[1]["y"] == 0
            a[2]["y"] = 0
            record = cuda.to_device(a[2])
            in_a_tuple[1, 1](Pair(cuda.to_device(a), record), out)
            assert record.copy_to_host()["y"] == 7
    np.testing.assert_allclose(out[0], np.float64(a[1]["x"]) + a[2]["x"])
