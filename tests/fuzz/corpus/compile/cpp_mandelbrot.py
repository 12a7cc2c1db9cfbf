# signature: uint8[:, ::1], float64, float64, float64, float64, int32
def mandelbrot(image, x0, y0, dx, dy, max_iter):
    px = cuda.threadIdx.x + cuda.blockIdx.x * cuda.blockDim.x
    py = cuda.threadIdx.y + cuda.blockIdx.y * cuda.blockDim.y
    height, width = image.shape
    if px >= width or py >= height:
        return
    c = complex(x0 + px * dx, y0 + py * dy)
    z = 0j
    n = 0
    while n < max_iter and abs(z) <= 2.0:
        z = z * z + c
        n += 1
    image[py, px] = n % 256
