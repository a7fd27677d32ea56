#!/usr/bin/env python3
"""Dwells of a few pixels of deep Julia views, by direct iteration in mpmath: an answer
independent of the Rust code (its decimals, fixed point and perturbation) that the tests
compare with (tests/data/julia_deep_dwells.json).

Each view is centred at a point of the Julia set of c (a preimage of the repelling fixed
point, by inverse iteration), rounded to a few digits below the pixel. Pixel (x, y) of a
W x H view of span S is z0 = (re + (2x + 1 - W) S / (2W), im - (2y + 1 - H) S / (2W)), and
the dwell counts z <- z^2 + c while |z|^2 < 4, at most max_dwell times (the contract of
src/mandelbrot/cpu.rs with z0 = the pixel).

Usage: python3 scripts/mandelbrot/julia_mpmath_dwells.py [OUT.json]
"""

import json
import random
import re
import sys

import mpmath

C = ("-0.75", "0.1")
VIEWS = [
    # (span exponent, width, height, max dwell, pixels sampled, seed)
    (-30, 24, 16, 2000, 40, 1),
    (-100, 24, 16, 2000, 24, 2),
]


def julia_point(c, steps, seed):
    """A point of the Julia set of c: a preimage of the repelling fixed point."""
    rng = random.Random(seed)
    z = (1 + mpmath.sqrt(1 - 4 * c)) / 2  # repelling for c near -0.75
    for _ in range(steps):
        z = mpmath.sqrt(z - c) * (1 if rng.random() < 0.5 else -1)
    return z


def format_fixed(x, places):
    """x as a positional decimal with at most `places` digits after the point."""
    scaled = int(mpmath.nint(x * mpmath.mpf(10) ** places))
    sign = "-" if scaled < 0 else ""
    s = str(abs(scaled)).rjust(places + 1, "0")
    text = f"{sign}{s[:-places]}.{s[-places:]}".rstrip("0").rstrip(".")
    return text if text not in ("", "-") else "0"


def dwell(z, c, max_dwell):
    n = 0
    while n < max_dwell and (z.real * z.real + z.imag * z.imag) < 4:
        z = z * z + c
        n += 1
    return n


def main():
    out = sys.argv[1] if len(sys.argv) > 1 else "tests/data/julia_deep_dwells.json"
    views = []
    for exp, width, height, max_dwell, count, seed in VIEWS:
        mpmath.mp.dps = -exp + 60
        c = mpmath.mpc(mpmath.mpf(C[0]), mpmath.mpf(C[1]))
        z = julia_point(c, 60, seed)
        places = -exp + 8
        re_text, im_text = format_fixed(z.real, places), format_fixed(z.imag, places)
        span = mpmath.mpf(10) ** exp
        centre = mpmath.mpc(mpmath.mpf(re_text), mpmath.mpf(im_text))
        rng = random.Random(seed)
        pixels = sorted(rng.sample([(x, y) for y in range(height) for x in range(width)], count))
        dwells = []
        for x, y in pixels:
            z0 = centre + mpmath.mpc((2 * x + 1 - width) * span / (2 * width),
                                     -(2 * y + 1 - height) * span / (2 * width))
            dwells.append([x, y, dwell(z0, c, max_dwell)])
            print(f"1e{exp} ({x}, {y}): {dwells[-1][2]}", file=sys.stderr)
        views.append({
            "c": f"{C[0]},{C[1]}",
            "center": f"{re_text},{im_text}",
            "span": f"1e{exp}",
            "width": width,
            "height": height,
            "max_dwell": max_dwell,
            "precision_digits": mpmath.mp.dps,
            "pixels": dwells,
        })
    text = json.dumps({"generator": "scripts/mandelbrot/julia_mpmath_dwells.py", "views": views}, indent=1)
    # One pixel [x, y, dwell] a line.
    text = re.sub(r"\[\s*(\d+),\s*(\d+),\s*(\d+)\s*\]", r"[\1, \2, \3]", text)
    with open(out, "w") as f:
        f.write(text + "\n")


if __name__ == "__main__":
    main()
