#!/usr/bin/env python3
"""Batch throughput of `cudalens apply DIR -o OUT`: 1920×1080 JPEG in, PNG out.

Setup as for opencv_cpu.py (a venv with opencv-python-headless and numpy), then:
    /opt/cudalens-opencv-venv/bin/python scripts/bench/batch_images.py \\
        --cudalens target/release/cudalens --count 24 --backend cpu --jobs 2

Writes COUNT photo-like JPEGs (tests/data/astronaut.png and coffee.png resized to the
size, each shifted and tinted differently, quality 90) into a temporary folder, runs the
batch `--repeat` times and prints cudalens's summary line (images/s) of each run.
"""

import argparse
import os
import subprocess
import tempfile

import cv2
import numpy as np

HERE = os.path.dirname(os.path.abspath(__file__))
DATA = os.path.join(HERE, "..", "..", "tests", "data")


def make_jpegs(folder, count, w, h):
    sources = [cv2.imread(os.path.join(DATA, n)) for n in ("astronaut.png", "coffee.png")]
    for i in range(count):
        img = cv2.resize(sources[i % 2], (w, h), interpolation=cv2.INTER_CUBIC)
        img = np.roll(img, shift=(i * 37) % w, axis=1)
        tint = np.array([(i * 13) % 40, (i * 7) % 40, (i * 3) % 40], dtype=np.int16)
        img = np.clip(img.astype(np.int16) + tint - 20, 0, 255).astype(np.uint8)
        cv2.imwrite(os.path.join(folder, f"photo{i:03d}.jpg"), img, [cv2.IMWRITE_JPEG_QUALITY, 90])


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--cudalens", default="target/release/cudalens")
    ap.add_argument("--count", type=int, default=24)
    ap.add_argument("--size", default="1920x1080")
    ap.add_argument("--backend", default="cpu")
    ap.add_argument("--jobs", type=int, default=2)
    ap.add_argument("--filter", default="gaussian:sigma=2")
    ap.add_argument("--repeat", type=int, default=3)
    args = ap.parse_args()
    w, h = (int(v) for v in args.size.lower().split("x"))
    with tempfile.TemporaryDirectory() as tmp:
        photos = os.path.join(tmp, "photos")
        os.makedirs(photos)
        make_jpegs(photos, args.count, w, h)
        for r in range(args.repeat):
            out = os.path.join(tmp, f"out{r}")
            cmd = [args.cudalens, "apply", photos, "-o", out, "--format", "png",
                   "--filter", args.filter, "--backend", args.backend, "--jobs", str(args.jobs)]
            done = subprocess.run(cmd, capture_output=True, text=True)
            print(done.stderr.strip())
            if done.returncode != 0:
                raise SystemExit(done.returncode)


if __name__ == "__main__":
    main()
