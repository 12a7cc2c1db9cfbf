# signature: float32[::1], float32[::1]
# signature: float64[::1], float64[::1]
# signature: int32[::1], float64[::1]
def math_fns(x, out):
    i = cuda.grid(1)
    if i < x.shape[0]:
        v = x[i]
        s = math.sin(v) + math.cos(v) * math.exp(-abs(v)) + math.sqrt(abs(v)) + math.atan2(v, 1.0)
        s += math.floor(v) + math.ceil(v) + round(v) + min(v, 2) + max(v, -2, 0.5)
        if math.isnan(s) or math.isinf(s):
            s = 0.0
        out[i] = s + math.pi - math.pi + float(int(v)) - int(v) + math.log1p(abs(v)) * 0
