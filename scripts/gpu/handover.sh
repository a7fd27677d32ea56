#!/usr/bin/env bash
# Issue 10's intermittent hand-over: the built-in bench at 8K run REPEAT times (default 4),
# each in a process of its own, printing every case whose GPU-side hand-over ("interop in"
# or "interop out") passed 0.05 ms, and each run's frame case. Usage: bash
# scripts/gpu/handover.sh path/to/cudalens (on the device, from scripts/gpu/run.sh; JSON
# under $OUT/handover/).
set -u
bin=$1
mkdir -p "$OUT/handover"
for i in $(seq 1 "${REPEAT:-4}"); do
    json="$OUT/handover/$i.json"
    "$bin" bench --backend cuda --size 7680x4320 --runs 30 --json "$json" >/dev/null 2>"$OUT/handover/$i.err" ||
        echo "run $i failed: $(cat "$OUT/handover/$i.err")"
    python3 - "$json" "$i" <<'PY'
import json, sys
path, run = sys.argv[1:]
cases = json.load(open(path))["cases"]
slow = []
for name, case in cases.items():
    st = case["stages_ms"]
    if st.get("interop in", 0) > 0.05 or st.get("interop out", 0) > 0.05:
        slow.append(f"{name} (in {st.get('interop in', 0):.3f}, out {st.get('interop out', 0):.3f})")
frame = [c for n, c in cases.items() if "→" in n][0]["stages_ms"]
print(f"run {run}: frame case in {frame['interop in']:.3f} out {frame['interop out']:.3f}; "
      f"cases over 0.05 ms: {', '.join(slow) if slow else 'none'} (of {len(cases)})")
PY
done
