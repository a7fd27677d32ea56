"""Checks cudalens's median and equalize outputs against OpenCV (medianBlur, equalizeHist),
the common definitions the contract follows. Usage: opencv_check.py CUDALENS BACKEND OUTDIR"""
import subprocess
import sys

import cv2
import numpy as np
from PIL import Image

binary, backend, out = sys.argv[1:4]
worst = 0
for photo in ["astronaut.png", "coffee.png", "camera.png"]:
    src = np.asarray(Image.open(f"tests/data/{photo}").convert("RGBA"))
    cases = {
        "equalize": np.dstack([cv2.equalizeHist(np.ascontiguousarray(src[..., c])) for c in range(3)]),
        # OpenCV's medianBlur replicates the border, as the contract clamps to the edge.
        "median:radius=1": cv2.medianBlur(np.ascontiguousarray(src[..., :3]), 3),
        "median:radius=2": cv2.medianBlur(np.ascontiguousarray(src[..., :3]), 5),
    }
    for spec, want in cases.items():
        path = f"{out}/cv-{photo}-{spec.replace(':', '-').replace('=', '')}.png"
        subprocess.run([binary, "apply", f"tests/data/{photo}", "-o", path, "--force",
                        "--backend", backend, "--filter", spec], check=True,
                       stderr=subprocess.DEVNULL)
        got = np.asarray(Image.open(path).convert("RGBA"))
        d = np.abs(got[..., :3].astype(int) - want.astype(int))
        worst = max(worst, d.max())
        print(f"{photo} {spec} ({backend}) vs OpenCV: max diff {d.max()}, differing {(d > 0).sum()}")
sys.exit(0 if worst == 0 else 1)
