@cuda.jit(device=True)
def clamp(v, low, high):
    return min(max(v, low), high)
