#!/usr/bin/env python3
"""Writes src/app/display/lut_tables.rs: the 256-entry colour tables of the display.

- fire: ImageJ's "Fire" LUT (ij/plugin/LutLoader.java, public domain): 32 control points
  spread over 256 entries by LutLoader.interpolate, reproduced here step for step
  (Java's (int) and (byte) casts truncate).
- viridis: matplotlib's published table (matplotlib/_cm_listed.py, _viridis_data; the
  colour map by Nathaniel J. Smith, Stefan van der Walt and Eric Firing, CC0), each
  component round(255 * v).

Run: python3 scripts/display/make_luts.py  (needs matplotlib)
"""
from pathlib import Path

FIRE_R = [0, 0, 1, 25, 49, 73, 98, 122, 146, 162, 173, 184, 195, 207, 217, 229, 240, 252,
          255, 255, 255, 255, 255, 255, 255, 255, 255, 255, 255, 255, 255, 255]
FIRE_G = [0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 14, 35, 57, 79, 101, 117, 133, 147, 161,
          175, 190, 205, 219, 234, 248, 255, 255, 255, 255]
FIRE_B = [0, 61, 96, 130, 165, 192, 220, 227, 210, 181, 151, 122, 93, 64, 35, 5, 0, 0, 0,
          0, 0, 0, 0, 0, 0, 0, 0, 35, 98, 160, 223, 255]


def imagej_interpolate(points):
    n = len(points)
    scale = n / 256.0
    out = []
    for i in range(256):
        i1 = int(i * scale)
        i2 = min(i1 + 1, n - 1)
        fraction = i * scale - i1
        out.append(int((1.0 - fraction) * points[i1] + fraction * points[i2]))
    return out


def fire():
    r, g, b = (imagej_interpolate(p) for p in (FIRE_R, FIRE_G, FIRE_B))
    return list(zip(r, g, b))


def viridis():
    from matplotlib._cm_listed import _viridis_data

    assert len(_viridis_data) == 256
    return [tuple(int(round(255 * c)) for c in rgb) for rgb in _viridis_data]


def rust_table(name, doc, rows):
    lines = [f"/// {doc}", f"pub const {name}: [[u8; 3]; 256] = ["]
    for i in range(0, 256, 4):
        lines.append("    " + " ".join(f"[{r}, {g}, {b}]," for r, g, b in rows[i:i + 4]))
    lines.append("];")
    return "\n".join(lines)


def main():
    root = Path(__file__).resolve().parents[2]
    text = "\n\n".join([
        "//! Colour tables of the display, written by scripts/display/make_luts.py (do not edit).",
        rust_table("FIRE", "ImageJ's Fire: its 32 control points interpolated as LutLoader does.",
                   fire()),
        rust_table("VIRIDIS", "matplotlib's viridis (CC0), each component round(255 · v).",
                   viridis()),
    ]) + "\n"
    (root / "src/app/display/lut_tables.rs").write_text(text)


if __name__ == "__main__":
    main()
