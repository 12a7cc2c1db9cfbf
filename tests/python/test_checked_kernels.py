"""Checked kernels (debug=True, boundscheck=True) on every available device.

A checked kernel checks every array index against its axis (and, with debug=True,
every ``assert``); the launch waits and raises IndexError / AssertionError for the
first failed check, naming the kernel, the array, the index, the axis's size, the
thread, the block and the line. A failed access uses index 0 instead, so it never
touches memory outside its array: the tests put guard arrays around the target and
check that they keep their poison. Without checks, asserts are not evaluated.
"""

import os
import re
import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest

import simt
import kernel_helpers
from simt import cuda

THIS_FILE = Path(__file__).resolve()
POISON = -77.0


def line_of(marker):
    return kernel_helpers.marker_line(THIS_FILE, marker)


def where(marker):
    return f"{THIS_FILE}:{line_of(marker)}"


@simt.kernel(debug=True)
def k_read_at(out, a, index, who):
    i = simt.grid(1)
    if i == who:
        out[0] = a[index]  # read-at
    elif i < out.shape[0]:
        out[i] = a[i % a.shape[0]]


@simt.kernel(boundscheck=True)
def k_write_at(a, index, value):
    if simt.grid(1) == 0:
        a[index] = value  # write-at


def guarded(device, values):
    """`values` on `device` between two poisoned arrays of the same size."""
    before = simt.full(values.shape, POISON, values.dtype, device=device)
    target = simt.to_device(values, device=device)
    after = simt.full(values.shape, POISON, values.dtype, device=device)
    return before, target, after


def assert_guards_intact(before, after):
    assert np.all(before.get() == POISON) and np.all(after.get() == POISON)


@pytest.mark.parametrize("offset", [0, 1, 1000, 2**40, "-n-1", "-2n"])
def test_out_of_bounds_read_raises_naming_everything(device, rng, offset):
    n = int(rng.integers(5, 50))
    index = {"-n-1": -n - 1, "-2n": -2 * n}.get(offset, n + offset if isinstance(offset, int)
                                                 else None)
    a = simt.to_device(rng.standard_normal(n).astype(np.float32), device=device)
    out = simt.full(40, POISON, np.float32, device=device)
    who = 37  # block 1, thread 5 of blocks of 32
    with pytest.raises(IndexError) as raised:
        k_read_at[2, 32](out, a, index, who)
    message = str(raised.value)
    assert message.startswith(f"index {index} is out of bounds for axis 0 with size {n} ")
    assert "array 'a'" in message and "kernel 'k_read_at'" in message
    assert "thread (5, 0, 0) of block (1, 0, 0)" in message
    assert where("read-at") + ": out[0] = a[index]" in message


def test_checked_kernel_computes_what_numpy_does(device, rng):
    n = 29
    values = rng.standard_normal(n).astype(np.float32)
    a = simt.to_device(values, device=device)
    out = simt.full(64, POISON, np.float32, device=device)
    k_read_at[2, 32](out, a, -3, 0)  # a negative index in range counts from the end
    expected = values[np.arange(64) % n]
    expected[0] = values[-3]
    np.testing.assert_array_equal(out.get(), expected)


@pytest.mark.parametrize("index", [8, -9, 2**33])
def test_out_of_bounds_write_touches_nothing_outside(device, rng, index):
    values = rng.standard_normal(8)
    before, a, after = guarded(device, values)
    with pytest.raises(IndexError, match=rf"index {index} is out of bounds for axis 0 with "
                                         rf"size 8 \(array 'a' in kernel 'k_write_at'"):
        k_write_at[1, 32](a, index, 5.0)
    assert_guards_intact(before, after)
    # The failed write went to element 0: its array's only change.
    got = a.get()
    np.testing.assert_array_equal(got[1:], values[1:])


@simt.kernel(debug=True)
def k_matrix(out, m, row, col):
    if simt.grid(1) == 0:
        out[0] = m[row, col]  # matrix


@simt.kernel(debug=True)
def k_row_view(out, m, row, col):
    if simt.grid(1) == 0:
        r = m[row]
        out[0] = r[col]  # row-view


@pytest.mark.parametrize("layout", ["C", "F", "strided"])
def test_two_dimensional_axes(device, rng, layout):
    values = rng.standard_normal((6, 7))
    host = {"C": values, "F": np.asfortranarray(values), "strided": values[:, ::2]}[layout]
    m = simt.to_device(host, device=device) if layout != "strided" else \
        simt.to_device(values, device=device)[:, ::2]
    rows, cols = host.shape
    out = simt.full(1, POISON, np.float64, device=device)
    k_matrix[1, 1](out, m, rows - 1, -cols)
    assert out.get()[0] == host[rows - 1, 0]
    with pytest.raises(IndexError, match=f"index {cols} is out of bounds for axis 1 with size "
                                         f"{cols} \\(array 'm'"):
        k_matrix[1, 1](out, m, 0, cols)
    with pytest.raises(IndexError, match=f"index {-rows - 1} is out of bounds for axis 0"):
        k_matrix[1, 1](out, m, -rows - 1, 0)
    with pytest.raises(IndexError, match=f"for axis 0 with size {cols} \\(array 'r'"):
        k_row_view[1, 1](out, m, 1, cols + 2)
    with pytest.raises(IndexError, match=f"index {rows} is out of bounds for axis 0 with size "
                                         f"{rows} \\(array 'm'"):
        k_row_view[1, 1](out, m, rows, 0)


@simt.kernel(debug=True)
def k_shared(out, index):
    tile = simt.shared.array(16, np.float32)
    t = simt.threadIdx.x
    tile[t] = t
    simt.syncthreads()
    if t == 3:
        out[0] = tile[index]  # shared


@simt.kernel(debug=True)
def k_local(out, index):
    scratch = simt.local.array(4, np.int32)
    for j in range(4):
        scratch[j] = j * 10
    out[simt.grid(1)] = scratch[index]  # local


@simt.kernel(debug=True)
def k_dynamic_shared(out, index):
    buffer = simt.shared.array(0, np.float32)
    buffer[index] = 1.0  # dynamic
    out[0] = buffer[index]


def test_shared_local_and_dynamic_arrays(device):
    out = simt.full(16, POISON, np.float32, device=device)
    k_shared[1, 16](out, 15)
    assert out.get()[0] == 15
    with pytest.raises(IndexError, match=r"index 16 is out of bounds for axis 0 with size 16 "
                                         r"\(array 'tile'.*thread \(3, 0, 0\)"):
        k_shared[1, 16](out, 16)
    out_i = simt.full(4, -1, np.int32, device=device)
    k_local[1, 4](out_i, -1)
    np.testing.assert_array_equal(out_i.get(), [30] * 4)
    with pytest.raises(IndexError, match=r"index 4 is out of bounds.*array 'scratch'"):
        k_local[1, 4](out_i, 4)
    k_dynamic_shared[1, 1, 0, 8](out, 1)
    with pytest.raises(IndexError, match=r"index 2 is out of bounds for axis 0 with size 2 "
                                         r"\(array 'buffer'"):
        k_dynamic_shared[1, 1, 0, 8](out, 2)
    # No dynamic shared memory at all: still an IndexError, not a fault.
    with pytest.raises(IndexError, match=r"index 0 is out of bounds for axis 0 with size 0"):
        k_dynamic_shared[1, 1](out, 0)


@simt.kernel(boundscheck=True)
def k_empty(out, a):
    a[0] = 1.0
    out[0] = a[0]


def test_arrays_without_elements(device):
    out = simt.full(1, POISON, np.float64, device=device)
    for a in [simt.empty(0, np.float64, device=device),
              simt.empty((3, 0), np.float64, device=device)[1],
              simt.arange(4.0, device=device)[4:]]:
        with pytest.raises(IndexError, match=r"index 0 is out of bounds for axis 0 with size 0"):
            k_empty[1, 1](out, a)


@simt.kernel(debug=True)
def k_atomic(counts, bins):
    i = simt.grid(1)
    if i < bins.shape[0]:
        simt.atomic.add(counts, bins[i], 1)  # atomic


def test_atomics_are_checked(device, rng):
    bins = rng.integers(0, 10, 100).astype(np.int32)
    counts = simt.zeros(10, np.int32, device=device)
    k_atomic[4, 32](counts, simt.to_device(bins, device=device))
    np.testing.assert_array_equal(counts.get(), np.bincount(bins, minlength=10))
    bins[57] = 10
    before, counts, after = guarded(device, np.zeros(10, np.int32))
    with pytest.raises(IndexError, match=r"index 10 is out of bounds for axis 0 with size 10 "
                                         r"\(array 'counts'.*thread \(25, 0, 0\) of block "
                                         r"\(1, 0, 0\)"):
        k_atomic[4, 32](counts, simt.to_device(bins, device=device))
    assert_guards_intact(before, after)


@simt.func
def element(a, i):
    return a[i]  # in-function


@simt.kernel(debug=True)
def k_calls_function(out, a, i):
    out[0] = element(a, i)


def test_device_functions_are_checked(device):
    a = simt.arange(5, dtype=np.float32, device=device)
    out = simt.zeros(1, np.float32, device=device)
    k_calls_function[1, 1](out, a, 4)
    assert out.get()[0] == 4
    with pytest.raises(IndexError, match=re.escape(where("in-function") + ": return a[i]")):
        k_calls_function[1, 1](out, a, 5)


@simt.kernel(debug=True)
def k_find_zero(out, a):
    i = 0
    while a[i] != 0:  # walk
        i += 1
    out[0] = i


def test_a_loop_walking_off_the_array_ends(device):
    out = simt.zeros(1, np.int64, device=device)
    a = simt.to_device(np.array([3, 1, 0, 2]), device=device)
    k_find_zero[1, 1](out, a)
    assert out.get()[0] == 2
    # No zero: the loop walks off the end, and ends there instead of reading
    # element 0 (a 3) forever.
    with pytest.raises(IndexError, match=r"index 4 is out of bounds.*array 'a'"):
        k_find_zero[1, 1](out, simt.to_device(np.array([3, 1, 5, 2]), device=device))


def check_positive(a):
    i = simt.grid(1)
    if i < a.shape[0]:
        assert a[i] > 0, "values must be positive"  # assert


def test_assert_in_debug_mode_only(device, rng):
    values = rng.uniform(1, 2, 64)
    a = simt.to_device(values, device=device)
    debug = simt.kernel(debug=True)(check_positive)
    plain = simt.kernel(check_positive)
    bounds_only = simt.kernel(boundscheck=True)(check_positive)
    debug[2, 32](a)
    values[45] = -1
    a = simt.to_device(values, device=device)
    with pytest.raises(AssertionError) as raised:
        debug[2, 32](a)
    message = str(raised.value)
    assert message.startswith("values must be positive (in kernel 'check_positive', thread "
                              "(13, 0, 0) of block (1, 0, 0), at ")
    assert where("assert") + ': assert a[i] > 0, "values must be positive"' in message
    plain[2, 32](a)  # not evaluated without debug=True, as in Numba
    bounds_only[2, 32](a)


@simt.kernel(debug=True)
def k_bare_assert(n):
    assert n < 3


def test_assert_without_message(device):
    k_bare_assert[1, 1](2)
    with pytest.raises(AssertionError, match=r"^assertion failed \(in kernel 'k_bare_assert'"):
        k_bare_assert[1, 1](3)


def test_numpy_arrays_passed_straight_are_checked_and_copied_back(device):
    host = np.zeros(4, np.float64)
    with pytest.raises(IndexError, match="index 4 is out of bounds"):
        k_write_at[1, 1](host, 4, 9.0)
    assert host[0] == 9.0  # the failed write's stand-in, copied back like any result


def test_numba_spellings(device):
    @cuda.jit(boundscheck=True)
    def fill(a):
        a[cuda.grid(1)] = 1

    a = simt.zeros(8, np.int32, device=device)
    with pytest.raises(IndexError, match="index 8 is out of bounds.*array 'a'"):
        fill[1, 9](a)

    @cuda.jit(debug=True, opt=False)
    def checks(a):
        assert a[0] == 2

    with pytest.raises(AssertionError):
        checks[1, 1](a)


def test_environment_variables_turn_checks_on(tmp_path):
    script = tmp_path / "env_checks.py"
    script.write_text(
        "import numpy as np, simt\n"
        "@simt.kernel\n"
        "def k(a):\n"
        "    a[5] = 1.0\n"
        "a = simt.zeros(3, np.float32, device='cpu' if 'cpu' in [d.id for d in simt.devices()]"
        " else None)\n"
        "try:\n"
        "    k[1, 1](a)\n"
        "except IndexError as e:\n"
        "    print('IndexError', e)\n")
    for variable in ("SIMT_DEBUG", "SIMT_BOUNDSCHECK"):
        env = dict(os.environ, **{variable: "1"})
        done = subprocess.run([sys.executable, str(script)], env=env, capture_output=True,
                              text=True, timeout=300)
        assert done.returncode == 0, done.stderr
        assert "IndexError index 5 is out of bounds for axis 0 with size 3" in done.stdout


@simt.kernel(debug=True)
def k_tuple_at(out, a, t, k):
    i = simt.grid(1)
    if i == 2:
        out[0] = a.shape[-k]  # shape-at
        out[1] = t[k - 1] / out[0]  # item-at


@pytest.mark.parametrize("case", ["1-d", "2-d", "shape", "items"])
def test_a_tuple_index_out_of_range_raises_in_debug_mode(device, rng, case):
    # numba-cuda's test_exception: `ary.shape[-x]` past the tuple, Python's IndexError.
    a = simt.to_device(rng.standard_normal(5), device=device)
    out = simt.full(2, POISON, np.float64, device=device)
    t = (1.5, 2.5, 4.0)
    if case in ("1-d", "2-d"):
        k = 1 if case == "1-d" else 2
        shape = (5,) if k == 1 else (1, 5)
        k_tuple_at[1, 3](out, a.reshape(shape), t, k)
        np.testing.assert_array_equal(out.get(), [shape[-k], t[k - 1] / shape[-k]])
        return
    with pytest.raises(IndexError) as raised:
        if case == "shape":   # a.shape[-4] of 1 item
            k_tuple_at[1, 3](out, a, t, 4)
        else:                 # a.shape[-4] of 4 is 1; t[3] of 3 items is not
            k_tuple_at[1, 3](out, a.reshape(1, 1, 1, 5), t, 4)
    message = str(raised.value)
    if case == "shape":
        assert message.startswith("tuple index out of range (index -4 of tuple 'a.shape' with 1 "
                                  "items in kernel 'k_tuple_at', thread (2, 0, 0) of block "
                                  "(0, 0, 0), at " + where("shape-at"))
    else:
        assert message.startswith("tuple index out of range (index 3 of tuple 't' with 3 items")
        assert where("item-at") in message


def test_generated_cuda_with_checks_compiles(rng):
    """CI has NVRTC but no GPU: the checked CUDA of every kernel here must compile."""
    if not simt._core.nvrtc_compile('extern "C" __global__ void k() {}')["available"]:
        pytest.skip("NVRTC is not available")
    cases = [(k_read_at, ("float32[::1]", "float32[::1]", "int64", "int64")),
             (k_shared, ("float32[::1]", "int64")),
             (k_dynamic_shared, ("float32[::1]", "int64")),
             (k_atomic, ("int32[::1]", "int32[::1]")),
             (k_calls_function, ("float32[::1]", "float32[::1]", "int64")),
             (k_find_zero, ("int64[::1]", "int64[::1]")),
             (k_tuple_at, ("float64[::1]", "float64[::1]", "(float64, float64, float64)",
                           "int64"))]
    for kernel, types in cases:
        source = kernel.inspect_source(*types, dialect="cuda")
        assert "simt_check_index" in source
        result = simt._core.nvrtc_compile(source, 90)
        assert result["ok"], result["log"]
