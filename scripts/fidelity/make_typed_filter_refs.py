#!/usr/bin/env python3
"""Writes tests/data/typed_filters/: small 16-bit and float inputs and OpenCV's outputs of
the filters that OpenCV computes the same way, which src/filters/typed_opencv_tests.rs
compares the generic CPU references with.

Inputs (odd sizes, never all zero), each in grey and RGB, U16 and F32:
- "photo": a crop of assets/chelsea.png widened to 16 bits (v · 257) plus uniform noise of
  ±0.5 of an 8-bit level (F32: the same divided by 65535);
- "random": uniform samples (F32: in [-0.25, 1.25], outside 0..1 on purpose).

Outputs, every border BORDER_REPLICATE (the filters' clamp-to-edge):
- box:radius=R: cv2.blur with a (2R+1)² window.
- gaussian:sigma=S,radius=R: cv2.sepFilter2D in f64 with the filter's own weights
  (gaussian_weights: exp(-x²/2S²) for |x| ≤ R in f64, normalised, stored as f32).
- median:radius=R (R = 1, 2): cv2.medianBlur with ksize 3 or 5 (16U and 32F).
- sobel:scale=S: the filter's luma Y = (0.2126 R + 0.7152 G) + 0.0722 B in float32
  (grey: R = G = B = v), then S · cv2.magnitude(cv2.Sobel(Y, dx=1), cv2.Sobel(Y, dy=1))
  with ksize 3, in every colour channel.
- transpose: cv2.transpose.
- threshold:level=L: cv2.threshold(Y, t, full, THRESH_BINARY) (src > t) with t the largest
  float32 below the filter's bound: Y ≥ L·257 − 0.5 in U16 (round(Y) ≥ L·257), Y ≥ L/255 in
  F32.
Results in float are rounded half away from zero and clipped for U16, kept for F32.

Files: <input>.bin and <input>.<op>.bin, raw little-endian samples (uint16 or float32,
interleaved, row-major), described in manifest.json. Deterministic; run from anywhere:

    python3 scripts/fidelity/make_typed_filter_refs.py
"""

import json
from pathlib import Path

import cv2
import numpy as np
from PIL import Image

ROOT = Path(__file__).resolve().parents[2]
OUT = ROOT / "tests" / "data" / "typed_filters"
REP = cv2.BORDER_REPLICATE


def gaussian_weights(sigma, radius):
    s = float(np.float32(sigma))
    x = np.arange(-radius, radius + 1, dtype=np.float64)
    raw = np.exp(-(x * x) / (2.0 * s * s))
    return (raw / raw.sum()).astype(np.float32)


def luma(img):
    img = img.astype(np.float32)
    if img.ndim == 2:
        r = g = b = img
    else:
        r, g, b = img[..., 0], img[..., 1], img[..., 2]
    return (np.float32(0.2126) * r + np.float32(0.7152) * g) + np.float32(0.0722) * b


def store(values, dtype):
    """A float result stored as the filter stores it."""
    if dtype == np.uint16:
        return np.clip(np.floor(np.asarray(values, np.float64) + 0.5), 0, 65535).astype(np.uint16)
    return np.asarray(values, np.float32)


def per_channel(img, fn):
    if img.ndim == 2:
        return fn(img)
    return np.stack([fn(np.ascontiguousarray(img[..., c])) for c in range(img.shape[2])], axis=-1)


def full(dtype):
    return 65535.0 if dtype == np.uint16 else 1.0


def on_colour(img, grey_out):
    """A grey result written to every colour channel."""
    return grey_out if img.ndim == 2 else np.repeat(grey_out[..., None], img.shape[2], axis=-1)


def ops(img):
    dtype = img.dtype.type
    out = {}
    for r in (1, 4):
        out[f"box:radius={r}"] = cv2.blur(img, (2 * r + 1, 2 * r + 1), borderType=REP)
    for sigma, radius in ((1.5, 5), (3.0, 4)):
        k = gaussian_weights(sigma, radius).astype(np.float64)
        blurred = per_channel(img, lambda p: cv2.sepFilter2D(
            p.astype(np.float64), cv2.CV_64F, k, k, borderType=REP))
        out[f"gaussian:sigma={sigma},radius={radius}"] = store(blurred, dtype)
    for r in (1, 2):
        out[f"median:radius={r}"] = per_channel(img, lambda p: cv2.medianBlur(p, 2 * r + 1))
    y = luma(img)
    gx = cv2.Sobel(y, cv2.CV_32F, 1, 0, ksize=3, borderType=REP)
    gy = cv2.Sobel(y, cv2.CV_32F, 0, 1, ksize=3, borderType=REP)
    for scale in (1.0, 0.25):
        mag = np.float32(scale) * cv2.magnitude(gx, gy)
        out[f"sobel:scale={scale}"] = on_colour(img, store(mag, dtype))
    out["transpose"] = cv2.transpose(img) if img.ndim == 2 else np.ascontiguousarray(
        np.transpose(img, (1, 0, 2)))
    for level in (100, 200):
        bound = np.float32(level * 257 - 0.5) if dtype == np.uint16 else (
            np.float32(level) / np.float32(255))
        t = np.nextafter(bound, np.float32(-np.inf))
        _, white = cv2.threshold(y, float(t), full(dtype), cv2.THRESH_BINARY)
        out[f"threshold:level={level}"] = on_colour(img, white.astype(dtype))
    return {spec: np.ascontiguousarray(v.astype(dtype)) for spec, v in out.items()}


def inputs(rng):
    photo = np.asarray(Image.open(ROOT / "assets" / "chelsea.png").convert("RGB"))
    crop = photo[131:131 + 23, 207:207 + 31].astype(np.float64)
    wide = np.clip(crop * 257 + rng.uniform(-128, 128, crop.shape), 0, 65535)
    grey = luma(crop).astype(np.float64) * 257 + rng.uniform(-128, 128, crop.shape[:2])
    grey = np.clip(grey, 0, 65535)
    out = {}
    for layout, v in (("grey", grey), ("rgb", wide)):
        out[f"photo-{layout}-u16"] = np.rint(v).astype(np.uint16)
        out[f"photo-{layout}-f32"] = (v / 65535).astype(np.float32)
    for layout, shape in (("grey", (17, 19)), ("rgb", (17, 19, 3))):
        out[f"random-{layout}-u16"] = rng.integers(0, 65536, shape).astype(np.uint16)
        out[f"random-{layout}-f32"] = rng.uniform(-0.25, 1.25, shape).astype(np.float32)
    return out


def main():
    rng = np.random.default_rng(20261128)
    OUT.mkdir(parents=True, exist_ok=True)
    cases = []
    for name, img in inputs(rng).items():
        assert img.any(), name
        (OUT / f"{name}.bin").write_bytes(img.astype(img.dtype.newbyteorder("<")).tobytes())
        outputs = {}
        for spec, result in ops(img).items():
            file = f"{name}.{spec.replace(':', '_').replace('=', '').replace(',', '_')}.bin"
            (OUT / file).write_bytes(result.astype(result.dtype.newbyteorder("<")).tobytes())
            outputs[spec] = file
        h, w = img.shape[:2]
        cases.append({
            "input": f"{name}.bin",
            "type": "u16" if img.dtype == np.uint16 else "f32",
            "width": w,
            "height": h,
            "channels": 1 if img.ndim == 2 else img.shape[2],
            "outputs": outputs,
        })
    doc = {"opencv": cv2.__version__, "numpy": np.__version__, "cases": cases}
    (OUT / "manifest.json").write_text(json.dumps(doc, indent=1) + "\n")
    total = sum(p.stat().st_size for p in OUT.iterdir())
    print(f"{OUT.relative_to(ROOT)}: {len(cases)} inputs, {total} bytes")


if __name__ == "__main__":
    main()
