#!/usr/bin/env python3
"""Writes tests/data/histogram/: small typed images (raw little-endian samples, interleaved)
and numpy's histograms and statistics of them, which the ranged histogram is checked
against exactly (src/ops/histogram/, tests/histogram_refs.rs).

Channels: grey images have one; RGB(A) images R, G, B and luma, the luma being
Y = (0.2126 R + 0.7152 G) + 0.0722 B in float32 (each operation rounded), rounded half away
from zero for 8 and 16-bit images. Default ranges: 8-bit [0, 256]; others the finite data's
min and max over all channels. Counts are numpy.histogram's on the float64 values; below,
above and NaN counted apart; statistics over the finite values (std with ddof=0, lower
median = sorted[(n - 1) // 2]). Bin edges (all up to 256 bins, a sample beyond) are written as
[index, f64 bit pattern] (exact).
Deterministic (fixed seeds); run from the repository root:

    python3 scripts/fidelity/make_histogram_refs.py
"""

import json
import struct
from pathlib import Path

import numpy as np
from PIL import Image

ROOT = Path(__file__).resolve().parents[2]
OUT = ROOT / "tests" / "data" / "histogram"
DTYPES = {"8": np.uint8, "16": np.uint16, "32f": np.float32}


def bits(v):
    return struct.unpack("<Q", struct.pack("<d", float(v)))[0]


def channels_of(a):
    """The histogram channels of an (h, w, c) array, as float64 vectors."""
    if a.shape[2] == 1:
        return [a[:, :, 0].ravel().astype(np.float64)]
    f = a[:, :, :3].astype(np.float32)
    y = (np.float32(0.2126) * f[:, :, 0] + np.float32(0.7152) * f[:, :, 1]) \
        + np.float32(0.0722) * f[:, :, 2]
    y = y.astype(np.float64)
    if a.dtype != np.float32:
        y = np.clip(np.floor(y + 0.5), 0, np.iinfo(a.dtype).max)
    return [a[:, :, c].ravel().astype(np.float64) for c in range(3)] + [y.ravel()]


def stats(v):
    v = v[np.isfinite(v)]
    if v.size == 0:
        return None
    s = np.sort(v)
    return {"count": int(v.size), "min": float(s[0]), "max": float(s[-1]),
            "mean": float(np.mean(v)), "std_dev": float(np.std(v)),
            "median": float(s[(v.size - 1) // 2])}


def case(depth, chans, bins, rng):
    if rng is None:
        if depth == "8":
            rng = (0.0, 256.0)
        else:
            finite = np.concatenate([c[np.isfinite(c)] for c in chans])
            rng = (float(finite.min()), float(finite.max())) if finite.size else (0.0, 1.0)
    out = []
    edges = None
    for c in chans:
        inside = c[~np.isnan(c)]
        counts, edges = np.histogram(inside, bins=bins, range=rng)
        lo, hi = edges[0], edges[-1]
        nz = np.nonzero(counts)[0]
        out.append({"counts": [[int(i), int(counts[i])] for i in nz],
                    "below": int(np.sum(inside < lo)), "above": int(np.sum(inside > hi)),
                    "nan": int(np.sum(np.isnan(c))), "stats": stats(c)})
    # Every edge of up to 256 bins, else every 997th and the last three.
    picks = sorted(set(range(0, bins + 1, 1 if bins <= 256 else 997)) | {bins - 2, bins - 1, bins})
    return {"bins": bins, "range": list(rng),
            "edges_bits": [[i, bits(edges[i])] for i in picks if i >= 0],
            "channels": out}


def write_image(name, a, cases):
    depth = {np.dtype(np.uint8): "8", np.dtype(np.uint16): "16",
             np.dtype(np.float32): "32f"}[a.dtype]
    (OUT / f"{name}.raw").write_bytes(a.astype(a.dtype.newbyteorder("<")).tobytes())
    chans = channels_of(a)
    return {"name": name, "depth": depth, "width": a.shape[1], "height": a.shape[0],
            "channels": a.shape[2],
            "cases": [case(depth, chans, b, r) for b, r in cases]}


def images():
    rng = np.random.default_rng(20261128)
    photo = np.asarray(Image.open(ROOT / "assets" / "chelsea.png").convert("RGBA"))
    rgba8 = np.ascontiguousarray(photo[100:148, 200:264])
    grey8 = rng.integers(0, 256, (23, 31, 1), dtype=np.uint8)
    # 16-bit: the photo widened (v · 257) with noise, and grey values on round edges.
    wide = photo[40:70, 300:340, :3].astype(np.int64) * 257 + rng.integers(-300, 300, (30, 40, 3))
    rgb16 = np.clip(wide, 0, 65535).astype(np.uint16)
    grey16 = (rng.integers(0, 13, (17, 19, 1)) * 100).astype(np.uint16)
    grey16[0, :3, 0] = [0, 65535, 1000]
    # Float: normal values, values on edges, outside any range, NaN and ±inf.
    greyf = rng.normal(0.3, 0.6, (40, 50, 1)).astype(np.float32)
    planted = np.float32([0.0, 0.1, 0.25, 0.5, 1.0, -0.5, 0.5, -3.0, 3.0, np.nan, np.inf,
                          -np.inf, np.nan, 7.5, -7.5])
    greyf.ravel()[:planted.size] = planted
    rgbf = rng.random((24, 32, 3)).astype(np.float32)
    rgbf[0, 0, 1] = np.nan
    rgbf[1, 1, :] = [1.0, 1.0, 1.0]
    rgbf[2, 2, 0] = -0.25
    return [
        ("rgba8_photo", rgba8, [(256, None), (10, (0.0, 255.0)), (7, (50.5, 200.25)),
                                (1, None), (65536, None)]),
        ("grey8_random", grey8, [(256, None), (3, (10.0, 10.0)), (100, (0.0, 99.0))]),
        ("rgb16_photo", rgb16, [(256, None), (1000, (0.0, 65535.0)),
                                (65536, (0.0, 65536.0)), (13, (1000.0, 40000.0))]),
        ("grey16_edges", grey16, [(256, None), (10, (0.0, 1000.0)), (3, (100.0, 700.0))]),
        ("greyf_planted", greyf, [(256, None), (10, (0.0, 1.0)), (4, (-0.5, 0.5)),
                                  (65536, (-3.0, 3.0)), (33, (0.1, 0.1))]),
        ("rgbf_random", rgbf, [(256, None), (50, (0.0, 1.0)), (7, (0.2, 0.9))]),
    ]


def main():
    OUT.mkdir(parents=True, exist_ok=True)
    manifest = [write_image(n, a, c) for n, a, c in images()]
    (OUT / "manifest.json").write_text(json.dumps(manifest, separators=(",", ":")) + "\n")


if __name__ == "__main__":
    main()
