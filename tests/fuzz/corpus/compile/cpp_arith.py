# signature: int32[::1], int32[::1], int32[::1]
# signature: int64[::1], int64[::1], int64[::1]
# signature: uint8[::1], uint8[::1], uint8[::1]
# signature: int16[::1], uint16[::1], int16[::1]
def arith(a, b, out):
    """Python's integer and float semantics on every element."""
    i = cuda.grid(1)
    if i >= len(out):
        return
    x = a[i]
    y = b[i]
    r = x + y - x * y
    r += x // y
    r -= x % y
    if x > 0 and y != 0:
        r = r ^ (x & y | 3)
    out[i] = r
