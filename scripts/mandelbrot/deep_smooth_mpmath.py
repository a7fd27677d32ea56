#!/usr/bin/env python3
"""Dwells, continuous escape values and distance estimates of sampled pixels of deep views, by direct
iteration in mpmath: an answer independent of the Rust code (its decimals, fixed point,
perturbation and BLA) that the tests compare deep smooth colouring with
(tests/data/deep_smooth_mpmath.json).

Pixel (x, y) of a W x H view of span S is p = (re + (2x + 1 - W) S / (2W),
im - (2y + 1 - H) S / (2W)). The Mandelbrot set iterates z <- z^2 + p from z = p, a Julia
set z <- z^2 + c from z = p; the dwell n counts steps while |z|^2 < 4, at most max_dwell.
An escaped point goes on until |z|^2 >= 65536 (m more steps, at most 16) and its
continuous value is nu = n + m + 1 - log2(log2 |z|^2) (src/mandelbrot/cpu.rs), and its
distance estimate in pixels is |z| ln |z|^2 / (|z'| S / W) there, z' = dz/dc for the
Mandelbrot set (z'_0 = 1, z' <- 2 z z' + 1), dz/dz_0 for a Julia set (z'_0 = 1,
z' <- 2 z z'); 0 for points that did not escape. All in mpmath here.

Usage: python3 scripts/mandelbrot/deep_smooth_mpmath.py [OUT.json]
"""

import json
import random
import re
import sys

import mpmath

# (name, fractal c or None, centre re, centre im, span, width, height, max dwell, samples, seed)
VIEWS = [
    ("seahorse period-8007 minibrot 1e-31", None,
     "-0.74364388703715870475219150611477977821525621", "0.13182590420531197049313205638514067897295228",
     "1e-31", 32, 18, 60000, 24, 1),
    ("period-137 minibrot 1e-100", None,
     "-3.0025380958279829663174554066474337133326969475092783119974473e-52",
     "1.00000000000000000000000000000000000000000000000000089833558468474097854960626240221138"
     "331024583861465393794547117",
     "1e-100", 32, 18, 10000, 16, 2),
    ("period-403 minibrot 1e-300", None,
     "-3.4179996394862087373366181447586776364983578540324421822220509114780220902394504751447"
     "42063066402053430251475330475560814818555183479626934153234879978566214462914e-152",
     "0.99999999999999999999999999999999999999999999999999999999999999999999999999999999999999"
     "9999999999999999999999999999999999999999999999999999999999999999931501371751377156395976"
     "9613108523769033028169987251693183740459915331455746497936121692454132269564795864705923"
     "2812770077972867425250636857916387545681896824927593",
     "1e-300", 32, 18, 100000, 12, 3),
    ("Julia c = -0.75+0.1i 1e-30", ("-0.75", "0.1"),
     "0.0113117792465813810111197589725819967", "0.79532348632029504472286739024026457254",
     "1e-30", 32, 18, 2000, 24, 4),
]


def pixel(x, y, width, height, centre, span):
    return centre + mpmath.mpc((2 * x + 1 - width) * span / (2 * width),
                               -(2 * y + 1 - height) * span / (2 * width))


def continuous(z, c, max_dwell, julia, step):
    """(dwell, nu, distance in pixels)."""
    a = 0 if julia else 1
    dz = mpmath.mpc(1)
    n = 0
    while n < max_dwell and abs(z) ** 2 < 4:
        dz = 2 * z * dz + a
        z = z * z + c
        n += 1
    if n >= max_dwell:
        return n, float(n), 0.0
    m = 0
    while abs(z) ** 2 < 65536 and m < 16:
        dz = 2 * z * dz + a
        z = z * z + c
        m += 1
    r2 = abs(z) ** 2
    nu = float(n + m + 1 - mpmath.log(mpmath.log(r2, 2), 2))
    de = float(abs(z) * mpmath.log(r2) / (abs(dz) * step))
    return n, nu, de


def main():
    out = sys.argv[1] if len(sys.argv) > 1 else "tests/data/deep_smooth_mpmath.json"
    views = []
    for name, julia, re_text, im_text, span_text, width, height, max_dwell, count, seed in VIEWS:
        exp = int(span_text.split("e")[1])
        mpmath.mp.dps = -exp + 40
        centre = mpmath.mpc(mpmath.mpf(re_text), mpmath.mpf(im_text))
        span = mpmath.mpf(span_text)
        rng = random.Random(seed)
        pixels = sorted(rng.sample([(x, y) for y in range(height) for x in range(width)], count))
        rows = []
        for x, y in pixels:
            p = pixel(x, y, width, height, centre, span)
            c = p if julia is None else mpmath.mpc(mpmath.mpf(julia[0]), mpmath.mpf(julia[1]))
            n, nu, de = continuous(p, c, max_dwell, julia is not None, span / width)
            rows.append([x, y, n, round(nu, 7), float(f"{de:.9g}")])
            print(f"{name} ({x}, {y}): {n} {nu:.7f} {de:.9g}", file=sys.stderr)
        views.append({
            "name": name,
            "julia_c": None if julia is None else f"{julia[0]},{julia[1]}",
            "center": f"{re_text},{im_text}",
            "span": span_text,
            "width": width,
            "height": height,
            "max_dwell": max_dwell,
            "precision_digits": mpmath.mp.dps,
            "pixels": rows,
        })
    text = json.dumps({"generator": "scripts/mandelbrot/deep_smooth_mpmath.py", "views": views},
                      indent=1)
    # One pixel [x, y, dwell, nu, distance] a line.
    text = re.sub(r"\[\s*(\d+),\s*(\d+),\s*(\d+),\s*([\d.e+-]+),\s*([\d.e+-]+)\s*\]",
                  r"[\1, \2, \3, \4, \5]", text)
    with open(out, "w") as f:
        f.write(text + "\n")


if __name__ == "__main__":
    main()
