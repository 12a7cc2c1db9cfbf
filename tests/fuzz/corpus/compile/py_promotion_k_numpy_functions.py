@simt.kernel
def k_numpy_functions(a):
    x = np.sqrt(a[0])
    y = np.sin(a[0])
    z = np.arctan2(a[0], a[0])
