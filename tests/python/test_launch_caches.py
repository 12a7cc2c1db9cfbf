"""What a launch reuses from the one before: the launcher `kernel[grid, block]` made for an
equal configuration, and the specialization of the last arguments' kinds. Each launch
must still see its own arguments: results are compared with NumPy when the kinds change
between launches of one launcher (dtype, ndim, strides, device, NumPy or simt array,
int or float scalar), and errors stay those of a first launch."""

import warnings

import numpy as np
import pytest

import simt

N = 1000
THREADS = 128
BLOCKS = (N + THREADS - 1) // THREADS


@simt.kernel
def scaled(out, x, a):
    i = simt.grid(1)
    if i < out.shape[0]:
        out[i] = x[i] * a


@simt.kernel
def describe(out, x):
    # The extents a launch passes for x, whatever its ndim.
    if simt.grid(1) == 0:
        out[0] = x.ndim
        out[1] = x.shape[0]
        out[2] = x.size


def values(rng, dtype, n=N):
    """Random values with NaN, an infinity and both zeros among them."""
    x = rng.standard_normal(n).astype(dtype)
    x[:4] = [np.nan, -0.0, 0.0, np.inf]
    return rng.permutation(x)


def check_scaled(launcher, device, x, a):
    """Launches out = x * a with `launcher` (x a NumPy array, passed as a simt array) and
    compares with NumPy, the sign of zero and NaNs included."""
    out = simt.empty(x.shape, x.dtype, device=device)
    launcher(out, simt.to_device(x, device=device), a)
    np.testing.assert_array_equal(out.get(), x * np.asarray(a).astype(x.dtype))


def test_an_equal_configuration_reuses_its_launcher(device, rng):
    launcher = scaled[BLOCKS, THREADS]
    assert scaled[BLOCKS, THREADS] is launcher
    grid, block = BLOCKS, THREADS  # equal ints, another tuple
    assert scaled[grid, block] is launcher
    assert scaled[(BLOCKS,), (THREADS,)] is scaled[(BLOCKS,), (THREADS,)]
    assert scaled[BLOCKS, THREADS // 2] is not launcher
    # Configurations of other kinds of ints are parsed each time, and still launch.
    class Extent(int):
        pass

    check_scaled(scaled[Extent(BLOCKS), THREADS], device, values(rng, np.float32), 2.0)
    check_scaled(scaled[BLOCKS, THREADS], device, values(rng, np.float32), 2.0)


def test_more_configurations_than_kept_all_launch_their_own(device, rng):
    # More than the kernel keeps (4), in turns: each launch covers its own grid.
    configs = [(BLOCKS * k, THREADS // k) for k in (1, 2, 4, 8, 16, 32)]
    for _ in range(2):
        for grid, block in configs:
            x = values(rng, np.float32)
            check_scaled(scaled[grid, block], device, x, 0.5)


def test_a_bad_configuration_is_an_error_after_good_ones(device):
    scaled[BLOCKS, THREADS]
    with pytest.raises(TypeError, match="grid must be an int"):
        scaled[float(BLOCKS), THREADS]
    with pytest.raises(ValueError, match="grid must be positive"):
        scaled[0, THREADS]
    with pytest.raises(TypeError, match="a stream is a simt.Stream"):
        scaled[BLOCKS, THREADS, "stream"]


def test_a_launcher_keeps_its_stream(device, rng):
    first, second = simt.Stream(device), simt.Stream(device)
    assert scaled[BLOCKS, THREADS, first] is scaled[BLOCKS, THREADS, first]
    assert scaled[BLOCKS, THREADS, second] is not scaled[BLOCKS, THREADS, first]
    for stream in (first, second, first):
        x = values(rng, np.float32)
        a = simt.to_device(x, device=device)
        out = simt.empty(x.shape, x.dtype, device=device)
        scaled[BLOCKS, THREADS, stream](out, a, 3.0)
        got = out.get(stream=stream)
        stream.synchronize()
        np.testing.assert_array_equal(got, x * np.float32(3.0))


def test_argument_kinds_change_between_launches_of_one_launcher(device, rng):
    launcher = scaled[BLOCKS, THREADS]
    f32, f64 = values(rng, np.float32), values(rng, np.float64)
    i32 = rng.integers(-1000, 1000, N).astype(np.int32)
    # dtype, then scalar kind (float, int, NumPy scalars), back and forth.
    for x, a in [(f32, 2.0), (f64, 2.0), (f32, 3), (i32, 3), (i32, -2), (f64, np.float32(0.5)),
                 (f32, np.float64(-1.5)), (f32, 2.0)]:
        check_scaled(launcher, device, x, a)
    # A strided view, then a contiguous array again.
    whole = values(rng, np.float32, 2 * N)
    out = simt.empty(N, np.float32, device=device)
    launcher(out, simt.to_device(whole, device=device)[::2], 2.0)
    np.testing.assert_array_equal(out.get(), whole[::2] * np.float32(2.0))
    check_scaled(launcher, device, f32, 2.0)
    # A NumPy array (staged or read in place), then a simt array again.
    out = simt.empty(N, np.float32, device=device)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")  # a device that copies it says so
        launcher(out, f32, 4.0)
    np.testing.assert_array_equal(out.get(), f32 * np.float32(4.0))
    check_scaled(launcher, device, f32, 4.0)


def test_the_ndim_of_an_argument_changes_between_launches(device, rng):
    launcher = describe[1, 1]
    out = simt.zeros(3, np.int64, device=device)
    for shape in [(7,), (3, 5), (2, 3, 4), (7,), (6, 1)]:
        x = rng.standard_normal(shape).astype(np.float32)
        launcher(out, simt.to_device(x, device=device))
        np.testing.assert_array_equal(out.get(), [x.ndim, x.shape[0], x.size])


def test_the_device_changes_between_launches_of_one_launcher(rng):
    devices = simt.devices()
    if len(devices) < 2:
        pytest.skip("one device: nothing to change to")
    launcher = scaled[BLOCKS, THREADS]
    for device in devices + devices[:1]:
        check_scaled(launcher, device, values(rng, np.float32), 2.0)
    # An argument on another device than the first array's is still refused.
    x = simt.to_device(values(rng, np.float32), device=devices[0])
    out = simt.empty(N, np.float32, device=devices[1])
    with pytest.raises(TypeError, match=f"argument 'x': the array is on {devices[0].id}"):
        launcher(out, x, 2.0)


def test_a_bad_argument_after_good_launches_names_the_argument(device, rng):
    launcher = scaled[BLOCKS, THREADS]
    check_scaled(launcher, device, values(rng, np.float32), 2.0)
    out = simt.empty(N, np.float32, device=device)
    with pytest.raises(TypeError, match="argument 'a'"):
        launcher(out, simt.to_device(values(rng, np.float32), device=device), "2")
    with pytest.raises(TypeError, match="takes 3 arguments but 2 were given"):
        launcher(out, out)
    check_scaled(launcher, device, values(rng, np.float32), 2.0)


FACTOR = 2.0


@simt.kernel
def times_factor(out, x):
    i = simt.grid(1)
    if i < out.shape[0]:
        out[i] = x[i] * FACTOR


def test_recompile_drops_the_last_launch_specialization(device, rng):
    global FACTOR
    launcher = times_factor[BLOCKS, THREADS]
    x = values(rng, np.float32)
    a = simt.to_device(x, device=device)
    out = simt.empty(N, np.float32, device=device)
    try:
        launcher(out, a)
        np.testing.assert_array_equal(out.get(), x * np.float32(2.0))
        FACTOR = 3.0
        times_factor.recompile()
        launcher(out, a)
        np.testing.assert_array_equal(out.get(), x * np.float32(3.0))
    finally:
        FACTOR = 2.0
        times_factor.recompile()
