@simt.func
def clamp(x, lo, hi):
    return min(max(x, lo), hi)
