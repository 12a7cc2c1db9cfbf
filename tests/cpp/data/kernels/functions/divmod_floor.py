@simt.func
def divmod_floor(a, b):
    """Python's divmod; (0, 0) for a zero divisor."""
    if b == 0:
        return 0, 0
    return a // b, a % b
