@simt.kernel(debug=True)
def add_one_debug(a, out):
    i = cuda.grid(1)
    out[i] = a[i] + 1.0
