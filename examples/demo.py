"""The README's demo: runs the examples on the default device and checks each against NumPy."""

import os
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))

import arrays  # noqa: E402
import heat  # noqa: E402
import mandelbrot  # noqa: E402
import saxpy  # noqa: E402

import simt  # noqa: E402


def main():
    device = simt.current_device()
    print(f"simt {simt.__version__} on {device.id} ({device.name})\n")
    rows = []
    seconds, error = saxpy.run()
    rows.append(("saxpy, 2^24 float32", f"{seconds * 1e3:8.2f} ms", error < 1e-5,
                 f"max error {error:.1e}"))
    seconds, error = heat.run()
    rows.append(("heat 1024^2, 50 steps", f"{seconds * 1e3:8.2f} ms/step", error < 1e-12,
                 f"max error {error:.1e}"))
    seconds, ok = arrays.run()
    rows.append(("arrays + kernel 4096x256", f"{seconds * 1e3:8.2f} ms", ok,
                 "standardize columns (arrays), count outliers per row (kernel)"))
    png = os.path.join(os.getcwd(), "mandelbrot.png")
    seconds, mismatch = mandelbrot.run(png=png)
    # Points on the set's boundary may take one more or one fewer iteration.
    rows.append(("mandelbrot 1024x768", f"{seconds * 1e3:8.2f} ms", mismatch < 1e-3,
                 f"{mismatch:.3%} pixels differ; {png}"))
    print(f"{'example':<24} {'time':>16}  {'check':<6} detail")
    for name, time_text, ok, detail in rows:
        print(f"{name:<24} {time_text:>16}  {'ok' if ok else 'FAIL':<6} {detail}")
    return 0 if all(ok for _, _, ok, _ in rows) else 1


if __name__ == "__main__":
    sys.exit(main())
