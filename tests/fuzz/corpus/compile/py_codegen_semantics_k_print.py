@simt.kernel
def k_print(a):
    i = cuda.grid(1)
    if i == 1:
        print("value", a[i], 2.5, None, -7)
