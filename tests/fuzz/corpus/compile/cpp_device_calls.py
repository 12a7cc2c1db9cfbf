# signature: float32[::1], int32[::1], float32, float32
# signature: float64[::1], int64[::1], float64, float64
@simt.kernel
def device_calls(out, bins, lo, hi):
    i = cuda.grid(1)
    if i < out.size and i < bins.size:
        out[i] = clamp(out[i], lo, hi=hi)
        q, r = divmod_floor(bins[i], 10)
        bins[i] = q * 10 + wrap(r, 10, step=3) + wrap(r, 10)
    else:
        scatter(out, clamp(lo, hi, lo) if lo > hi else hi)
