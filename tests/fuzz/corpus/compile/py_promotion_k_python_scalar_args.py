@simt.kernel
def k_python_scalar_args(a, s):
    x = a[0] + s
