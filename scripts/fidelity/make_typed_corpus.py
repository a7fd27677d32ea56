#!/usr/bin/env python3
"""Writes tests/data/typed/: small 8-bit, 16-bit and float images in TIFF (tifffile: ImageJ,
BigTIFF, tiled, planar, LZW, Deflate, PackBits, predictors), PNG (imagecodecs/libpng),
PGM/PPM (Pillow and by hand) and OpenEXR (the OpenEXR library, half and float), each with
the raw values the writer was given (<file>.raw, little endian, as the image loads: grey 1,
RGB 3, RGBA 4 channels, grey + alpha widened to RGBA, half widened to float) and
manifest.json (file, raw, type, channels, width, height).

Needs: pip install numpy tifffile imagecodecs pillow OpenEXR
Run from the repository root: python3 scripts/fidelity/make_typed_corpus.py
"""

import json
import os

import imagecodecs
import numpy as np
import OpenEXR
import tifffile
from PIL import Image

OUT = os.path.join("tests", "data", "typed")
W, H = 29, 19
rng = np.random.default_rng(20261128)
manifest = []


def u8(c):
    return rng.integers(0, 256, size=(H, W, c), dtype=np.uint8)


def u16(c):
    return rng.integers(0, 65536, size=(H, W, c), dtype=np.uint16)


def f32(c):
    # Outside 0..1 too (HDR, negatives), and tiny values: floats are kept as they are.
    v = rng.normal(0.5, 1.5, size=(H, W, c)).astype(np.float32)
    v[0, :4, 0] = [0.0, 1e-30, -2.5, 65504.0]
    return v


def half(c):
    return f32(c).astype(np.float16)


def record(name, loaded):
    """`loaded`: the array as the image loads (H, W, C)."""
    kind = {np.uint8: "u8", np.uint16: "u16", np.float32: "f32"}[loaded.dtype.type]
    h, w, c = loaded.shape
    raw = name + ".raw"
    loaded.astype(loaded.dtype.newbyteorder("<")).tofile(os.path.join(OUT, raw))
    manifest.append(
        {"file": name, "raw": raw, "type": kind, "channels": c, "width": w, "height": h}
    )


def tiff(name, data, loaded=None, **kw):
    arr = data[:, :, 0] if data.shape[2] == 1 else data
    if kw.get("planarconfig") == "separate":
        arr = np.ascontiguousarray(np.moveaxis(data, 2, 0))
    tifffile.imwrite(os.path.join(OUT, name), arr, **kw)
    record(name, data if loaded is None else loaded)


def grey_alpha_as_rgba(ga):
    return np.concatenate([ga[:, :, :1]] * 3 + [ga[:, :, 1:]], axis=2)


def png(name, data):
    arr = data[:, :, 0] if data.shape[2] == 1 else data
    with open(os.path.join(OUT, name), "wb") as f:
        f.write(imagecodecs.png_encode(arr))
    record(name, data)


def exr(name, channels, loaded):
    header = {"compression": OpenEXR.ZIP_COMPRESSION, "type": OpenEXR.scanlineimage}
    channels = {k: np.ascontiguousarray(v) for k, v in channels.items()}
    with OpenEXR.File(header, channels) as f:
        f.write(os.path.join(OUT, name))
    record(name, loaded)


def netpbm(name, magic, maxval, data, ascii_=False):
    h, w, _ = data.shape
    head = f"{magic}\n# written by make_typed_corpus.py\n{w} {h}\n{maxval}\n".encode()
    if ascii_:
        body = " ".join(str(v) for v in data.flatten()).encode() + b"\n"
    elif maxval > 255:
        body = data.astype(">u2").tobytes()
    else:
        body = data.astype(np.uint8).tobytes()
    with open(os.path.join(OUT, name), "wb") as f:
        f.write(head + body)


def photo16():
    """A crop of the astronaut widened to 16 bits with a ramp in the low byte."""
    rgb = np.asarray(Image.open(os.path.join("tests", "data", "astronaut.png")).convert("RGB"))
    crop = rgb[60:84, 200:240].astype(np.uint32)
    y, x = np.mgrid[0 : crop.shape[0], 0 : crop.shape[1]]
    ramp = ((x * 5 + y * 3) % 256)[:, :, None]
    return (crop * 256 + ramp).astype(np.uint16)


def main():
    os.makedirs(OUT, exist_ok=True)
    for f in os.listdir(OUT):
        os.remove(os.path.join(OUT, f))

    # TIFF
    tiff("tiff_u8_grey.tif", u8(1))
    tiff("tiff_u16_grey_imagej.tif", u16(1), imagej=True)
    tiff("tiff_f32_grey_imagej.tif", f32(1), imagej=True)
    tiff("tiff_u8_rgb_packbits.tif", u8(3), photometric="rgb", compression="packbits")
    tiff("tiff_u16_rgb_lzw.tif", u16(3), photometric="rgb", compression="lzw")
    tiff("tiff_u16_rgba_deflate_predictor.tif", u16(4), photometric="rgb",
         extrasamples=["unassalpha"], compression="zlib", predictor=True)
    tiff("tiff_f32_grey_float_predictor.tif", f32(1), compression="zlib",
         predictor="floatingpoint")
    tiff("tiff_f32_rgb_tiled.tif", f32(3), photometric="rgb", tile=(16, 16))
    tiff("tiff_f32_rgba_bigtiff.tif", f32(4), photometric="rgb",
         extrasamples=["unassalpha"], bigtiff=True)
    tiff("tiff_u16_rgb_planar.tif", u16(3), photometric="rgb", planarconfig="separate")
    tiff("tiff_u8_rgb_strips.tif", u8(3), photometric="rgb", rowsperstrip=5,
         compression="lzw")
    ga = u8(2)
    tiff("tiff_u8_grey_alpha.tif", ga, loaded=grey_alpha_as_rgba(ga),
         photometric="minisblack", extrasamples=["unassalpha"])
    tiff("tiff_u16_photo.tif", photo16(), photometric="rgb", compression="zlib")

    # PNG
    png("png_u16_grey.png", u16(1))
    png("png_u16_rgb.png", u16(3))
    png("png_u16_rgba.png", u16(4))
    png("png_u8_grey.png", u8(1))
    png("png_u16_photo.png", photo16())

    # PGM / PPM
    g16 = u16(1)
    Image.fromarray(g16[:, :, 0]).save(os.path.join(OUT, "pgm_u16.pgm"))
    record("pgm_u16.pgm", g16)
    rgb8 = u8(3)
    Image.fromarray(rgb8).save(os.path.join(OUT, "ppm_u8.ppm"))
    record("ppm_u8.ppm", rgb8)
    rgb16 = u16(3)
    netpbm("ppm_u16.ppm", "P6", 65535, rgb16)
    record("ppm_u16.ppm", rgb16)
    small = rng.integers(0, 1001, size=(H, W, 1), dtype=np.uint16)
    netpbm("pgm_maxval_1000_ascii.pgm", "P2", 1000, small, ascii_=True)
    scaled = (small.astype(np.uint32) * 65535 * 2 + 1000) // 2000
    record("pgm_maxval_1000_ascii.pgm", scaled.astype(np.uint16))
    tiny = rng.integers(0, 16, size=(H, W, 3), dtype=np.uint8)
    netpbm("ppm_maxval_15.ppm", "P6", 15, tiny)
    record("ppm_maxval_15.ppm", ((tiny.astype(np.uint32) * 255 * 2 + 15) // 30).astype(np.uint8))

    # OpenEXR
    h3 = half(3)
    exr("exr_half_rgb.exr", {"R": h3[:, :, 0], "G": h3[:, :, 1], "B": h3[:, :, 2]},
        h3.astype(np.float32))
    h4 = half(4)
    exr("exr_half_rgba.exr", {c: h4[:, :, i] for i, c in enumerate("RGBA")},
        h4.astype(np.float32))
    f4 = f32(4)
    exr("exr_float_rgba.exr", {c: f4[:, :, i] for i, c in enumerate("RGBA")}, f4)
    f3 = f32(3)
    exr("exr_float_rgb.exr", {c: f3[:, :, i] for i, c in enumerate("RGB")}, f3)
    hy = half(1)
    exr("exr_half_y.exr", {"Y": hy[:, :, 0]}, hy.astype(np.float32))
    fy = f32(1)
    exr("exr_float_y.exr", {"Y": fy[:, :, 0]}, fy)
    p = photo16().astype(np.float32) / 65535
    exr("exr_float_photo.exr", {c: p[:, :, i] for i, c in enumerate("RGB")}, p)

    with open(os.path.join(OUT, "manifest.json"), "w") as f:
        json.dump(manifest, f, indent=1)
        f.write("\n")
    print(f"{len(manifest)} files in {OUT}")


if __name__ == "__main__":
    main()
