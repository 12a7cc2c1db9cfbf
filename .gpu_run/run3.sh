#!/usr/bin/env bash
set -uo pipefail
for i in 1 2 3 4 5 6; do
  python3 .gpu_run/launch_ab.py new
  PYTHONPATH=/tmp/base_site python3 .gpu_run/launch_ab.py base
done 2>&1 | tee "$OUT/launch_ab.txt"
python3 - "$OUT/launch_ab.txt" <<'PY'
import statistics, sys
rows = {}
for line in open(sys.argv[1]):
    parts = line.split()
    if len(parts) == 4 and parts[0] in ("new", "base"):
        rows.setdefault(parts[0], []).append([float(v) for v in parts[1:]])
names = ["0 args", "4 args", "4 args incl. kernel[1, 1]"]
print(f"{'us, median of 6 processes':<28} {'base':>7} {'new':>7} {'new/base':>9}")
for k, name in enumerate(names):
    b = statistics.median(r[k] for r in rows["base"]); n = statistics.median(r[k] for r in rows["new"])
    print(f"{name:<28} {b:7.3f} {n:7.3f} {n / b:9.3f}")
PY
