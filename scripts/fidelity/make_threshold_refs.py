#!/usr/bin/env python3
"""Writes tests/data/threshold_levels.json: scikit-image's automatic thresholds of the luma
of the repository's photographs and of random luma images, which the threshold filter's
levels are checked against (src/filters/threshold/tests.rs).

The luma is the filter's: Y = (0.2126 R + 0.7152 G) + 0.0722 B in float32, each operation
rounded, then rounded half away from zero to 0..255. scikit-image returns a threshold t
with foreground `image > t`; for integer lumas that is `luma >= floor(t) + 1`, the filter's
level, which is written as "level" next to t. Each entry keeps its 256-bin luma histogram:
the test checks the filter's own histogram of the photographs against it, and computes the
random entries' levels from it. Deterministic (fixed seeds); run from the repository root:

    python3 scripts/fidelity/make_threshold_refs.py
"""

import json
import math
from pathlib import Path

import numpy as np
import skimage
from PIL import Image
from skimage.filters import (threshold_isodata, threshold_mean, threshold_otsu,
                             threshold_triangle)

ROOT = Path(__file__).resolve().parents[2]
OUT = ROOT / "tests" / "data" / "threshold_levels.json"
PHOTOS = ["astronaut.png", "camera.png", "coffee.png", "logo.png"]
METHODS = {
    "otsu": threshold_otsu,
    "isodata": threshold_isodata,
    "mean": threshold_mean,
    "triangle": threshold_triangle,
}


def luma(rgba):
    r, g, b = (rgba[..., c].astype(np.float32) for c in range(3))
    y = (np.float32(0.2126) * r + np.float32(0.7152) * g) + np.float32(0.0722) * b
    return np.clip(np.floor(y.astype(np.float64) + 0.5), 0, 255).astype(np.uint8)


def entry(name, image):
    levels = {}
    for method, fn in METHODS.items():
        t = float(fn(image))
        levels[method] = {"t": t, "level": math.floor(t) + 1}
    hist = np.bincount(image.ravel(), minlength=256)
    return {"name": name, "histogram": hist.tolist(), "levels": levels}


def random_lumas(rng):
    """Random luma images of varied shapes: uniform, one or two Gaussian modes, skewed,
    a narrow range, a few values, two values."""
    n = 20000
    out = []
    for i in range(8):
        out.append(("uniform", rng.integers(0, 256, n)))
        a, b = sorted(rng.normal(128, 60, 2))
        mix = np.where(rng.random(n) < rng.uniform(0.2, 0.8), rng.normal(a, rng.uniform(5, 30), n),
                       rng.normal(b, rng.uniform(5, 30), n))
        out.append(("bimodal", mix))
        out.append(("gaussian", rng.normal(rng.uniform(30, 220), rng.uniform(3, 40), n)))
        out.append(("skewed", rng.exponential(rng.uniform(5, 60), n) + rng.uniform(0, 60)))
        lo = rng.integers(0, 240)
        out.append(("narrow", rng.integers(lo, lo + rng.integers(2, 16), n)))
        out.append(("few values", rng.choice(rng.integers(0, 256, 5), n)))
        out.append(("two values", rng.choice(rng.integers(0, 256, 2), n, p=[0.3, 0.7])))
    return [(f"random {kind} {i}", np.clip(np.rint(v), 0, 255).astype(np.uint8))
            for i, (kind, v) in enumerate(out)]


def main():
    rng = np.random.default_rng(20240517)
    entries = []
    for photo in PHOTOS:
        rgba = np.asarray(Image.open(ROOT / "tests" / "data" / photo).convert("RGBA"))
        entries.append(entry(photo, luma(rgba)))
    for name, image in random_lumas(rng):
        if image.min() == image.max():
            continue
        entries.append(entry(name, image))
    doc = {"scikit-image": skimage.__version__, "entries": entries}
    OUT.write_text(json.dumps(doc, separators=(",", ":")) + "\n")
    print(f"{OUT.relative_to(ROOT)}: {len(entries)} entries")


if __name__ == "__main__":
    main()
