#!/usr/bin/env python3
"""Writes tests/data/typed_edits/: 16-bit and float grey inputs and Pillow's edits of them,
which src/edit/typed.rs's tests compare the generic edits with.

Pillow resizes mode F (float32) and mode I (int32) images on its 32-bit path: the f64
weights of precompute_coeffs, a horizontal then a vertical pass summed in f64, stored after
each pass (F as float32; I rounded half away from zero, unclipped). U16 inputs go in as
mode I and the result is clipped to 0..65535. Rotations and flips are Pillow's transposes
(counter-clockwise, so rotate:90 is ROTATE_270), crops `Image.crop`.

Inputs (37x23 grey, never all zero): "photo", a crop of assets/chelsea.png's luma widened
to 16 bits with ±0.5 of an 8-bit level of noise (F32: divided by 65535); "random", uniform
samples (F32 in [-0.25, 1.25]).

Files: <input>.bin and <input>.<n>.bin, raw little-endian samples (uint16 or float32), and
manifest.json with each output's spec and size. Deterministic; run from anywhere:

    python3 scripts/fidelity/make_typed_edit_refs.py
"""

import json
from pathlib import Path

import numpy as np
import PIL
from PIL import Image

ROOT = Path(__file__).resolve().parents[2]
OUT = ROOT / "tests" / "data" / "typed_edits"
SIZE = (37, 23)
FILTERS = {
    "nearest": Image.Resampling.NEAREST,
    "bilinear": Image.Resampling.BILINEAR,
    "bicubic": Image.Resampling.BICUBIC,
    "lanczos3": Image.Resampling.LANCZOS,
}
# Down on both axes, up on both, down on one only, down x and up y.
RESIZES = [(19, 13), (53, 31), (37, 9), (16, 40)]
MOVES = {
    "rotate:90": lambda im: im.transpose(Image.Transpose.ROTATE_270),
    "rotate:180": lambda im: im.transpose(Image.Transpose.ROTATE_180),
    "rotate:270": lambda im: im.transpose(Image.Transpose.ROTATE_90),
    "flip:h": lambda im: im.transpose(Image.Transpose.FLIP_LEFT_RIGHT),
    "flip:v": lambda im: im.transpose(Image.Transpose.FLIP_TOP_BOTTOM),
    "crop:5,3,17,11": lambda im: im.crop((5, 3, 22, 14)),
}


def inputs(rng):
    rgb = np.asarray(Image.open(ROOT / "assets" / "chelsea.png").convert("RGB"))
    crop = rgb[101:101 + SIZE[1], 250:250 + SIZE[0]].astype(np.float32)
    y = (np.float32(0.2126) * crop[..., 0] + np.float32(0.7152) * crop[..., 1]) \
        + np.float32(0.0722) * crop[..., 2]
    wide = np.clip(y.astype(np.float64) * 257 + rng.uniform(-128, 128, y.shape), 0, 65535)
    shape = (SIZE[1], SIZE[0])
    return {
        "photo-u16": np.rint(wide).astype(np.uint16),
        "photo-f32": (wide / 65535).astype(np.float32),
        "random-u16": rng.integers(0, 65536, shape).astype(np.uint16),
        "random-f32": rng.uniform(-0.25, 1.25, shape).astype(np.float32),
    }


def pillow_image(a):
    return Image.fromarray(a.astype(np.int32), mode="I") if a.dtype == np.uint16 else \
        Image.fromarray(a, mode="F")


def back(im, dtype):
    a = np.asarray(im)
    if dtype == np.uint16:
        return np.clip(a, 0, 65535).astype(np.uint16)
    return a.astype(np.float32)


def main():
    rng = np.random.default_rng(20261128)
    OUT.mkdir(parents=True, exist_ok=True)
    cases = []
    for name, a in inputs(rng).items():
        assert a.any(), name
        (OUT / f"{name}.bin").write_bytes(a.astype(a.dtype.newbyteorder("<")).tobytes())
        im = pillow_image(a)
        edits = dict(MOVES)
        for fname, f in FILTERS.items():
            for w, h in RESIZES:
                edits[f"resize:{w}x{h},filter={fname}"] = \
                    lambda im, w=w, h=h, f=f: im.resize((w, h), f)
        outputs = []
        for i, (spec, fn) in enumerate(edits.items()):
            r = back(fn(im), a.dtype)
            file = f"{name}.{i}.bin"
            (OUT / file).write_bytes(r.astype(r.dtype.newbyteorder("<")).tobytes())
            outputs.append({"spec": spec, "file": file, "width": r.shape[1], "height": r.shape[0]})
        cases.append({
            "input": f"{name}.bin",
            "type": "u16" if a.dtype == np.uint16 else "f32",
            "width": SIZE[0],
            "height": SIZE[1],
            "outputs": outputs,
        })
    doc = {"pillow": PIL.__version__, "numpy": np.__version__, "cases": cases}
    (OUT / "manifest.json").write_text(json.dumps(doc, indent=1) + "\n")
    total = sum(p.stat().st_size for p in OUT.iterdir())
    print(f"{OUT.relative_to(ROOT)}: {len(cases)} inputs, {total} bytes")


if __name__ == "__main__":
    main()
