"""Checks cudalens's median, equalize and threshold outputs against OpenCV (medianBlur,
equalizeHist, threshold with THRESH_BINARY, THRESH_OTSU and THRESH_TRIANGLE on the filter's
luma), the common definitions the contract follows. OpenCV's binary threshold T keeps
`src > T`, the filter's level L keeps `luma >= L`: L = T + 1.
OpenCV's triangle (ImageJ's) widens the histogram by one empty bin at each end and moves
its result by one bin; the filter's follows scikit-image's, so it is only reported.
Usage: opencv_check.py CUDALENS BACKEND OUTDIR"""
import subprocess
import sys

import cv2
import numpy as np
from PIL import Image



def luma(rgba):
    """The filter's luma bin: (0.2126 R + 0.7152 G) + 0.0722 B in float32, each operation
    rounded, then rounded half away from zero."""
    r, g, b = (rgba[..., c].astype(np.float32) for c in range(3))
    y = (np.float32(0.2126) * r + np.float32(0.7152) * g) + np.float32(0.0722) * b
    return np.clip(np.floor(y.astype(np.float64) + 0.5), 0, 255).astype(np.uint8)


def binary(y, flags, level=0):
    """OpenCV's binary threshold of the luma as RGB, for the filter's `level`."""
    _, bw = cv2.threshold(y, level - 1, 255, cv2.THRESH_BINARY | flags)
    return np.dstack([bw] * 3)


# Printed, not failed on: a different definition (see above).
REPORTED_ONLY = {"threshold:method=triangle"}

binary_path, backend, out = sys.argv[1:4]
worst = 0
for photo in ["astronaut.png", "coffee.png", "camera.png"]:
    src = np.asarray(Image.open(f"tests/data/{photo}").convert("RGBA"))
    cases = {
        "equalize": np.dstack([cv2.equalizeHist(np.ascontiguousarray(src[..., c])) for c in range(3)]),
        # OpenCV's medianBlur replicates the border, as the contract clamps to the edge.
        "median:radius=1": cv2.medianBlur(np.ascontiguousarray(src[..., :3]), 3),
        "median:radius=2": cv2.medianBlur(np.ascontiguousarray(src[..., :3]), 5),
        "threshold:level=100": binary(luma(src), 0, 100),
        "threshold:method=otsu": binary(luma(src), cv2.THRESH_OTSU),
        "threshold:method=triangle": binary(luma(src), cv2.THRESH_TRIANGLE),
    }
    for spec, want in cases.items():
        path = f"{out}/cv-{photo}-{spec.replace(':', '-').replace('=', '')}.png"
        subprocess.run([binary_path, "apply", f"tests/data/{photo}", "-o", path, "--force",
                        "--backend", backend, "--filter", spec], check=True,
                       stderr=subprocess.DEVNULL)
        got = np.asarray(Image.open(path).convert("RGBA"))
        d = np.abs(got[..., :3].astype(int) - want.astype(int))
        note = ""
        if spec in REPORTED_ONLY:
            note = " (reported only: another definition)"
        else:
            worst = max(worst, d.max())
        print(f"{photo} {spec} ({backend}) vs OpenCV: max diff {d.max()}, differing {(d > 0).sum()}{note}")
sys.exit(0 if worst == 0 else 1)
