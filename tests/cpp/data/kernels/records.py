# signature: record(x: float32 @ 0, y: int8 @ 4, v: float64[2] @ 8; size 24, align 8)[::1], record(x: float32 @ 0, y: int8 @ 4, v: float64[2] @ 8; size 24, align 8), float64[::1]
# signature: record(x: float32 @ 0, y: int8 @ 4, v: float64[2] @ 5; size 21, align 1)[:], readonly record(x: float32 @ 0, y: int8 @ 4, v: float64[2] @ 5; size 21, align 1), float64[::1]
def records(a, r, out):
    """Record fields read and written in place: aligned ones with their own loads, packed
    ones byte by byte; a record argument by reference; whole records and array fields."""
    i = cuda.grid(1)
    if i < a.size:
        e = a[i]
        out[i] = e.x + e['y'] + e.v[1] + r.x + r[2][0]
        e.y += 1
        out[i] += record_norm(e)
        a[i]['v'][0] = r.v[1] * 2
        if i == 0:
            a[i] = a[a.size - 1]
            e.v = r.v
