#!/usr/bin/env python3
# There (the GPU machine), after `bench.sh typed`: the kernel time of every case in each
# typed-4k-*.json under $OUT as one table ($OUT/typed.txt), the JSON files removed (the
# device tool brings back only a few files).
import json, glob, os, sys
out = os.environ.get("OUT", "/tmp")
files = sorted(glob.glob(f"{out}/typed-4k-*.json"))
runs = {os.path.basename(f)[9:-5]: json.load(open(f))["cases"] for f in files}
skip = ("interop", "wall", "bins to host", "histogram")
with open(f"{out}/typed.txt", "w") as t:
    t.write("case | " + " | ".join(runs) + "\n")
    for case in next(iter(runs.values())):
        ms = [sum(v for k, v in r[case]["stages_ms"].items() if not k.startswith(skip)) for r in runs.values()]
        t.write(f"{case} | " + " | ".join(f"{m:.4f}" for m in ms) + "\n")
for f in files:
    os.remove(f)
