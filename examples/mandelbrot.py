"""The Mandelbrot set rendered to a PNG, checked against a NumPy version."""

import struct
import sys
import time
import zlib

import numpy as np

import simt
from simt import cuda


@simt.kernel
def mandelbrot(image, x0, y0, dx, dy, max_iter):
    px, py = cuda.grid(2)
    height, width = image.shape
    if px >= width or py >= height:
        return
    c = complex(x0 + px * dx, y0 + py * dy)
    z = 0j
    n = 0
    while n < max_iter and abs(z) <= 2.0:
        z = z * z + c
        n += 1
    image[py, px] = n


def numpy_mandelbrot(width, height, x0, y0, dx, dy, max_iter):
    c = (x0 + np.arange(width) * dx)[None, :] + 1j * (y0 + np.arange(height) * dy)[:, None]
    z = np.zeros_like(c)
    counts = np.zeros(c.shape, np.int32)
    active = np.ones(c.shape, bool)
    for _ in range(max_iter):
        active &= np.abs(z) <= 2.0
        if not active.any():
            break
        z[active] = z[active] * z[active] + c[active]
        counts[active] += 1
    return counts


def write_png(path, gray):
    """An 8-bit grayscale PNG, written with the standard library only."""
    height, width = gray.shape
    raw = b"".join(b"\x00" + gray[row].astype(np.uint8).tobytes() for row in range(height))

    def chunk(kind, data):
        return (struct.pack(">I", len(data)) + kind + data +
                struct.pack(">I", zlib.crc32(kind + data) & 0xFFFFFFFF))

    with open(path, "wb") as f:
        f.write(b"\x89PNG\r\n\x1a\n")
        f.write(chunk(b"IHDR", struct.pack(">IIBBBBB", width, height, 8, 0, 0, 0, 0)))
        f.write(chunk(b"IDAT", zlib.compress(raw, 6)))
        f.write(chunk(b"IEND", b""))


def shade(counts, max_iter):
    """Gray levels with visible contrast: escape counts histogram-equalized (most points
    escape within a few iterations), brighter towards the set; the set itself is black."""
    counts = np.minimum(counts, max_iter)
    inside = counts >= max_iter
    histogram = np.bincount(counts[~inside], minlength=max_iter + 1)
    rank = np.cumsum(histogram) / max(1, histogram.sum())
    gray = 30 + 225 * rank[counts]
    return np.where(inside, 0, gray).astype(np.uint8)


def run(width=1024, height=768, max_iter=200, device=None, png=None):
    """Renders the set; returns (seconds, fraction of pixels that differ from NumPy's)."""
    x0, y0, dx, dy = -2.2, -1.2, 3.2 / width, 2.4 / height
    with simt.use_device(simt.get_device(device)):
        image = simt.full((height, width), -1, np.int32)
        block = (16, 16)
        grid = ((width + 15) // 16, (height + 15) // 16)
        mandelbrot[grid, block](image, x0, y0, dx, dy, max_iter)  # compile and warm up
        image.device.synchronize()
        start = time.perf_counter()
        mandelbrot[grid, block](image, x0, y0, dx, dy, max_iter)
        image.device.synchronize()
        seconds = time.perf_counter() - start
        counts = image.get()
    expected = numpy_mandelbrot(width, height, x0, y0, dx, dy, max_iter)
    if png:
        write_png(png, shade(counts, max_iter))
    return seconds, float(np.mean(counts != expected))


if __name__ == "__main__":
    path = sys.argv[1] if len(sys.argv) > 1 else "mandelbrot.png"
    seconds, mismatch = run(png=path)
    print(f"mandelbrot on {simt.current_device().id}: {seconds * 1e3:.2f} ms, "
          f"{mismatch:.4%} of pixels differ from NumPy; wrote {path}")
