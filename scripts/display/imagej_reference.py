#!/usr/bin/env python3
"""Writes tests/data/display/: small typed images and what ImageJ makes of them, the
independent reference of the display statistics (tests/display_imagej.rs).

Images (raw, little-endian, row-major, 128x96):
- grey16.raw: a crop of camera.png widened to 16 bits (v * 200 + 3000, plus noise);
- float32.raw: the same crop as floats, v / 50 - 1.7, plus noise.
camera.png itself (8-bit) is read from tests/data.

For each, ImageJ 1.x (Debian's `imagej` package, headless under xvfb-run) reports the
default display range (resetMinAndMax), the 256-bin histogram of getStatistics, and the
window of Process > Enhance Contrast with saturated=0.35 (which counts 16-bit data by
value, 65536 bins, and other data in the 256 bins); for the 16-bit and float images also
ImageJ's 8-bit conversion through that window (<name>_imagej8.raw), what its screen shows.

Run: python3 scripts/display/imagej_reference.py   (needs numpy, Pillow, imagej, xvfb-run)
"""
import json
import subprocess
import tempfile
from pathlib import Path

import numpy as np
from PIL import Image

W, H = 128, 96
IJ_JAR = "/usr/share/java/ij.jar"

MACRO = r"""
function report(name) {
    resetMinAndMax();
    getMinAndMax(lo, hi);
    getStatistics(area, mean, min, max, std, hist);
    run("Enhance Contrast", "saturated=0.35");
    getMinAndMax(elo, ehi);
    s = "{\"name\": \"" + name + "\", \"default\": [" + d2s(lo, 9) + ", " + d2s(hi, 9) + "]";
    s = s + ", \"enhance\": [" + d2s(elo, 9) + ", " + d2s(ehi, 9) + "], \"histogram\": [";
    for (i = 0; i < hist.length; i++) {
        if (i > 0) s = s + ", ";
        s = s + hist[i];
    }
    print("JSON " + s + "]}");
    if (bitDepth() != 8) {
        run("8-bit");
        saveAs("Raw Data", getDirectory("temp") + "cudalens_" + name + "_8bit.raw");
    }
    close();
}
dir = getArgument();
print("VERSION " + getVersion());
open(dir + "/camera.png");
makeRectangle(200, 150, 128, 96);
run("Crop");
report("grey8");
run("Raw...", "open=[" + dir + "/grey16.raw] image=[16-bit Unsigned] width=128 height=96 little-endian");
report("grey16");
run("Raw...", "open=[" + dir + "/float32.raw] image=[32-bit Real] width=128 height=96 little-endian");
report("float32");
"""


def main():
    root = Path(__file__).resolve().parents[2]
    out = root / "tests/data/display"
    out.mkdir(parents=True, exist_ok=True)
    camera = np.asarray(Image.open(root / "tests/data/camera.png").convert("L"))
    crop = camera[150:150 + H, 200:200 + W].astype(np.float64)
    rng = np.random.default_rng(20261128)
    grey16 = np.clip(crop * 200 + 3000 + rng.normal(0, 150, crop.shape), 0, 65535)
    grey16 = grey16.round().astype("<u2")
    float32 = (crop / 50 - 1.7 + rng.normal(0, 0.05, crop.shape)).astype("<f4")
    (out / "grey16.raw").write_bytes(grey16.tobytes())
    (out / "float32.raw").write_bytes(float32.tobytes())
    with tempfile.TemporaryDirectory() as tmp:
        Image.open(root / "tests/data/camera.png").save(Path(tmp) / "camera.png")
        for name in ("grey16.raw", "float32.raw"):
            (Path(tmp) / name).write_bytes((out / name).read_bytes())
        macro = Path(tmp) / "reference.ijm"
        macro.write_text(MACRO)
        run = subprocess.run(
            ["xvfb-run", "-a", "java", "-jar", IJ_JAR, "-batch", str(macro), tmp],
            capture_output=True, text=True, timeout=300, check=True)
    temp = Path(tempfile.gettempdir())
    for name in ("grey16", "float32"):
        shown = temp / f"cudalens_{name}_8bit.raw"
        (out / f"{name}_imagej8.raw").write_bytes(shown.read_bytes())
        shown.unlink()
    results = [json.loads(line[5:]) for line in run.stdout.splitlines() if line.startswith("JSON ")]
    assert len(results) == 3, run.stdout + run.stderr
    ij_version = next((l[8:] for l in run.stdout.splitlines() if l.startswith("VERSION ")),
                      "unknown")
    doc = {"imagej": ij_version, "width": W, "height": H, "images": results}
    (out / "imagej_reference.json").write_text(json.dumps(doc, indent=1) + "\n")


if __name__ == "__main__":
    main()
