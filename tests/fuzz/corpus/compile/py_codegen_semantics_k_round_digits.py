@simt.kernel
def k_round_digits(a, ndigits, out):
    i = simt.grid(1)
    if i < a.size:
        out[i] = round(a[i], ndigits)
