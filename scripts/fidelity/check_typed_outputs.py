#!/usr/bin/env python3
"""The reverse of make_typed_corpus.py: files cudalens writes, read by someone else.
Converts corpus files with `cudalens apply IN -o OUT` (no filter: a plain conversion) and
reads the outputs with tifffile, libpng (imagecodecs), Pillow and OpenEXR, comparing with
the raw values bit for bit. Prints one line per file; exits 1 on any difference.

Run from the repository root after `cargo build`:
    python3 scripts/fidelity/check_typed_outputs.py [path/to/cudalens]
"""

import json
import os
import subprocess
import sys
import tempfile

import imagecodecs
import numpy as np
import OpenEXR
import tifffile
from PIL import Image

T = os.path.join("tests", "data", "typed")
BIN = sys.argv[1] if len(sys.argv) > 1 else os.path.join("target", "debug", "cudalens")


def raw(e):
    dt = {"u8": "<u1", "u16": "<u2", "f32": "<f4"}[e["type"]]
    a = np.fromfile(os.path.join(T, e["raw"]), dtype=dt)
    return a.reshape(e["height"], e["width"], e["channels"]).squeeze()


def read_exr(path):
    with OpenEXR.File(path) as f:
        ch = f.channels()
        if "RGBA" in ch or "RGB" in ch:
            return ch.get("RGBA", ch.get("RGB")).pixels.astype(np.float32)
        if "Y" in ch:
            return ch["Y"].pixels.astype(np.float32)
        return np.dstack([ch[c].pixels for c in "RGBA" if c in ch]).astype(np.float32)


READERS = {
    "tif": ("tifffile", tifffile.imread),
    "png": ("libpng", lambda p: imagecodecs.png_decode(open(p, "rb").read())),
    # Pillow opens 16-bit PGM as 32-bit integers ("I"): the values, narrowed back.
    "pgm": ("Pillow", lambda p: np.asarray(Image.open(p)).astype(np.uint16)),
    "exr": ("OpenEXR", read_exr),
}

CASES = [
    ("tiff_f32_grey_imagej.tif", "tif"),
    ("tiff_f32_rgba_bigtiff.tif", "tif"),
    ("png_u16_rgba.png", "tif"),
    ("exr_half_rgb.exr", "tif"),
    ("tiff_u16_photo.tif", "png"),
    ("pgm_u16.pgm", "png"),
    ("tiff_u16_rgb_lzw.tif", "png"),
    ("png_u16_grey.png", "pgm"),
    ("tiff_f32_rgb_tiled.tif", "exr"),
    ("tiff_f32_grey_imagej.tif", "exr"),
    ("exr_half_rgba.exr", "exr"),
]


def main():
    manifest = {e["file"]: e for e in json.load(open(os.path.join(T, "manifest.json")))}
    bad = 0
    with tempfile.TemporaryDirectory() as d:
        for name, ext in CASES:
            out = os.path.join(d, f"{name}.{ext}")
            subprocess.run([BIN, "apply", os.path.join(T, name), "-o", out], check=True,
                           capture_output=True)
            who, read = READERS[ext]
            got, want = read(out), raw(manifest[name])
            same = got.shape == want.shape and got.dtype == want.dtype and (
                got.view(np.uint8) == want.view(np.uint8)).all()
            bad += not same
            print(f"{'ok  ' if same else 'DIFF'} {name} → .{ext} read by {who}: {got.dtype} {got.shape}")
    sys.exit(1 if bad else 0)


if __name__ == "__main__":
    main()
