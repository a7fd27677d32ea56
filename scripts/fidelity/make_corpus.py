#!/usr/bin/env python3
"""Generates the image-fidelity corpus in tests/data/fidelity/ from the repository's own
photographs, and a reference decode of every file by Pillow (libjpeg-turbo, libpng,
libtiff, libwebp; LittleCMS through ImageCms), so the loader is checked against someone
else's answer.

Each reference is `<name>.ref.png` (RGBA8, EXIF orientation applied, converted to sRGB);
16-bit sources are reduced with round(v / 257). `manifest.json` lists every file with its
kind (lossless | lossy | 16bit | colour | error), expected size, EXIF orientation and ICC
profile description. Deterministic: fixed seeds, no timestamps; the Pillow version is
recorded in the manifest. Run from the repository root:

    python3 scripts/fidelity/make_corpus.py
"""

import io
import json
import struct
import zlib
from pathlib import Path

import numpy as np
import PIL
from PIL import Image, ImageCms, ImageOps

ROOT = Path(__file__).resolve().parents[2]
OUT = ROOT / "tests" / "data" / "fidelity"
SIZE = (263, 181)  # odd on purpose: partial MCUs and unaligned rows
MID = (187, 127)  # lossless and 16-bit files: smaller, as their references cost as much
SMALL = (160, 110)  # orientation variants: asymmetric, so a wrong turn changes the size

D50 = np.array([0.9642, 1.0, 0.8249])


def photo(name, size=SIZE, mode="RGB"):
    """A deterministic centre crop of one of the repository's photographs, resized."""
    path = ROOT / ("assets" if name == "chelsea.png" else "tests/data") / name
    im = Image.open(path).convert(mode)
    w, h = im.size
    aspect = size[0] / size[1]
    cw, ch = (w, round(w / aspect)) if w / h < aspect else (round(h * aspect), h)
    left, top = (w - cw) // 2, (h - ch) // 2
    im = im.crop((left, top, left + cw, top + ch)).resize(size, Image.Resampling.LANCZOS)
    # Pixels only: the source's own ICC profile and metadata must not ride along.
    return Image.fromarray(np.asarray(im), mode)


# ---------------------------------------------------------------- ICC profiles, by hand


def s15f16(v):
    return struct.pack(">i", int(round(v * 65536)))


def xyz_of(x, y):
    return np.array([x / y, 1.0, (1 - x - y) / y])


def colorants(primaries, white):
    """RGB to XYZ (D50-adapted with Bradford), columns = the rXYZ, gXYZ, bXYZ tags."""
    xyz = np.stack([xyz_of(*p) for p in primaries], axis=1)
    w = xyz_of(*white)
    m = xyz * np.linalg.solve(xyz, w)
    bradford = np.array(
        [[0.8951, 0.2664, -0.1614], [-0.7502, 1.7135, 0.0367], [0.0389, -0.0685, 1.0296]]
    )
    cone = (bradford @ D50) / (bradford @ w)
    adapt = np.linalg.inv(bradford) @ np.diag(cone) @ bradford
    return adapt @ m


def tag_xyz(v):
    return b"XYZ " + bytes(4) + b"".join(s15f16(c) for c in v)


def tag_desc(text):
    ascii_ = text.encode("ascii") + b"\0"
    return (
        b"desc" + bytes(4) + struct.pack(">I", len(ascii_)) + ascii_
        + struct.pack(">II", 0, 0) + struct.pack(">HB", 0, 0) + bytes(67)
    )


def tag_text(text):
    return b"text" + bytes(4) + text.encode("ascii") + b"\0"


def tag_gamma(g):
    return b"curv" + bytes(4) + struct.pack(">IH", 1, int(round(g * 256))) + bytes(2)


def tag_srgb_curve():
    """The sRGB transfer function as a parametric curve (type 3)."""
    params = [2.4, 1 / 1.055, 0.055 / 1.055, 1 / 12.92, 0.04045]
    return b"para" + bytes(4) + struct.pack(">HH", 3, 0) + b"".join(s15f16(p) for p in params)


def icc_profile(description, primaries, white, trc):
    """A v2.1 RGB display profile (matrix/TRC) with the given primaries and curve."""
    m = colorants(primaries, white)
    tags = [
        (b"desc", tag_desc(description)),
        (b"cprt", tag_text("No copyright, use freely")),
        (b"wtpt", tag_xyz(D50)),
        (b"rXYZ", tag_xyz(m[:, 0])),
        (b"gXYZ", tag_xyz(m[:, 1])),
        (b"bXYZ", tag_xyz(m[:, 2])),
        (b"rTRC", trc),
        (b"gTRC", trc),
        (b"bTRC", trc),
    ]
    offset = 128 + 4 + 12 * len(tags)
    table, data = b"", b""
    for sig, body in tags:
        while len(body) % 4:
            body += b"\0"
        table += sig + struct.pack(">II", offset + len(data), len(body))
        data += body
    size = offset + len(data)
    header = (
        struct.pack(">I", size) + bytes(4) + struct.pack(">I", 0x02100000)
        + b"mntrRGB XYZ " + bytes(12) + b"acsp" + bytes(4) + struct.pack(">I", 0)
        + bytes(8) + bytes(8) + struct.pack(">I", 0)
        + b"".join(s15f16(c) for c in D50) + bytes(4) + bytes(16) + bytes(28)
    )
    assert len(header) == 128
    return header + struct.pack(">I", len(tags)) + table + data


D65 = (0.3127, 0.3290)
DISPLAY_P3 = icc_profile(
    "Display P3 (cudalens test profile)",
    [(0.680, 0.320), (0.265, 0.690), (0.150, 0.060)], D65, tag_srgb_curve(),
)
ADOBE_RGB = icc_profile(
    "Adobe RGB (1998) compatible (cudalens test profile)",
    [(0.640, 0.330), (0.210, 0.710), (0.150, 0.060)], D65, tag_gamma(563 / 256),
)

# ---------------------------------------------------------------- hand-written encoders


def png_bytes(array, colour_type, extra_chunks=()):
    """A 16-bit PNG (Pillow cannot write 16-bit RGB): colour type 0 (grey) or 2 (RGB)."""
    h, w = array.shape[:2]
    rows = array.astype(">u2").reshape(h, -1)
    raw = b"".join(b"\0" + row.tobytes() for row in rows)

    def chunk(kind, body):
        return struct.pack(">I", len(body)) + kind + body + struct.pack(">I", zlib.crc32(kind + body))

    ihdr = struct.pack(">IIBBBBB", w, h, 16, colour_type, 0, 0, 0)
    out = b"\x89PNG\r\n\x1a\n" + chunk(b"IHDR", ihdr)
    for kind, body in extra_chunks:
        out += chunk(kind, body)
    return out + chunk(b"IDAT", zlib.compress(raw, 9)) + chunk(b"IEND", b"")


def tiff16_rgb_bytes(array):
    """An uncompressed little-endian 16-bit RGB TIFF, one strip."""
    h, w = array.shape[:2]
    pixels = array.astype("<u2").tobytes()
    entries = [
        (256, 4, 1, w), (257, 4, 1, h), (258, 3, 3, None), (259, 3, 1, 1), (262, 3, 1, 2),
        (273, 4, 1, None), (277, 3, 1, 3), (278, 4, 1, h), (279, 4, 1, len(pixels)),
        (284, 3, 1, 1),
    ]
    ifd_offset = 8
    ifd_size = 2 + 12 * len(entries) + 4
    bits_offset = ifd_offset + ifd_size
    data_offset = bits_offset + 6
    out = b"II*\0" + struct.pack("<I", ifd_offset) + struct.pack("<H", len(entries))
    for tag, kind, count, value in entries:
        if tag == 258:
            value = bits_offset
        if tag == 273:
            value = data_offset
        if kind == 3 and count == 1:
            out += struct.pack("<HHIHH", tag, kind, count, value, 0)
        else:
            out += struct.pack("<HHII", tag, kind, count, value)
    out += struct.pack("<I", 0) + struct.pack("<HHH", 16, 16, 16)
    assert len(out) == data_offset
    return out + pixels


def exif_with_orientation(value):
    exif = Image.Exif()
    exif[0x0112] = value
    return exif.tobytes()


# ---------------------------------------------------------------- the corpus

MANIFEST = []


def entry(name, kind, size, orientation=1, profile=None, error=None):
    MANIFEST.append(
        {
            "file": name, "kind": kind, "width": size[0], "height": size[1],
            "orientation": orientation, "profile": profile, "error": error,
        }
    )


def reference_of(path):
    """Pillow's decode: orientation applied, ICC converted to sRGB, RGBA8."""
    im = Image.open(path)
    im.load()
    icc = im.info.get("icc_profile")
    im = ImageOps.exif_transpose(im)
    if im.mode in ("P", "PA"):
        im = im.convert("RGBA")
    if im.mode == "CMYK":
        im = im.convert("RGB")
    if icc:
        src = ImageCms.ImageCmsProfile(io.BytesIO(icc))
        srgb = ImageCms.createProfile("sRGB")
        im = ImageCms.profileToProfile(im.convert("RGB"), src, srgb, outputMode="RGB")
    return im.convert("RGBA")


def save_reference(name, image=None):
    ref = image if image is not None else reference_of(OUT / name)
    # Pixels only: no profile, EXIF or text chunk carried over from the source.
    ref = Image.fromarray(np.asarray(ref.convert("RGBA")), "RGBA")
    ref.save(OUT / f"{name}.ref.png", optimize=True)
    return ref


def profile_description(path):
    icc = Image.open(path).info.get("icc_profile")
    if not icc:
        return None
    return ImageCms.getProfileDescription(ImageCms.ImageCmsProfile(io.BytesIO(icc))).strip()


def add(name, kind, writer, orientation=1, profile=None):
    writer(OUT / name)
    assert profile_description(OUT / name) == profile, name
    with Image.open(OUT / name) as im:
        assert im.getexif().get(0x0112, 1) == orientation, name
    ref = save_reference(name)
    entry(name, kind, ref.size, orientation, profile)


def add16(name, array, data, grey):
    (OUT / name).write_bytes(data)
    reduced = np.floor(array.astype(np.float64) / 257 + 0.5).astype(np.uint8)
    rgb = np.repeat(reduced[:, :, None], 3, axis=2) if grey else reduced
    alpha = np.full(rgb.shape[:2] + (1,), 255, np.uint8)
    ref = Image.fromarray(np.concatenate([rgb, alpha], axis=2), "RGBA")
    if grey:  # Pillow reads 16-bit grey exactly: check the hand-made file against it
        back = np.asarray(Image.open(OUT / name)).astype(np.uint16)
        assert (back == array).all(), name
    save_reference(name, ref)
    entry(name, "16bit", ref.size)


def main():
    OUT.mkdir(parents=True, exist_ok=True)
    for old in OUT.iterdir():
        old.unlink()
    rng = np.random.default_rng(20240607)
    chelsea, coffee, astronaut = photo("chelsea.png"), photo("coffee.png"), photo("astronaut.png")
    camera = photo("camera.png", mode="L")
    logo = photo("logo.png", MID, mode="RGBA")
    # Smaller variants for the lossless formats.
    chelsea_m, coffee_m, astronaut_m = (photo(n, MID) for n in ("chelsea.png", "coffee.png", "astronaut.png"))
    camera_m = photo("camera.png", MID, mode="L")

    # JPEG: sampling, coding and colour variants.
    for name, im, opts in [
        ("jpeg_444.jpg", coffee, dict(quality=92, subsampling=0)),
        ("jpeg_422.jpg", chelsea, dict(quality=90, subsampling=1)),
        ("jpeg_420.jpg", astronaut, dict(quality=85, subsampling=2)),
        ("jpeg_progressive.jpg", coffee, dict(quality=88, progressive=True)),
        ("jpeg_restart.jpg", chelsea, dict(quality=90, restart_marker_blocks=7)),
        ("jpeg_optimized.jpg", astronaut, dict(quality=80, optimize=True)),
        ("jpeg_grey.jpg", camera, dict(quality=90)),
    ]:
        add(name, "lossy", lambda p, im=im, opts=opts: im.save(p, "JPEG", **opts))

    # CMYK with real black (grey-component replacement), as Pillow writes it: Adobe
    # APP14 marker, inverted samples.
    rgb = np.asarray(chelsea).astype(np.float64) / 255
    k = 1 - rgb.max(axis=2)
    cmy = np.where(k[..., None] < 1, (1 - rgb - k[..., None]) / np.maximum(1 - k[..., None], 1e-9), 0)
    cmyk = np.concatenate([cmy, k[..., None]], axis=2)
    cmyk_im = Image.fromarray(np.round(cmyk * 255).astype(np.uint8), "CMYK")
    add("jpeg_cmyk_adobe.jpg", "lossy", lambda p: cmyk_im.save(p, "JPEG", quality=92))

    # YCCK, as Photoshop writes CMYK: the same file with the Adobe marker's transform set
    # to 2, so its samples read as Y, Cb, Cr and K.
    def ycck(path):
        data = bytearray((OUT / "jpeg_cmyk_adobe.jpg").read_bytes())
        at = data.index(b"Adobe") + 11  # "Adobe", version, flags0, flags1, transform
        assert data[at] == 0
        data[at] = 2
        path.write_bytes(bytes(data))

    add("jpeg_ycck_adobe.jpg", "lossy", ycck)

    # EXIF orientation 1-8 on an asymmetric image.
    small = photo("chelsea.png", SMALL)
    for value in range(1, 9):
        add(
            f"jpeg_orientation_{value}.jpg", "lossy",
            lambda p, v=value: small.save(p, "JPEG", quality=90, exif=exif_with_orientation(v)),
            orientation=value,
        )
    add("png_orientation_6.png", "lossless",
        lambda p: small.save(p, "PNG", exif=exif_with_orientation(6)), orientation=6)
    add("tiff_orientation_3.tif", "lossless",
        lambda p: small.save(p, "TIFF", exif=exif_with_orientation(3)), orientation=3)
    add("webp_orientation_8.webp", "lossless",
        lambda p: small.save(p, "WEBP", lossless=True, exif=exif_with_orientation(8)),
        orientation=8)
    add("jpeg_orientation_5_p3.jpg", "colour",
        lambda p: small.save(p, "JPEG", quality=92, exif=exif_with_orientation(5),
                             icc_profile=DISPLAY_P3),
        orientation=5, profile="Display P3 (cudalens test profile)")

    # Wide-gamut ICC profiles: the pixels mean P3 / Adobe RGB, so sRGB values change.
    add("jpeg_display_p3.jpg", "colour",
        lambda p: coffee.save(p, "JPEG", quality=92, icc_profile=DISPLAY_P3),
        profile="Display P3 (cudalens test profile)")
    add("png_adobe_rgb.png", "colour",
        lambda p: chelsea_m.save(p, "PNG", icc_profile=ADOBE_RGB),
        profile="Adobe RGB (1998) compatible (cudalens test profile)")
    add("webp_display_p3.webp", "colour",
        lambda p: astronaut_m.save(p, "WEBP", lossless=True, icc_profile=DISPLAY_P3),
        profile="Display P3 (cudalens test profile)")
    # A real-world sRGB profile (the one chelsea.png carries): converting is near identity.
    srgb_icc = Image.open(ROOT / "assets" / "chelsea.png").info["icc_profile"]
    add("png_srgb_profile.png", "colour",
        lambda p: chelsea_m.save(p, "PNG", icc_profile=srgb_icc),
        profile="sRGB IEC61966-2.1")
    add("tiff_adobe_rgb.tif", "colour",
        lambda p: coffee_m.save(p, "TIFF", compression="tiff_lzw", icc_profile=ADOBE_RGB),
        profile="Adobe RGB (1998) compatible (cudalens test profile)")

    # 16 bits: 8-bit photographs widened, with noise in the low byte.
    grey16 = np.asarray(camera_m).astype(np.int32) * 257 + rng.integers(-128, 128, MID[::-1])
    grey16 = np.clip(grey16, 0, 65535).astype(np.uint16)
    rgb16 = np.asarray(coffee_m).astype(np.int32) * 257 + rng.integers(-128, 128, MID[::-1] + (3,))
    rgb16 = np.clip(rgb16, 0, 65535).astype(np.uint16)
    add16("png_grey16.png", grey16, png_bytes(grey16, 0), grey=True)
    add16("png_rgb16.png", rgb16, png_bytes(rgb16, 2), grey=False)
    grey16_tiff = io.BytesIO()
    Image.fromarray(grey16).save(grey16_tiff, "TIFF")
    add16("tiff_grey16.tif", grey16, grey16_tiff.getvalue(), grey=True)
    add16("tiff_rgb16.tif", rgb16, tiff16_rgb_bytes(rgb16), grey=False)

    # Other lossless formats and colour types.
    palette = chelsea_m.quantize(colors=200, method=Image.Quantize.MEDIANCUT, dither=Image.Dither.NONE)
    grey_alpha = Image.merge("LA", (camera_m, logo.getchannel("A")))
    for name, writer in [
        ("png_rgb.png", lambda p: coffee_m.save(p, "PNG")),
        ("png_palette.png", lambda p: palette.save(p, "PNG")),
        ("png_grey.png", lambda p: camera_m.save(p, "PNG")),
        ("png_grey_alpha.png", lambda p: grey_alpha.save(p, "PNG")),
        ("png_rgba.png", lambda p: logo.save(p, "PNG")),
        ("webp_lossless.webp", lambda p: chelsea_m.save(p, "WEBP", lossless=True)),
        ("bmp_rgb.bmp", lambda p: astronaut_m.save(p, "BMP")),
        ("gif_palette.gif", lambda p: palette.save(p, "GIF")),
        ("tiff_lzw.tif", lambda p: chelsea_m.save(p, "TIFF", compression="tiff_lzw")),
    ]:
        add(name, "lossless", writer)
    add("webp_lossy.webp", "lossy", lambda p: coffee.save(p, "WEBP", quality=90, method=6))

    # Broken files: must be refused, never shown.
    good = io.BytesIO()
    coffee.save(good, "JPEG", quality=90)
    data = good.getvalue()
    sos = data.index(b"\xff\xda")
    scan = sos + 2 + struct.unpack(">H", data[sos + 2 : sos + 4])[0]
    truncated = data[: scan + (len(data) - scan) * 2 // 3]
    (OUT / "jpeg_truncated.jpg").write_bytes(truncated)
    entry("jpeg_truncated.jpg", "error", coffee.size, error="truncated")
    # Corrupt scan: a run of bytes in the middle of the entropy-coded data replaced with
    # others (no marker bytes), so the Huffman decoding goes astray but no marker says so.
    corrupt = bytearray(data)
    middle = scan + (len(data) - scan) // 2
    noise = rng.integers(0, 0xFE, 48, dtype=np.uint8).tobytes()
    corrupt[middle : middle + 48] = noise
    (OUT / "jpeg_corrupt_scan.jpg").write_bytes(bytes(corrupt))
    entry("jpeg_corrupt_scan.jpg", "error", coffee.size, error="corrupt")

    manifest = {
        "generator": "scripts/fidelity/make_corpus.py",
        "pillow": PIL.__version__,
        "littlecms": PIL.features.version("littlecms2"),
        "libjpeg_turbo": PIL.features.version("libjpeg_turbo"),
        "files": MANIFEST,
    }
    (OUT / "manifest.json").write_text(json.dumps(manifest, indent=1) + "\n")
    total = sum(p.stat().st_size for p in OUT.iterdir())
    print(f"{len(MANIFEST)} files, {total / 1e6:.2f} MB in {OUT.relative_to(ROOT)}")


if __name__ == "__main__":
    main()
