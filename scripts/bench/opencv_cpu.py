#!/usr/bin/env python3
"""cudalens CPU backend against OpenCV 4 on the same operations, sizes and thread count.

Setup (once):
    python3 -m venv /opt/cudalens-opencv-venv
    /opt/cudalens-opencv-venv/bin/pip install opencv-python-headless numpy
Build cudalens (cargo build --release), then:
    /opt/cudalens-opencv-venv/bin/python scripts/bench/opencv_cpu.py \\
        --cudalens target/release/cudalens --size 1920x1080 --threads 2 --runs 40 --rounds 3 \
        [--type u8|u16|f32]

Each round runs `cudalens bench --backend cpu --json` (RAYON_NUM_THREADS=THREADS) and then
OpenCV (cv2.setNumThreads(THREADS)) on a random RGBA image of the same size and sample type
(8-bit; 16-bit as v·257; float as v/255: the values cudalens converts to), back to back,
so that both see the same machine load; the samples of all rounds are pooled and the
medians printed as a Markdown table (cudalens, OpenCV, ratio). Both sides allocate their
output on every call. OpenCV's borders are BORDER_REPLICATE, the cudalens contract.
"""

import argparse
import json
import os
import statistics
import subprocess
import sys
import tempfile
import time

import cv2
import numpy as np


def opencv_cases():
    """The OpenCV equivalent of each `cudalens bench --backend cpu` op id."""
    rep = cv2.BORDER_REPLICATE

    def sobel(img):
        grey = cv2.cvtColor(img, cv2.COLOR_RGBA2GRAY)
        gx = cv2.Sobel(grey, cv2.CV_32F, 1, 0, ksize=3, borderType=rep)
        gy = cv2.Sobel(grey, cv2.CV_32F, 0, 1, ksize=3, borderType=rep)
        return cv2.magnitude(gx, gy)

    def histogram(img):
        # 256 bins over the 8-bit range, or over the data's range (as cudalens's default).
        lo, hi = (0, 256) if img.dtype == np.uint8 else (float(img.min()), float(img.max()))
        hists = [cv2.calcHist([img], [c], None, [256], [lo, hi]) for c in range(3)]
        grey = cv2.cvtColor(img, cv2.COLOR_RGBA2GRAY)
        hists.append(cv2.calcHist([grey], [0], None, [256], [lo, hi]))
        return hists

    return {
        "box_r5": lambda img: cv2.blur(img, (11, 11), borderType=rep),
        "box_r64": lambda img: cv2.blur(img, (129, 129), borderType=rep),
        "gaussian_s2": lambda img: cv2.GaussianBlur(img, (13, 13), 2.0, borderType=rep),
        "gaussian_s16": lambda img: cv2.GaussianBlur(img, (97, 97), 16.0, borderType=rep),
        "sobel": sobel,
        "transpose": cv2.transpose,
        "median_r1": lambda img: cv2.medianBlur(img, 3),
        "median_r2": lambda img: cv2.medianBlur(img, 5),
        "histogram": histogram,
    }


def time_opencv(fn, img, runs, warm_up=3):
    for _ in range(warm_up):
        fn(img)
    out = []
    for _ in range(runs):
        start = time.perf_counter()
        fn(img)
        out.append((time.perf_counter() - start) * 1e3)
    return out


def run_cudalens(binary, size, runs, threads, sample_type):
    with tempfile.TemporaryDirectory() as tmp:
        path = os.path.join(tmp, "bench.json")
        env = dict(os.environ, RAYON_NUM_THREADS=str(threads))
        cmd = [binary, "bench", "--backend", "cpu", "--size", size, "--runs", str(runs),
               "--type", sample_type, "--json", path]
        subprocess.run(cmd, check=True, env=env, stdout=subprocess.DEVNULL)
        with open(path) as f:
            return json.load(f)


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--cudalens", default="target/release/cudalens")
    ap.add_argument("--size", default="1920x1080")
    ap.add_argument("--threads", type=int, default=2)
    ap.add_argument("--runs", type=int, default=40)
    ap.add_argument("--rounds", type=int, default=3)
    ap.add_argument("--type", default="u8", choices=["u8", "u16", "f32"])
    ap.add_argument("--json", help="also write the pooled samples here")
    args = ap.parse_args()

    cv2.setNumThreads(args.threads)
    w, h = (int(v) for v in args.size.lower().split("x"))
    img = np.random.default_rng(42).integers(0, 256, size=(h, w, 4), dtype=np.uint8)
    if args.type == "u16":
        img = img.astype(np.uint16) * 257
    elif args.type == "f32":
        img = img.astype(np.float32) / 255
    cases = opencv_cases()
    ours, theirs, labels = {}, {}, {}
    for r in range(args.rounds):
        doc = run_cudalens(args.cudalens, args.size, args.runs, args.threads, args.type)
        for op, rec in doc["ops"].items():
            ours.setdefault(op, []).extend(rec["samples_ms"])
            labels[op] = rec["label"]
            if op in cases:
                theirs.setdefault(op, []).extend(time_opencv(cases[op], img, args.runs))
        print(f"round {r + 1}/{args.rounds} done", file=sys.stderr)

    print(f"{w}×{h} RGBA {args.type}, {args.threads} threads, OpenCV {cv2.__version__}, "
          f"{args.rounds} rounds × {args.runs} runs, medians")
    print("| op | cudalens CPU | OpenCV | cudalens / OpenCV |")
    print("|---|---|---|---|")
    for op in sorted(ours, key=lambda o: list(cases).index(o) if o in cases else len(cases)):
        samples = ours[op]
        mine = statistics.median(samples)
        cv = statistics.median(theirs[op]) if op in theirs else float("nan")
        print(f"| {labels[op]} | {mine:.2f} ms | {cv:.2f} ms | {mine / cv:.2f}× |")
    if args.json:
        with open(args.json, "w") as f:
            json.dump({"size": [w, h], "threads": args.threads, "opencv": cv2.__version__,
                       "cudalens_ms": ours, "opencv_ms": theirs}, f)


if __name__ == "__main__":
    main()
