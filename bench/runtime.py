"""simt's runtime around the kernels: copies, allocation and a fresh process's first
launch, against CuPy (and numba-cuda, PyTorch) in one run, on every simt device.

    python3 bench/runtime.py [--quick] [--sections bandwidth,alloc,warm] [--device ID ...]

1. bandwidth  host-to-device (H2D) and device-to-host (D2H) copies of 1, 16 and 256
              MiB of float32, from and into pinned memory (simt.pinned_empty;
              cupyx.empty_pinned) and pageable memory (a NumPy array), on a stream
              (simt.Stream; cupy.cuda.Stream): `a.set(host, stream=s)`,
              `a.get(stream=s, out=host)`. GB/s is bytes over the time between two
              events recorded around the copy on that stream (simt.Event;
              cupy.cuda.Event), the median of many samples; `wall` is the same over
              perf_counter from the first record to the end event's synchronize.
              The pinned/pageable line is each side's speedup from pinned memory.
              CuPy runs on CUDA devices only; cpu and opencl:N print simt alone.
2. alloc      `a = simt.empty(n, float32, device=d); del a` for n = 1000, 2^20 and
              2^26 elements: µs per iteration (perf_counter), the median over
              batches (20 of 1000 iterations), after a warm batch; against
              `cupy.empty` + `del` with CuPy's default memory pool (and
              `torch.empty(device="cuda")`, PyTorch's caching allocator, where
              PyTorch is installed) on CUDA, and `np.empty` on the cpu device.
3. warm       a fresh Python process whose disk caches are already filled
              (bench/warm_start_child.py): the time of the first launch of a small
              saxpy kernel + a device synchronize, which includes loading the
              compiled kernel from the disk cache. Each side gets its own empty
              cache folders (SIMT_CACHE_DIR, CUPY_CACHE_DIR, NUMBA_CACHE_DIR, and
              the driver's CUDA_CACHE_PATH and PoCL's POCL_CACHE_DIR); a first run
              (cold: empty caches) fills them, then 7 more runs (warm) give the
              medians. The import of the library (simt; cupy; numba.cuda) is timed
              apart, and the whole process (from the parent) too, against a
              `python -c "import numpy"` baseline. On CUDA the peers are CuPy (an
              ElementwiseKernel and a RawKernel) and numba-cuda (@cuda.jit(cache=True)
              in a module file). The target: simt's warm first launch under 5 ms on
              the CPU and on CUDA.

Every measurement warms up first; simt and its peers take turns sample by sample
(batch by batch; process by process); ratios are peer/simt in time (> 1: simt is
faster); `spread` is the largest interquartile range over median among the sides,
the noise a ratio must beat. What is missing (a peer, a CUDA device, the cpu
backend) is printed with the reason and its part skipped; the script prints a
table and exits 0, and asserts nothing about timings.
"""

import argparse
import importlib.metadata
import importlib.util
import json
import math
import os
import shutil
import statistics
import subprocess
import sys
import tempfile
import time

import numpy as np

import simt

HERE = os.path.dirname(os.path.abspath(__file__))
CHILD = os.path.join(HERE, "warm_start_child.py")
sys.path.insert(0, HERE)

import warm_start_child  # noqa: E402  (its numba module text; imports nothing heavy)

MiB = 1 << 20
WARM_TARGET_MS = 5.0


# ---- timing ------------------------------------------------------------------------------


def summarize(samples):
    """(median, spread) of samples; spread is the interquartile range over the median."""
    median = statistics.median(samples)
    spread = math.nan
    if len(samples) >= 4 and median > 0:
        q1, _, q3 = statistics.quantiles(samples, n=4)
        spread = (q3 - q1) / median
    return median, spread


def take_turns(sides, repeats, errors, warmup=2):
    """{label: [samples]} for sides {label: sample}: `sample()` returns a number or a
    tuple of numbers (one sample). After `warmup` unrecorded samples each, the sides
    take turns sample by sample; a side that raises is dropped, its error in `errors`."""
    samples = {label: [] for label in sides}
    for round_ in range(warmup + repeats):
        for label, sample in sides.items():
            if label in errors:
                continue
            try:
                value = sample()
            except Exception as error:  # a failing side is a note, not a crash
                errors[label] = f"{type(error).__name__}: {error}"
                continue
            if round_ >= warmup:
                samples[label].append(value)
    return {label: s for label, s in samples.items() if s and label not in errors}


def column(samples, i):
    return [s[i] for s in samples]


def fmt(value, width, digits=2):
    if value is None or (isinstance(value, float) and math.isnan(value)):
        return f"{'-':>{width}}"
    return f"{value:>{width}.{digits}f}"


def fmt_spread(spreads, width=7):
    spreads = [s for s in spreads if s is not None and not math.isnan(s)]
    return f"{(f'{max(spreads):.1%}' if spreads else '-'):>{width}}"


def size_label(nbytes):
    if nbytes >= MiB and nbytes % MiB == 0:
        return f"{nbytes // MiB} MiB"
    return f"{nbytes / 1024:.1f} KiB" if nbytes >= 1024 else f"{nbytes} B"


# ---- peers -------------------------------------------------------------------------------


def version_of(*dists):
    for dist in dists:
        try:
            return importlib.metadata.version(dist)
        except importlib.metadata.PackageNotFoundError:
            pass
    return None


class Peers:
    """What is installed, and why not where it is not."""

    def __init__(self):
        self.cp = self.cupyx = None
        self.cupy_note = None
        self.cuda_count = 0
        try:
            import cupy
            import cupyx
            self.cp, self.cupyx = cupy, cupyx
            try:
                self.cuda_count = cupy.cuda.runtime.getDeviceCount()
            except Exception as error:
                self.cupy_note = f"no CUDA device for CuPy ({type(error).__name__}: {error})"
        except Exception as error:
            self.cupy_note = f"not installed ({type(error).__name__}: {error})"
        self.numba_version = version_of("numba")
        self.numba_cuda_version = version_of("numba-cuda", "numba_cuda")
        self.numba_note = None if importlib.util.find_spec("numba") else "not installed"
        self.torch_version = version_of("torch")
        self._torch = None

    def cupy_on(self, device):
        """CuPy for a simt CUDA device (the same index), else None."""
        if self.cp is None or device.backend != "cuda" or device.index >= self.cuda_count:
            return None
        self.cp.cuda.Device(device.index).use()
        return self.cp

    def torch(self):
        if self._torch is None:
            try:
                import torch
                self._torch = torch if torch.cuda.is_available() else False
                self.torch_note = None if self._torch else "no CUDA device for PyTorch"
            except Exception as error:
                self._torch = False
                self.torch_note = f"not installed ({type(error).__name__}: {error})"
        return self._torch or None


def header(peers, devices):
    print(f"python {sys.version.split()[0]}; simt {simt.__version__}; numpy {np.__version__}")
    cupy = peers.cp.__version__ if peers.cp is not None else ""
    if peers.cupy_note:
        cupy = f"{cupy} ({peers.cupy_note})" if cupy else peers.cupy_note
    print(f"cupy: {cupy}; "
          f"numba: {peers.numba_version or 'not installed'}; "
          f"numba-cuda: {peers.numba_cuda_version or 'not installed'}; "
          f"torch: {peers.torch_version or 'not installed'}")
    for d in devices:
        memory = f", {d.total_memory / 2**30:.0f} GiB" if getattr(d, "total_memory", 0) else ""
        print(f"device {d.id}: {d.name.strip()} ({d.backend}{memory})")
    missing = [b for b in ("cuda", "cpu") if not any(d.backend == b for d in simt.devices())]
    for backend in missing:
        print(f"  (no {backend} device in simt: its sections are skipped)")


# =========================================================================================
# 1. Host <-> device bandwidth, pinned and pageable
# =========================================================================================


def bandwidth(device, peers, sizes, quick):
    cp = peers.cupy_on(device)
    print(f"\n== 1. copy bandwidth on {device.id} ({device.name.strip()}): GB/s from events "
          "around the copy on a stream, median; sides in turns; ratio > 1: simt faster")
    if cp is None:
        why = peers.cupy_note if peers.cupy_note else "CuPy runs on CUDA devices only"
        print(f"   (cupy skipped: {why})")
    if device.backend == "opencl":
        print("   (OpenCL: pinned_empty is ordinary host memory and copies wait, as documented)")
    cols = ["simt"] + (["cupy"] if cp is not None else [])
    head = (f"{'size':<8} {'copy':<4} {'host memory':<16}" +
            "".join(f"{c + ' GB/s':>11}" for c in cols) +
            (f" {'cupy/simt':>9}" if cp is not None else "") + f" {'spread':>7}" +
            "".join(f"{c + ' wall':>11}" for c in cols) + "  check")
    print(head)
    errors = {}
    for nbytes in sizes:
        n = nbytes // 4
        repeats = (20 if nbytes <= MiB else 10 if nbytes <= 16 * MiB else 5) if quick else \
            (100 if nbytes <= MiB else 40 if nbytes <= 16 * MiB else 10)
        sides, check = {}, {}
        src = np.random.default_rng(0).random(n, dtype=np.float32)
        # simt
        stream = simt.Stream(device)
        e0, e1 = simt.Event(device), simt.Event(device)
        host = {"pinned": (simt.pinned_empty((n,), np.float32, device=device),
                           simt.pinned_empty((n,), np.float32, device=device)),
                "pageable": (np.empty(n, np.float32), np.empty(n, np.float32))}
        for h_in, h_out in host.values():
            h_in[:] = src
            h_out[:] = np.nan
        a = simt.empty(n, np.float32, device=device)

        def simt_sample(run):
            def sample():
                t = time.perf_counter()
                e0.record(stream)
                run()
                e1.record(stream)
                e1.synchronize()
                return simt.Event.elapsed_time(e0, e1), (time.perf_counter() - t) * 1e3
            return sample

        for kind, (h_in, h_out) in host.items():
            sides[("simt", "H2D", kind)] = simt_sample(lambda h=h_in, a=a: a.set(h, stream=stream))
            sides[("simt", "D2H", kind)] = simt_sample(
                lambda h=h_out, a=a: a.get(stream=stream, out=h))
        try:
            for kind, (h_in, h_out) in host.items():
                a.set(h_in, stream=stream)
                a.get(stream=stream, out=h_out)
                stream.synchronize()
                check[("simt", kind)] = bool(np.array_equal(h_out, src))
                h_out[:] = np.nan
        except Exception as error:
            errors["simt check"] = f"{type(error).__name__}: {error}"
        # cupy
        if cp is not None:
            cstream = cp.cuda.Stream()
            c0, c1 = cp.cuda.Event(), cp.cuda.Event()
            chost = {"pinned": (peers.cupyx.empty_pinned((n,), np.float32),
                                peers.cupyx.empty_pinned((n,), np.float32)),
                     "pageable": (np.empty(n, np.float32), np.empty(n, np.float32))}
            for h_in, h_out in chost.values():
                h_in[:] = src
                h_out[:] = np.nan
            ca = cp.empty(n, cp.float32)

            def cupy_get(h):
                try:  # CuPy >= 13: non-blocking, as simt's get on a stream
                    ca.get(stream=cstream, out=h, blocking=False)
                except TypeError:
                    ca.get(stream=cstream, out=h)

            def cupy_sample(run):
                def sample():
                    t = time.perf_counter()
                    c0.record(cstream)
                    run()
                    c1.record(cstream)
                    c1.synchronize()
                    return cp.cuda.get_elapsed_time(c0, c1), (time.perf_counter() - t) * 1e3
                return sample

            for kind, (h_in, h_out) in chost.items():
                sides[("cupy", "H2D", kind)] = cupy_sample(
                    lambda h=h_in: ca.set(h, stream=cstream))
                sides[("cupy", "D2H", kind)] = cupy_sample(lambda h=h_out: cupy_get(h))
            try:
                for kind, (h_in, h_out) in chost.items():
                    ca.set(h_in, stream=cstream)
                    cupy_get(h_out)
                    cstream.synchronize()
                    check[("cupy", kind)] = bool(np.array_equal(h_out, src))
                    h_out[:] = np.nan
            except Exception as error:
                errors["cupy check"] = f"{type(error).__name__}: {error}"

        samples = take_turns(sides, repeats, errors)
        for direction in ("H2D", "D2H"):
            ms = {}
            for kind in ("pinned", "pageable"):
                line = f"{size_label(nbytes):<8} {direction:<4} {kind:<16}"
                spreads, walls = [], []
                for c in cols:
                    s = samples.get((c, direction, kind))
                    if s:
                        med, spread = summarize(column(s, 0))
                        wall, _ = summarize(column(s, 1))
                        ms[(c, kind)] = med
                        spreads.append(spread)
                        line += fmt(nbytes / med / 1e6, 11, 1)
                        walls.append(fmt(nbytes / wall / 1e6, 11, 1))
                    else:
                        line += fmt(None, 11)
                        walls.append(fmt(None, 11))
                if cp is not None:
                    both = ("cupy", kind) in ms and ("simt", kind) in ms
                    line += " " + fmt(ms[("cupy", kind)] / ms[("simt", kind)] if both else None, 9)
                line += " " + fmt_spread(spreads) + "".join(walls)
                oks = [("ok" if check[(c, kind)] else "FAIL") for c in cols if (c, kind) in check]
                print(line + "  " + "/".join(oks))
            line = f"{'':<8} {direction:<4} {'pinned/pageable':<16}"
            for c in cols:
                both = (c, "pinned") in ms and (c, "pageable") in ms
                speedup = ms[(c, "pageable")] / ms[(c, "pinned")] if both else None
                line += (f"{fmt(speedup, 10)}x" if speedup is not None else fmt(None, 11))
            print(line)
        del a, host, sides, samples
        if cp is not None:
            del ca, chost
            cp.get_default_memory_pool().free_all_blocks()
            cp.get_default_pinned_memory_pool().free_all_blocks()
        simt.free_cached_memory(device)
    for label, error in errors.items():
        print(f"   error: {' '.join(label) if isinstance(label, tuple) else label}: {error}")


# =========================================================================================
# 2. Allocator cost
# =========================================================================================


def alloc(device, peers, quick):
    batches, iters = (5, 200) if quick else (20, 1000)
    print(f"\n== 2. allocation on {device.id}: `a = empty(n, float32); del a`, µs per iteration "
          f"(perf_counter), median of {batches} batches of {iters}; sides in turns; "
          "ratio > 1: simt faster")
    peer_fns = {}
    if device.backend == "cpu":
        peer_fns["numpy"] = lambda n: np.empty(n, np.float32)
    cp = peers.cupy_on(device)
    if cp is not None:
        peer_fns["cupy"] = lambda n: cp.empty(n, cp.float32)
    elif device.backend == "cuda":
        print(f"   (cupy skipped: {peers.cupy_note or 'not installed'})")
    if device.backend == "cuda":
        torch = peers.torch()
        if torch is not None:
            tdev = torch.device("cuda", device.index)
            peer_fns["torch"] = lambda n: torch.empty(n, dtype=torch.float32, device=tdev)
        else:
            print(f"   (torch skipped: {peers.torch_note})")
    if device.backend == "opencl":
        print("   (no peer on OpenCL: simt alone)")
    labels = ["simt"] + list(peer_fns)
    head = f"{'elements':>10} {'bytes':>9}" + "".join(f"{lb + ' µs':>11}" for lb in labels)
    head += "".join(f"{lb + '/simt':>12}" for lb in peer_fns) + f" {'spread':>7}"
    print(head)
    errors = {}
    for n in (1000, 1 << 20, 1 << 26):
        def batch(make):
            def sample():
                t = time.perf_counter()
                for _ in range(iters):
                    a = make()
                    del a
                return (time.perf_counter() - t) / iters * 1e6
            return sample

        sides = {"simt": batch(lambda: simt.empty(n, np.float32, device=device))}
        for label, fn in peer_fns.items():
            sides[label] = batch(lambda fn=fn: fn(n))
        samples = take_turns(sides, batches, errors, warmup=1)
        med = {lb: summarize(s) for lb, s in samples.items()}
        nbytes = n * 4
        line = f"{n:>10} {size_label(nbytes):>9}"
        line += "".join(fmt(med[lb][0] if lb in med else None, 11, 3) for lb in labels)
        line += "".join(fmt(med[lb][0] / med["simt"][0] if lb in med and "simt" in med else None,
                            12) for lb in peer_fns)
        line += " " + fmt_spread([s for _, s in med.values()])
        print(line)
    device.synchronize()
    stats = simt.memory_stats(device)
    print(f"   simt pool after: {stats['held'] / MiB:.0f} MiB held, peak in use "
          f"{stats['peak_in_use'] / MiB:.0f} MiB")
    simt.free_cached_memory(device)
    if cp is not None:
        cp.get_default_memory_pool().free_all_blocks()
    for label, error in errors.items():
        print(f"   error: {label}: {error}")


# =========================================================================================
# 3. Warm-start first launch
# =========================================================================================


class Target:
    """One side of section 3 on one device, with its own cache folders."""

    def __init__(self, side, device_id, root):
        self.side, self.device_id = side, device_id
        self.dir = os.path.join(root, f"{side}-{device_id.replace(':', '')}")
        self.env = dict(os.environ)
        for var, sub in (("SIMT_CACHE_DIR", "simt"), ("CUPY_CACHE_DIR", "cupy"),
                         ("NUMBA_CACHE_DIR", "numba"), ("CUDA_CACHE_PATH", "nv"),
                         ("POCL_CACHE_DIR", "pocl")):
            path = os.path.join(self.dir, sub)
            os.makedirs(path, exist_ok=True)
            self.env[var] = path
        self.env.pop("CUPY_CACHE_IN_MEMORY", None)
        self.env.pop("NUMBA_DISABLE_JIT", None)
        self.cold = None
        self.warm = []
        self.error = None

    @property
    def label(self):
        return f"{self.side} {self.device_id}"

    def command(self, numba_dir):
        if self.side == "baseline":
            return [sys.executable, "-c", "import numpy"]
        args = [sys.executable, CHILD, self.side, self.device_id]
        return args + ([numba_dir] if self.side == "numba-cuda" else [])

    def run(self, numba_dir):
        if self.error:
            return
        t = time.perf_counter()
        try:
            out = subprocess.run(self.command(numba_dir), capture_output=True, text=True,
                                 env=self.env, timeout=600)
        except Exception as error:
            self.error = f"{type(error).__name__}: {error}"
            return
        wall = (time.perf_counter() - t) * 1e3
        if self.side == "baseline":
            result = {"process_ms": wall} if out.returncode == 0 else None
        else:
            result = None
            for line in reversed(out.stdout.strip().splitlines()):
                try:
                    result = json.loads(line)
                    break
                except ValueError:
                    continue
        if out.returncode != 0 or result is None:
            tail = (out.stderr.strip().splitlines() or ["(no output)"])[-1]
            self.error = f"exit {out.returncode}: {tail}"
            return
        result["process_ms"] = wall
        if self.cold is None:
            self.cold = result
        else:
            self.warm.append(result)

    def median(self, key):
        values = [r[key] for r in self.warm if key in r]
        return summarize(values) if values else (None, None)


def warm_start(devices, peers, runs):
    print(f"\n== 3. first launch in a fresh process (saxpy, 2^16 float32): ms by perf_counter; "
          f"cold = empty disk caches, warm = median of {runs} runs with the caches filled; "
          "processes in turns; ratio > 1: simt faster")
    root = tempfile.mkdtemp(prefix="simt-runtime-bench-")
    try:
        numba_dir = os.path.join(root, "numba_module")
        os.makedirs(numba_dir)
        with open(os.path.join(numba_dir, "numba_saxpy_module.py"), "w") as f:
            f.write(warm_start_child.NUMBA_MODULE)
        targets = [Target("baseline", "python", root)]
        for d in devices:
            targets.append(Target("simt", d.id, root))
            if d.backend != "cuda":
                continue
            if peers.cupy_on(d) is not None:
                targets += [Target("cupy-elementwise", d.id, root), Target("cupy-raw", d.id, root)]
            else:
                print(f"   (cupy on {d.id} skipped: {peers.cupy_note or 'not installed'})")
            if peers.numba_note is None:
                targets.append(Target("numba-cuda", d.id, root))
            else:
                print(f"   (numba-cuda on {d.id} skipped: numba {peers.numba_note})")
        if not any(d.backend == "cuda" for d in devices):
            print("   (no CUDA device: the CuPy and numba-cuda peers are skipped)")
        for t in targets:          # cold, which fills the caches
            t.run(numba_dir)
        for _ in range(runs):      # warm, in turns
            for t in targets:
                t.run(numba_dir)
        print_warm(targets)
    finally:
        shutil.rmtree(root, ignore_errors=True)


def print_warm(targets):
    """The table of section 3."""
    print(f"{'side':<30} {'import':>8} {'setup':>8} {'cold 1st':>9} {'warm 1st':>9} "
          f"{'spread':>7} {'2nd':>7} {'process':>8} {'1st/simt':>9} {'imp+1st/simt':>13}  "
          "check, target")
    simt_by_device = {t.device_id: t for t in targets if t.side == "simt"}
    for t in targets:
        if t.error or t.cold is None:
            continue
        if t.side == "baseline":
            name = 'python -c "import numpy"'
            print(f"{name:<30} {'':>8} {'':>8} {'':>9} {'':>9} "
                  f"{'':>7} {'':>7} {fmt(t.median('process_ms')[0], 8, 1)}")
            continue
        imp, first, spread = t.median("import_ms")[0], *t.median("first_ms")
        line = (f"{t.label:<30} {fmt(imp, 8, 1)} {fmt(t.median('setup_ms')[0], 8, 1)} "
                f"{fmt(t.cold['first_ms'], 9, 1)} {fmt(first, 9, 2)} "
                f"{fmt_spread([spread])} {fmt(t.median('second_ms')[0], 7, 3)} "
                f"{fmt(t.median('process_ms')[0], 8, 1)}")
        base = simt_by_device.get(t.device_id)
        if t.side != "simt" and base is not None and base.warm and first is not None:
            b_imp, b_first = base.median("import_ms")[0], base.median("first_ms")[0]
            line += f" {fmt(first / b_first, 9)} {fmt((imp + first) / (b_imp + b_first), 13)}"
        else:
            line += f" {'':>9} {'':>13}"
        oks = [t.cold.get("ok")] + [r.get("ok") for r in t.warm]
        line += "  " + ("ok" if all(oks) else "FAIL")
        if (t.side == "simt" and first is not None
                and t.device_id.split(":")[0] in ("cpu", "cuda")):
            verdict = "met" if first < WARM_TARGET_MS else "NOT met"
            line += f", < {WARM_TARGET_MS:g} ms: {verdict}"
        print(line)
    print("import: the library's import; setup: kernel object + arrays + synchronize; "
          "1st/2nd: a launch + device synchronize;\nprocess: the whole child process, "
          "interpreter start to exit, seen from the parent (warm median).")
    for t in targets:
        if t.error:
            print(f"   error: {t.label}: {t.error}")


# =========================================================================================


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--quick", action="store_true",
                        help="smaller sizes, fewer samples and runs (a smoke run)")
    parser.add_argument("--sections", default="bandwidth,alloc,warm",
                        help="comma-separated subset of bandwidth,alloc,warm")
    parser.add_argument("--device", action="append", default=None,
                        help="a simt device id (repeatable); default: every device")
    parser.add_argument("--warm-runs", type=int, default=None,
                        help="warm processes per side in section 3 (default 7; --quick 3)")
    args = parser.parse_args()
    sections = {s.strip() for s in args.sections.split(",") if s.strip()}
    unknown = sections - {"bandwidth", "alloc", "warm"}
    if unknown:
        parser.error(f"unknown sections {sorted(unknown)}")
    devices = simt.devices()
    if args.device:
        devices = [simt.get_device(d) for d in args.device]
    peers = Peers()
    header(peers, devices)
    sizes = [1 * MiB, 16 * MiB] if args.quick else [1 * MiB, 16 * MiB, 256 * MiB]
    for device in devices:
        if "bandwidth" in sections:
            try:
                bandwidth(device, peers, sizes, args.quick)
            except Exception as error:
                print(f"   bandwidth on {device.id} failed: {type(error).__name__}: {error}")
        if "alloc" in sections:
            try:
                alloc(device, peers, args.quick)
            except Exception as error:
                print(f"   allocation on {device.id} failed: {type(error).__name__}: {error}")
    if "warm" in sections:
        runs = args.warm_runs or (3 if args.quick else 7)
        warm_start(devices, peers, runs)


if __name__ == "__main__":
    main()
