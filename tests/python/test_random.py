"""simt.random: the Philox4x32-10 blocks against independent references, the same streams
on every device and launch layout, the distributions' moments and ranges, and the errors.

NumPy's own np.random.Philox is Philox4x64-10 (64-bit words, a 256-bit counter), another
generator than cuRAND's Philox4x32-10 that simt computes, so the references here are
Random123's published known-answer vectors, a NumPy transcription of the algorithm from the
paper (checked against those vectors) and, where installed, randomgen's
Philox(number=4, width=32).
"""

import subprocess
import sys

import numpy as np
import pytest

import simt
import simt.random
from simt.random import _philox

# --- the reference: Philox4x32-10 in NumPy, from Salmon et al. (SC 2011) -------------------

_M = (np.uint64(0xD2511F53), np.uint64(0xCD9E8D57))
_W = (0x9E3779B9, 0xBB67AE85)


def reference_blocks(counters, key):
    """Philox4x32-10 of each row of `counters` (n x 4 uint32, word 0 least significant)
    under key (k0, k1): an n x 4 uint32 array."""
    x = [counters[:, w].astype(np.uint64) for w in range(4)]
    k0, k1 = key
    for r in range(10):
        if r:
            k0, k1 = (k0 + _W[0]) % 2 ** 32, (k1 + _W[1]) % 2 ** 32
        p, q = x[0] * _M[0], x[2] * _M[1]
        x = [(q >> np.uint64(32)) ^ x[1] ^ np.uint64(k0), q & np.uint64(0xFFFFFFFF),
             (p >> np.uint64(32)) ^ x[3] ^ np.uint64(k1), p & np.uint64(0xFFFFFFFF)]
    return np.stack(x, axis=1).astype(np.uint32)


def counter_words(start, n, top=None):
    """The counters start, start + 1, ... (mod 2**128) as n x 4 uint32 words; the most
    significant word replaced by `top` when given (the redraw blocks of integers)."""
    values = [(start + i) % 2 ** 128 for i in range(n)]
    words = np.array([[(v >> (32 * w)) & 0xFFFFFFFF for w in range(4)] for v in values],
                     dtype=np.uint32)
    if top is not None:
        words[:, 3] = top
    return words


def key_of_seed(seed):
    words = np.random.SeedSequence(seed).generate_state(2, np.uint32)
    return int(words[0]), int(words[1])


def stream_words(seed, nblocks, start=0):
    """The flat uint32 words of blocks start.. of default_rng(seed)'s stream."""
    return reference_blocks(counter_words(start, nblocks), key_of_seed(seed)).ravel()


# Random123's kat_vectors for philox4x32_10: (counter words, key words, block).
KNOWN_ANSWERS = [
    ((0, 0, 0, 0), (0, 0), (0x6627E8D5, 0xE169C58D, 0xBC57AC4C, 0x9B00DBD8)),
    ((0xFFFFFFFF,) * 4, (0xFFFFFFFF,) * 2, (0x408F276D, 0x41C83B0E, 0xA20BC7C6, 0x6D5451FD)),
    ((0x243F6A88, 0x85A308D3, 0x13198A2E, 0x03707344), (0xA4093822, 0x299F31D0),
     (0xD16CFE09, 0x94FDCCEB, 0x5001E420, 0x24126EA1)),
]


def _counter_int(words):
    return sum(w << (32 * i) for i, w in enumerate(words))


@pytest.mark.parametrize("counter, key, expected", KNOWN_ANSWERS)
def test_the_reference_gives_random123s_known_answers(counter, key, expected):
    got = reference_blocks(np.array([counter], np.uint32), key)
    assert tuple(int(v) for v in got[0]) == expected


def raw(device, counter, key, nblocks, config=None):
    out = simt.empty(4 * nblocks, np.uint32, device)
    _philox.launch(_philox._raw_kernel, out, 4, counter, key, [], config)
    return out.get().reshape(nblocks, 4)


@pytest.mark.parametrize("counter, key, expected", KNOWN_ANSWERS)
def test_blocks_give_random123s_known_answers(device, counter, key, expected):
    got = raw(device, _counter_int(counter), key, 1)
    assert tuple(int(v) for v in got[0]) == expected


@pytest.mark.parametrize("start", [0, 2 ** 32 - 150, 2 ** 64 - 100, 2 ** 96 - 7,
                                   2 ** 128 - 200])
def test_blocks_equal_the_reference(device, rng, start):
    # Hundreds of blocks at random keys, across the carries of the 128-bit counter.
    key = tuple(int(k) for k in rng.integers(0, 2 ** 32, 2))
    got = raw(device, start, key, 300)
    expected = reference_blocks(counter_words(start, 300), key)
    np.testing.assert_array_equal(got, expected)


def test_blocks_equal_randomgens_philox4x32(device, rng):
    randomgen = pytest.importorskip("randomgen")
    key = int(rng.integers(0, 2 ** 63)) * 2 + 1
    start = int(rng.integers(0, 2 ** 62)) << 64
    # randomgen advances its counter before each block: its counter is one behind.
    reference = randomgen.Philox(key=key, counter=start - 1, number=4, width=32)
    expected = reference.random_raw(4 * 200).astype(np.uint32).reshape(200, 4)
    got = raw(device, start, (key & 0xFFFFFFFF, key >> 32), 200)
    np.testing.assert_array_equal(got, expected)


@pytest.mark.parametrize("config", [(1, 1), (3, 1), (7, 32), (64, 64)])
def test_blocks_do_not_depend_on_the_launch_layout(device, config):
    if device.backend == "cpu" and config[1] > 1:
        config = (config[0] * config[1], 1)
    key = (0x12345678, 0x9ABCDEF0)
    expected = reference_blocks(counter_words(5, 1001), key)
    np.testing.assert_array_equal(raw(device, 5, key, 1001, config), expected)


# --- the Generator's values from the stream, exactly ------------------------------------------

def test_random_float32_is_the_top_24_bits_of_each_word(device):
    got = simt.random.default_rng(1234).random(1003, dtype=np.float32, device=device).get()
    words = stream_words(1234, 251)[:1003]
    np.testing.assert_array_equal(got, (words >> 8).astype(np.float32) * np.float32(2 ** -24))


def test_random_float64_is_the_top_53_bits_of_each_word_pair(device):
    rng = simt.random.default_rng(99)
    got = rng.random(301, device=device).get()
    words = stream_words(99, 151).astype(np.uint64)
    pairs = (words[0::2] | (words[1::2] << np.uint64(32)))[:301]
    np.testing.assert_array_equal(got, (pairs >> np.uint64(11)).astype(np.float64) * 2.0 ** -53)


def test_integers_are_lemires_method_with_redraws(device):
    # A range of 3 * 2**30 values rejects a quarter of the words: many redraws.
    m, low = 3 * 2 ** 30, -5
    got = simt.random.default_rng(7).integers(low, low + m, 4000, device=device).get()
    key = key_of_seed(7)
    blocks = reference_blocks(counter_words(0, 1000), key)
    expected = []
    for i in range(4000):
        b, k = divmod(i, 4)
        word, r = int(blocks[b, k]), 0
        while (word * m) % 2 ** 32 < 2 ** 32 % m:
            r += 1
            word = int(reference_blocks(counter_words(b, 1, top=r), key)[0, k])
        expected.append(low + (word * m >> 32))
    np.testing.assert_array_equal(got, np.array(expected))


def _stream_integers(seed, n, dtype):
    """The random integers of the float distributions: 24 bits per word (float32), 53 per
    pair of words (float64)."""
    if dtype == np.float32:
        return stream_words(seed, -(-n // 4))[:n] >> 8, 24
    words = stream_words(seed, -(-n // 2)).astype(np.uint64)
    return ((words[0::2] | (words[1::2] << np.uint64(32))) >> np.uint64(11))[:n], 53


@pytest.mark.parametrize("dtype", [np.float32, np.float64])
def test_exponential_is_the_inverse_of_the_stream(device, dtype):
    # -log1p(-u) within 3 units in the last place of NumPy's float64 value
    n = 100000
    j, bits = _stream_integers(17, n, dtype)
    expected = -np.log1p(-(j.astype(np.float64) * 2.0 ** -bits))
    got = simt.random.default_rng(17).exponential(2.0, n, dtype=dtype, device=device).get()
    ulps = np.abs(got / 2 - expected) / np.spacing(expected.astype(dtype)).astype(np.float64)
    assert np.max(ulps[expected > 0]) <= 3
    assert np.all(got[expected == 0] == 0)


@pytest.mark.parametrize("dtype", [np.float32, np.float64])
def test_normal_is_box_muller_of_the_stream(device, dtype):
    n = 100000
    j, bits = _stream_integers(23, n, dtype)
    u = j.astype(np.float64) * 2.0 ** -bits
    radius = np.sqrt(-2 * np.log1p(-u[0::2]))
    angle = 2 * np.pi * u[1::2]
    expected = np.empty(n)
    expected[0::2], expected[1::2] = radius * np.cos(angle), radius * np.sin(angle)
    got = simt.random.default_rng(23).standard_normal(n, dtype=dtype, device=device).get()
    # absolute error against the radius (the reference's own angle rounds too)
    scale = np.repeat(np.maximum(radius, 1), 2)[:n]
    assert np.max(np.abs(got - expected) / scale) <= 16 * np.finfo(dtype).eps


# --- the same values on every device, whatever the size ---------------------------------------

def _draws(device):
    rng = simt.random.default_rng(2024)
    return {
        "random64": rng.random(10007, device=device),
        "random32": rng.random(10007, dtype=np.float32, device=device),
        "uniform": rng.uniform(-3.0, 5.0, (31, 17), dtype=np.float32, device=device),
        "int64": rng.integers(-10 ** 12, 10 ** 12, 5001, device=device),
        "int8": rng.integers(-128, 127, 999, dtype=np.int8, endpoint=True, device=device),
        "uint64": rng.integers(0, 2 ** 64 - 1, 777, dtype=np.uint64, endpoint=True,
                               device=device),
        "permutation": rng.permutation(1000, device=device),
        "normal64": rng.normal(1.0, 2.0, 4001, device=device),
        "normal32": rng.standard_normal(4001, dtype=np.float32, device=device),
        "exponential": rng.exponential(2.0, 4001, dtype=np.float32, device=device),
    }


def test_a_seed_gives_the_same_values_on_every_device():
    devices = simt.devices()
    draws = [{name: a.get() for name, a in _draws(d).items()} for d in devices]
    for device, found in zip(devices[1:], draws[1:]):
        for name, values in found.items():
            np.testing.assert_array_equal(values, draws[0][name],
                                          err_msg=f"{name} on {device.id} and {devices[0].id}")


@pytest.mark.parametrize("dtype", [np.float32, np.float64])
@pytest.mark.parametrize("method", ["random", "standard_normal", "exponential", "integers"])
def test_a_smaller_draw_is_the_start_of_a_larger_one(device, method, dtype):
    # Different sizes launch different grids; a value depends on its position only.
    def draw(n):
        rng = simt.random.default_rng(31)
        if method == "integers":
            return rng.integers(0, 1000 if dtype == np.float32 else 10 ** 15, n,
                                device=device).get()
        return getattr(rng, method)(size=n, dtype=dtype, device=device).get()

    large = draw(300001)
    for n in (1, 2, 3, 5, 1000, 70001):
        np.testing.assert_array_equal(draw(n), large[:n], err_msg=f"first {n}")


def test_consecutive_calls_continue_the_stream(device):
    one = simt.random.default_rng(5)
    two = simt.random.default_rng(5)
    whole = two.random(16, device=device).get()
    np.testing.assert_array_equal(
        np.concatenate([one.random(8, device=device).get(), one.random(8, device=device).get()]),
        whole)
    # A call ends on a block boundary: 3 float64 values use 2 blocks, the 4th value unused.
    one, two = simt.random.default_rng(6), simt.random.default_rng(6)
    first, second = one.random(3, device=device).get(), one.random(2, device=device).get()
    whole = two.random(6, device=device).get()
    np.testing.assert_array_equal(np.concatenate([first, second]), whole[[0, 1, 2, 4, 5]])
    assert one.state["counter"] == 3


def test_state_restores_a_stream(device):
    rng = simt.random.default_rng(8)
    rng.random(10, device=device)
    saved = rng.state
    first = rng.normal(size=100, device=device).get()
    rng.state = saved
    np.testing.assert_array_equal(rng.normal(size=100, device=device).get(), first)


def test_seeds_give_different_streams(device):
    a = simt.random.default_rng(1).random(100, device=device).get()
    b = simt.random.default_rng(2).random(100, device=device).get()
    c = simt.random.default_rng().random(100, device=device).get()
    d = simt.random.default_rng(np.random.SeedSequence(1)).random(100, device=device).get()
    assert not np.array_equal(a, b) and not np.array_equal(a, c)
    np.testing.assert_array_equal(a, d)


# --- distributions -----------------------------------------------------------------------------

N = 10 ** 6


def assert_moments(x, mean, var, fourth, what):
    """The sample mean and variance of x within 5 standard errors of `mean` and `var`
    (`fourth` the distribution's fourth central moment)."""
    x = np.asarray(x, np.float64)
    n = x.size
    assert abs(x.mean() - mean) < 5 * np.sqrt(var / n), f"{what}: mean {x.mean()} vs {mean}"
    assert abs(x.var() - var) < 5 * np.sqrt((fourth - var ** 2) / n), \
        f"{what}: variance {x.var()} vs {var}"


@pytest.mark.parametrize("dtype", [np.float32, np.float64])
def test_random_is_uniform_in_0_1(device, seed, dtype):
    x = simt.random.default_rng(seed).random(N, dtype=dtype, device=device)
    assert x.dtype == dtype and x.shape == (N,) and x.device == device
    h = x.get()
    assert h.min() >= 0 and h.max() < 1
    assert_moments(h, 0.5, 1 / 12, 1 / 80, "random")
    counts = np.bincount((h * 100).astype(np.int64), minlength=100)
    assert chi_square(counts, np.full(100, N / 100)) < chi_square_bound(99)


@pytest.mark.parametrize("dtype", [np.float32, np.float64])
def test_uniform_is_in_low_high(device, seed, dtype):
    h = simt.random.default_rng(seed).uniform(-2.0, 6.0, N, dtype=dtype, device=device).get()
    assert h.dtype == dtype and h.min() >= -2 and h.max() < 6
    assert_moments(h, 2.0, 64 / 12, 8 ** 4 / 80, "uniform")


@pytest.mark.parametrize("dtype", [np.float32, np.float64])
def test_normal_moments(device, seed, dtype):
    rng = simt.random.default_rng(seed)
    h = rng.normal(3.0, 2.0, N, dtype=dtype, device=device).get()
    assert h.dtype == dtype and np.all(np.isfinite(h))
    assert_moments(h, 3.0, 4.0, 3 * 16, "normal")
    z = rng.standard_normal(N, dtype=dtype, device=device).get()
    assert_moments(z, 0.0, 1.0, 3.0, "standard_normal")
    # the tails: P(|z| > 2) = 0.0455
    tail = np.mean(np.abs(z) > 2)
    assert abs(tail - 0.0455) < 5 * np.sqrt(0.0455 * 0.9545 / N)


@pytest.mark.parametrize("dtype", [np.float32, np.float64])
def test_exponential_moments(device, seed, dtype):
    h = simt.random.default_rng(seed).exponential(0.5, N, dtype=dtype, device=device).get()
    assert h.dtype == dtype and h.min() >= 0 and np.all(np.isfinite(h))
    assert_moments(h, 0.5, 0.25, 9 * 0.5 ** 4, "exponential")


def chi_square(observed, expected):
    return float(np.sum((observed - expected) ** 2 / expected))


def chi_square_bound(df):
    # generous: more than 6 standard deviations of the statistic above its mean
    return df + 6 * np.sqrt(2 * df)


@pytest.mark.parametrize("low, high", [(0, 10), (-3, 4), (5, 5 + 2 ** 31 + 1),
                                       (0, 3 * 2 ** 30), (0, 3 * 2 ** 40)])
def test_integers_are_uniform(device, seed, low, high):
    h = simt.random.default_rng(seed).integers(low, high, N, device=device).get()
    assert h.dtype == np.int64 and h.min() >= low and h.max() < high
    # 12 buckets (or one per value): a modulo reduction's bias (twice as likely low
    # values for 3 * 2**30) fails this by far.
    span = high - low
    buckets = min(span, 12)
    counts = np.bincount(((h - low) * buckets // span).astype(np.int64), minlength=buckets)
    expected = np.diff(-(-np.arange(buckets + 1) * span // buckets)) * (N / span)
    assert chi_square(counts, expected) < chi_square_bound(buckets - 1), counts


def test_integers_endpoint_and_one_argument(device, seed):
    rng = simt.random.default_rng(seed)
    h = rng.integers(1, 6, 60000, endpoint=True, device=device).get()
    assert set(np.unique(h)) == {1, 2, 3, 4, 5, 6}
    h = rng.integers(4, size=1000, device=device).get()
    assert set(np.unique(h)) == {0, 1, 2, 3}
    assert np.all(rng.integers(9, 10, 50, device=device).get() == 9)


@pytest.mark.parametrize("dtype", [np.int8, np.uint8, np.int16, np.uint16, np.int32,
                                   np.uint32, np.int64, np.uint64])
def test_integers_reach_the_dtype_bounds(device, seed, dtype):
    info = np.iinfo(dtype)
    rng = simt.random.default_rng(seed)
    h = rng.integers(info.min, info.max, 4000, dtype=dtype, endpoint=True,
                     device=device).get()
    assert h.dtype == dtype
    if info.bits == 8:
        assert h.min() == info.min and h.max() == info.max  # all 256 values, 4000 draws
    else:
        # the full range: values in every sixteenth of it
        sixteenths = ((h.astype(object) - info.min) * 16 // (int(info.max) - info.min + 1))
        assert set(sixteenths) == set(range(16))
    top = rng.integers(info.max - 1, info.max, 500, dtype=dtype, endpoint=True,
                       device=device).get()
    assert set(np.unique(top)) == {info.max - 1, info.max}
    bottom = rng.integers(info.min, info.min + 2, 500, dtype=dtype, device=device).get()
    assert set(np.unique(bottom)) == {info.min, info.min + 1}


def test_integers_bool(device):
    h = simt.random.default_rng(3).integers(0, 2, 1000, dtype=bool, device=device).get()
    assert h.dtype == np.bool_ and 400 < h.sum() < 600


def test_size_shapes_and_0d(device):
    rng = simt.random.default_rng(0)
    x = rng.random(device=device)
    assert isinstance(x, simt.Array) and x.shape == () and 0 <= float(x.get()) < 1
    assert rng.integers(3, device=device).shape == ()
    assert rng.normal(size=(2, 3, 4), device=device).shape == (2, 3, 4)
    assert rng.random((0, 5), device=device).shape == (0, 5)
    assert rng.random(np.int64(7), device=device).shape == (7,)


def test_default_device_is_the_current_device():
    rng = simt.random.default_rng(0)
    assert rng.random(3).device == simt.current_device()
    for device in simt.devices():
        with simt.use_device(device):
            assert rng.standard_normal(3).device == device


def test_out_is_filled(device):
    out = simt.zeros((4, 5), np.float32, device)
    rng = simt.random.default_rng(11)
    assert rng.random(out=out, dtype=np.float32) is out
    np.testing.assert_array_equal(
        out.get().ravel(), simt.random.default_rng(11).random(20, np.float32, device=device).get())


# --- permutations and sampling -----------------------------------------------------------------

def test_permutation_and_shuffle(device, seed):
    rng = simt.random.default_rng(seed)
    p = rng.permutation(1000, device=device)
    assert p.dtype == np.int64 and p.device == device
    assert sorted(p.get()) == list(range(1000)) and not np.array_equal(p.get(), np.arange(1000))
    m = simt.asarray(np.arange(30).reshape(10, 3), device=device)
    rows = rng.permutation(m).get()
    assert sorted(map(tuple, rows)) == sorted(map(tuple, np.arange(30).reshape(10, 3)))
    x = simt.arange(100, device=device)
    rng.shuffle(x)
    h = x.get()
    assert sorted(h) == list(range(100)) and not np.array_equal(h, np.arange(100))
    cols = simt.asarray(np.arange(12).reshape(3, 4), device=device)
    rng.shuffle(cols, axis=1)
    assert np.array_equal(np.sort(cols.get(), axis=1), np.arange(12).reshape(3, 4))
    assert np.all(np.diff(cols.get(), axis=0) == 4)  # whole columns moved


def test_permutations_are_uniform(device):
    # All 6 orders of 3 elements, about equally often.
    rng = simt.random.default_rng(77)
    counts = {}
    for _ in range(600):
        key = tuple(rng.permutation(3, device=device).get())
        counts[key] = counts.get(key, 0) + 1
    assert len(counts) == 6
    assert chi_square(np.array(list(counts.values())), np.full(6, 100.0)) < chi_square_bound(5)


def test_choice(device, seed):
    rng = simt.random.default_rng(seed)
    h = rng.choice(5, 100000, device=device).get()
    assert set(np.unique(h)) == set(range(5))
    p = [0.1, 0.0, 0.2, 0.3, 0.4]
    h = rng.choice(5, 100000, p=p, device=device).get()
    counts = np.bincount(h, minlength=5)
    assert counts[1] == 0
    expected = np.array(p) * 100000
    assert chi_square(counts[[0, 2, 3, 4]], expected[[0, 2, 3, 4]]) < chi_square_bound(3)
    sample = rng.choice(50, 20, replace=False, device=device).get()
    assert len(set(sample)) == 20 and sample.min() >= 0 and sample.max() < 50
    assert sorted(rng.choice(7, 7, replace=False, device=device).get()) == list(range(7))
    weighted = rng.choice(6, 3, replace=False, p=[0.5, 0.3, 0, 0.2, 0, 0], device=device)
    assert sorted(weighted.get()) == [0, 1, 3]
    values = simt.asarray(np.array([10.0, 20.0, 30.0]), device=device)
    picked = rng.choice(values, (4, 2), device=device)
    assert picked.shape == (4, 2) and set(picked.get().ravel()) <= {10.0, 20.0, 30.0}
    assert rng.choice(4, device=device).shape == ()


def test_weighted_choice_without_replacement_needs_enough_nonzero_weights(device):
    rng = simt.random.default_rng(0)
    with pytest.raises(ValueError, match="fewer non-zero entries"):
        rng.choice(6, 3, replace=False, p=[0.5, 0.5, 0, 0, 0, 0], device=device)


def test_weighted_choice_without_replacement_follows_the_weights(device):
    rng = simt.random.default_rng(4)
    first = [int(rng.choice(3, 1, replace=False, p=[0.7, 0.2, 0.1], device=device).get()[0])
             for _ in range(300)]
    counts = np.bincount(first, minlength=3)
    assert chi_square(counts, np.array([210.0, 60.0, 30.0])) < chi_square_bound(2)


# --- errors ------------------------------------------------------------------------------------

def test_errors(device):
    rng = simt.random.default_rng(0)
    with pytest.raises(ValueError, match="negative dimensions"):
        rng.random(-1, device=device)
    with pytest.raises(TypeError, match="size must be"):
        rng.random(2.5, device=device)
    with pytest.raises(ValueError, match=r"high \(3\) must be greater than low \(5\)"):
        rng.integers(5, 3, device=device)
    with pytest.raises(ValueError, match=r"high \(5\) must be greater than low \(5\)"):
        rng.integers(5, 5, device=device)
    with pytest.raises(ValueError, match=r"must be at least low"):
        rng.integers(5, 4, endpoint=True, device=device)
    with pytest.raises(ValueError, match="out of bounds for int8"):
        rng.integers(-129, 0, dtype=np.int8, device=device)
    with pytest.raises(ValueError, match="out of bounds for uint8"):
        rng.integers(0, 257, dtype=np.uint8, device=device)
    with pytest.raises(ValueError, match="out of bounds for uint64"):
        rng.integers(-1, 5, dtype=np.uint64, device=device)
    with pytest.raises(TypeError, match="unsupported dtype float16"):
        rng.random(3, dtype=np.float16, device=device)
    with pytest.raises(TypeError, match="unsupported dtype int64"):
        rng.random(3, dtype=np.int64, device=device)
    with pytest.raises(TypeError, match="unsupported dtype float64"):
        rng.integers(0, 3, dtype=np.float64, device=device)
    with pytest.raises(ValueError, match=r"scale \(-1.0\) must be non-negative"):
        rng.normal(0.0, -1.0, device=device)
    with pytest.raises(ValueError, match="must be non-negative"):
        rng.exponential(-2.0, device=device)
    with pytest.raises(ValueError, match=r"larger sample \(6\) than the population \(5\)"):
        rng.choice(5, 6, replace=False, device=device)
    with pytest.raises(ValueError, match="sum to"):
        rng.choice(3, 2, p=[0.5, 0.2, 0.2], device=device)
    with pytest.raises(ValueError, match="entries"):
        rng.choice(3, 2, p=[0.5, 0.5], device=device)
    with pytest.raises(TypeError, match="simt array"):
        rng.shuffle(np.arange(3))
    with pytest.raises(ValueError, match="seed must be non-negative"):
        simt.random.default_rng(-1)
    with pytest.raises(TypeError, match="seed must be"):
        simt.random.default_rng(1.5)


def test_errors_name_the_method(device):
    with pytest.raises(ValueError, match=r"^simt\.random\.Generator\.integers: "):
        simt.random.default_rng(0).integers(2, 1, device=device)


# --- the module ---------------------------------------------------------------------------------

def test_import_simt_does_not_import_simt_random():
    code = ("import sys, simt\n"
            "assert 'simt.random' not in sys.modules\n"
            "rng = simt.random.default_rng(1)\n"
            "assert 'simt.random' in sys.modules and simt.random.Generator\n")
    subprocess.run([sys.executable, "-c", code], check=True)


def test_legacy_helpers(device):
    simt.random.seed(3)
    a = simt.random.rand(4, 2, device=device).get()
    simt.random.seed(3)
    np.testing.assert_array_equal(simt.random.rand(4, 2, device=device).get(), a)
    assert simt.random.randn(3, device=device).shape == (3,)
    assert simt.random.randint(0, 5, 10, device=device).get().max() < 5
    assert simt.random.random((2, 2), device=device).shape == (2, 2)


# --- devices without float64 ---------------------------------------------------------------------

@pytest.mark.parametrize("kind", ["random", "uniform", "normal", "exponential"])
def test_float32_kernels_compute_without_float64(kind):
    # OpenCL devices without cl_khr_fp64 run the float32 kernels: no double in them.
    from simt import _launch
    from simt.random import _distributions

    kernel = _distributions.float_kernel(kind, np.dtype(np.float32))(_launch.GRID_STRIDE)
    params = [np.float32(1)] * len(_distributions.PARAMS[kind])
    source = kernel.inspect_source(np.empty(8, np.float32), np.int64(2), np.uint64(0),
                                   np.uint64(0), np.uint32(1), np.uint32(2), *params,
                                   dialect="opencl")
    assert "double" not in source


def test_float64_on_a_device_without_it_is_a_type_error(device, monkeypatch):
    from simt import _launch

    monkeypatch.setattr(_launch, "has_float64", lambda d: False)
    rng = simt.random.default_rng(0)
    with pytest.raises(TypeError, match="double precision"):
        rng.random(4, device=device)
    assert rng.standard_normal(4, dtype=np.float32, device=device).dtype == np.float32
