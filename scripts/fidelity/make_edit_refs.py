#!/usr/bin/env python3
"""Generates the references of the image edits (cudalens::edit) in tests/data/edits/ with
Pillow: rotations, flips, crops and resizes (NEAREST, BILINEAR, BICUBIC, LANCZOS) of small
inputs, so the CPU reference and the CUDA path are checked against someone else's answer.

Inputs (97x61 RGBA, written next to the references):
  coffee.png      a crop of tests/data/coffee.png, opaque
  astronaut.png   a crop of tests/data/astronaut.png under a radial alpha ramp (0..255),
                  so Image.resize's premultiplied-alpha path is exercised on a photo
  noise.png       uniform random RGBA, alpha included (fixed seed)

`manifest.json` lists each case: input, the edit in cudalens's spec syntax, the reference
file and its size, and the Pillow version. Deterministic: fixed seed, no timestamps. Run
from the repository root:

    python3 scripts/fidelity/make_edit_refs.py
"""

import json
from pathlib import Path

import numpy as np
import PIL
from PIL import Image

ROOT = Path(__file__).resolve().parents[2]
OUT = ROOT / "tests" / "data" / "edits"
SIZE = (97, 61)

FILTERS = {
    "nearest": Image.Resampling.NEAREST,
    "bilinear": Image.Resampling.BILINEAR,
    "bicubic": Image.Resampling.BICUBIC,
    "lanczos3": Image.Resampling.LANCZOS,
}

# Resize targets: down on both axes, up on both, down on one axis only, down x / up y.
RESIZES = [(41, 29), (131, 83), (97, 30), (50, 90)]

# Pillow's transposes are counter-clockwise; cudalens's rotations are clockwise.
MOVES = {
    "rotate:90": lambda im: im.transpose(Image.Transpose.ROTATE_270),
    "rotate:180": lambda im: im.transpose(Image.Transpose.ROTATE_180),
    "rotate:270": lambda im: im.transpose(Image.Transpose.ROTATE_90),
    "flip:h": lambda im: im.transpose(Image.Transpose.FLIP_LEFT_RIGHT),
    "flip:v": lambda im: im.transpose(Image.Transpose.FLIP_TOP_BOTTOM),
    "crop:13,7,50,40": lambda im: im.crop((13, 7, 63, 47)),
}


def crop_of(name, left, top):
    im = Image.open(ROOT / "tests" / "data" / name).convert("RGBA")
    return im.crop((left, top, left + SIZE[0], top + SIZE[1]))


def inputs():
    coffee = crop_of("coffee.png", 251, 163)
    astronaut = crop_of("astronaut.png", 190, 60)
    w, h = SIZE
    yy, xx = np.mgrid[0:h, 0:w]
    r = np.hypot((xx - w / 2) / (w / 2), (yy - h / 2) / (h / 2))
    alpha = np.clip(np.round(255 * (1.2 - r)), 0, 255).astype(np.uint8)
    astronaut.putalpha(Image.fromarray(alpha, "L"))
    rng = np.random.default_rng(20250507)
    noise = Image.fromarray(rng.integers(0, 256, (h, w, 4), dtype=np.uint8), "RGBA")
    return {"coffee": coffee, "astronaut": astronaut, "noise": noise}


def main():
    OUT.mkdir(parents=True, exist_ok=True)
    cases = []
    for name, im in inputs().items():
        source = f"{name}.png"
        im.save(OUT / source)
        edits = dict(MOVES)
        for filt, resample in FILTERS.items():
            for w, h in RESIZES:
                spec = f"resize:{w}x{h},filter={filt}"
                edits[spec] = lambda im, s=(w, h), r=resample: im.resize(s, r)
        for spec, fn in edits.items():
            out = fn(im)
            assert out.mode == "RGBA"
            slug = spec.replace(":", "-").replace(",filter=", "-").replace(",", "_")
            ref = f"{name}.{slug}.png"
            out.save(OUT / ref)
            cases.append(
                {"input": source, "edit": spec, "reference": ref, "size": list(out.size)}
            )
    manifest = {"pillow": PIL.__version__, "cases": cases}
    (OUT / "manifest.json").write_text(json.dumps(manifest, indent=1) + "\n")
    print(f"{len(cases)} references in {OUT.relative_to(ROOT)}")


if __name__ == "__main__":
    main()
