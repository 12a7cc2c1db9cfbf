@simt.kernel
def k_floor_types(a, out):
    x = math.floor(a[0])
    y = round(a[0])
    z = math.sqrt(a[0])
    w = math.floor(1.5)
