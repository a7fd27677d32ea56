#!/usr/bin/env python3
"""Generates tests/data/jpeg/: small JPEGs (odd sizes) in the codings a JPEG decoder must
handle, each with someone else's decode as `<name>.ref.png`, and `manifest.json`.

Writers: cjpeg/jpegtran 2.1 (Debian's libjpeg-turbo-progs) for scan scripts (non-interleaved
and partially interleaved baseline), progressive, arithmetic coding, restart intervals,
stored RGB (`-rgb`), unusual sampling factors and grey; Pillow for CMYK (Adobe, inverted);
ImageMagick's convert when installed; for 12-bit and lossless files a libjpeg-turbo 3.x
cjpeg (`--cjpeg3 PATH`, e.g. the one turbojpeg-sys builds under the cargo target dir:
`build/turbojpeg-sys-*/out/bin/cjpeg`), as Debian's 2.1 has no `-precision`.

References: Pillow's decode (libjpeg-turbo, ISLOW DCT, fancy upsampling, as TurboJPEG's
defaults) as 8-bit L or RGB (CMYK converted by Pillow to RGB); for 12-bit and lossless
files imagecodecs' jpeg8 decoder (libjpeg-turbo 3.x), widened to 16 bits by bit
replication (v·16 + v/256 for 12 bits) and written as 16-bit PNG. Run from the repository
root:

    python3 scripts/fidelity/make_jpeg_corpus.py --cjpeg3 /path/to/cjpeg
"""

import argparse
import io
import json
import shutil
import subprocess
import sys
import tempfile
from pathlib import Path

import numpy as np
import PIL
import PIL.features
from PIL import Image

sys.path.insert(0, str(Path(__file__).resolve().parent))
from make_corpus import photo, png_bytes  # noqa: E402

ROOT = Path(__file__).resolve().parents[2]
OUT = ROOT / "tests" / "data" / "jpeg"
SIZE = (67, 49)  # odd: partial MCUs of every sampling (4x1 MCUs are 32 wide)
CJPEG = "/usr/bin/cjpeg"
# Debian's `convert` is ImageMagick's; a `convert` earlier on PATH may be something else.
CONVERT = "/usr/bin/convert"

# Scan scripts for sequential (baseline) files: one component a scan, or some together.
SCANS = {
    "noninterleaved": "0;\n1;\n2;\n",
    "partial_0_12": "0;\n1 2;\n",
    "partial_01_2": "0 1;\n2;\n",
    "partial_02_1_progressive": "0 2: 0 0 0 0;\n1: 0 0 0 0;\n0: 1 63 0 0;\n1: 1 63 0 0;\n2: 1 63 0 0;\n",
}

# cjpeg options of the 8-bit colour files.
CJPEG_CASES = {
    "baseline_420": ["-quality", "85"],
    "progressive": ["-progressive"],
    "arithmetic": ["-arithmetic"],
    "arithmetic_progressive": ["-arithmetic", "-progressive"],
    "restart_rows": ["-restart", "1"],
    "restart_blocks": ["-restart", "5B", "-sample", "2x1,1x1,1x1"],
    "rgb": ["-rgb"],
    "rgb_progressive": ["-rgb", "-progressive"],
    "sample_444": ["-sample", "1x1,1x1,1x1"],
    "sample_440": ["-sample", "1x2,1x1,1x1"],
    "sample_411": ["-sample", "4x1,1x1,1x1"],
    "sample_311": ["-sample", "3x1,1x1,1x1"],
    "sample_luma_half": ["-sample", "1x1,2x2,2x2"],
    "sample_luma_wide": ["-sample", "1x1,2x1,2x1"],
    "sample_mixed": ["-sample", "1x2,2x1,1x1"],
    "optimized": ["-optimize", "-quality", "60"],
}


def run(cmd, **kw):
    return subprocess.run(cmd, check=True, capture_output=True, **kw)


def pnm(image, path, maxval=255):
    """A binary PPM/PGM of `image` (uint8 or uint16 array, grey or RGB)."""
    a = np.asarray(image)
    magic = b"P6" if a.ndim == 3 else b"P5"
    h, w = a.shape[:2]
    body = a.astype(">u2" if maxval > 255 else "u1").tobytes()
    path.write_bytes(magic + f"\n{w} {h}\n{maxval}\n".encode() + body)


def widen(a, bits):
    """Bit replication of `bits`-bit samples to 16 bits."""
    a = a.astype(np.uint32)
    out = np.zeros_like(a)
    filled = 0
    while filled < 16:
        take = min(bits, 16 - filled)
        out = (out << take) | (a >> (bits - take))
        filled += take
    return out.astype(np.uint16)


def pillow_reference(data):
    im = Image.open(io.BytesIO(data))
    im.load()
    if im.mode == "CMYK":
        im = im.convert("RGB")
    assert im.mode in ("L", "RGB"), im.mode
    buf = io.BytesIO()
    im.save(buf, "PNG")
    return buf.getvalue(), im.mode


def imagecodecs_reference(data, bits):
    import imagecodecs

    a = imagecodecs.jpeg8_decode(data)
    assert a.dtype == np.uint16 and int(a.max()) < (1 << bits), (a.dtype, a.max())
    wide = widen(a, bits)
    grey = wide.ndim == 2
    return png_bytes(wide, 0 if grey else 2), "L16" if grey else "RGB16"


class Corpus:
    def __init__(self, tmp):
        self.tmp = tmp
        self.files = []
        self.colour = photo("coffee.png", SIZE)
        self.grey = photo("camera.png", SIZE, "L")
        self.ppm = tmp / "colour.ppm"
        self.pgm = tmp / "grey.pgm"
        pnm(self.colour, self.ppm)
        pnm(self.grey, self.pgm)

    def add(self, name, data, how, bits=8):
        if bits == 8:
            ref, mode = pillow_reference(data)
        else:
            ref, mode = imagecodecs_reference(data, bits)
        (OUT / name).write_bytes(data)
        (OUT / f"{name}.ref.png").write_bytes(ref)
        self.files.append({"file": name, "mode": mode, "bits": bits, "how": how})
        print(f"{name:<36} {len(data):>6} bytes  {mode:<5} {how}")

    def cjpeg(self, name, args, source=None, cjpeg=CJPEG, bits=8, how=None):
        src = source or self.ppm
        try:
            data = run([cjpeg, *args, str(src)]).stdout
        except subprocess.CalledProcessError as e:
            print(f"{name}: cjpeg refused {args}: {e.stderr.decode().strip()}")
            return
        self.add(name, data, how or f"{Path(cjpeg).name} {' '.join(args)}", bits)

    def scans(self):
        for name, script in SCANS.items():
            path = self.tmp / f"{name}.txt"
            path.write_text(script)
            how = "cjpeg -scans '" + script.replace("\n", " ").strip() + "'"
            self.cjpeg(f"scans_{name}.jpg", ["-scans", str(path)], how=how)

    def pillow_cmyk(self):
        cmyk = self.colour.convert("CMYK")
        for name, opts in [("cmyk_progressive.jpg", {"progressive": True}),
                           ("cmyk_444.jpg", {"subsampling": 0})]:
            buf = io.BytesIO()
            cmyk.save(buf, "JPEG", quality=90, **opts)
            self.add(name, buf.getvalue(), f"Pillow CMYK {opts}")

    def imagemagick(self):
        if not Path(CONVERT).exists():
            print("ImageMagick not installed: its files skipped")
            return
        png = self.tmp / "colour.png"
        self.colour.save(png)
        for name, args in [
            ("im_plane.jpg", ["-interlace", "Plane", "-quality", "80"]),
            ("im_cmyk.jpg", ["-colorspace", "CMYK", "-quality", "85"]),
            ("im_sample_1x2.jpg", ["-sampling-factor", "1x2,1x1,1x1"]),
            ("im_grey_progressive.jpg", ["-colorspace", "Gray", "-interlace", "JPEG"]),
        ]:
            out = self.tmp / name
            run([CONVERT, str(png), "-strip", *args, str(out)])
            self.add(name, out.read_bytes(), f"ImageMagick convert {' '.join(args)}")

    def high_precision(self, cjpeg3):
        if not cjpeg3:
            print("no --cjpeg3: 12-bit and lossless files skipped")
            return
        rng = np.random.default_rng(12)
        # True 12-bit data: the photograph at 16× plus low bits of noise.
        noise = rng.integers(0, 16, size=(SIZE[1], SIZE[0], 3))
        rgb12 = np.asarray(self.colour).astype(np.uint16) * 16 + noise
        grey12 = np.asarray(self.grey).astype(np.uint16) * 16 + noise[..., 0]
        ppm12, pgm12 = self.tmp / "colour12.ppm", self.tmp / "grey12.pgm"
        pnm(rgb12, ppm12, 4095)
        pnm(grey12, pgm12, 4095)
        p12 = ["-precision", "12"]
        self.cjpeg("p12_420.jpg", p12, ppm12, cjpeg3, 12)
        self.cjpeg("p12_progressive.jpg", [*p12, "-progressive"], ppm12, cjpeg3, 12)
        self.cjpeg("p12_grey.jpg", [*p12, "-grayscale"], pgm12, cjpeg3, 12)
        grey16 = np.asarray(self.grey).astype(np.uint16) * 257 + noise[..., 0]
        pgm16 = self.tmp / "grey16.pgm"
        pnm(grey16, pgm16, 65535)
        self.cjpeg("lossless16_grey.jpg", ["-precision", "16", "-lossless", "1"], pgm16, cjpeg3, 16)

    def manifest(self):
        out = {
            "generator": "scripts/fidelity/make_jpeg_corpus.py",
            "pillow": PIL.__version__,
            "libjpeg_turbo": PIL.features.version("libjpeg_turbo"),
            "files": self.files,
        }
        (OUT / "manifest.json").write_text(json.dumps(out, indent=1) + "\n")


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--cjpeg3", help="a libjpeg-turbo 3.x cjpeg (12-bit, lossless)")
    args = parser.parse_args()
    if OUT.exists():
        shutil.rmtree(OUT)
    OUT.mkdir(parents=True)
    with tempfile.TemporaryDirectory() as tmp:
        corpus = Corpus(Path(tmp))
        for name, opts in CJPEG_CASES.items():
            corpus.cjpeg(f"{name}.jpg", opts)
        corpus.cjpeg("grey.jpg", ["-grayscale"], corpus.pgm)
        corpus.cjpeg("grey_progressive_restart.jpg", ["-progressive", "-restart", "2"], corpus.pgm)
        corpus.scans()
        corpus.pillow_cmyk()
        corpus.imagemagick()
        corpus.high_precision(args.cjpeg3)
        corpus.manifest()


if __name__ == "__main__":
    main()
