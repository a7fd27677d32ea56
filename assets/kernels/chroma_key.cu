// chroma_key.cu: makes a key colour (green screen) transparent.
//
// Teaches colour arithmetic in floats and a bool parameter. The alpha falls from opaque to
// transparent as a pixel's RGB distance to the key colour drops below
// tolerance + softness; show_matte shows that alpha as grey to tune the two thresholds.
// @param float key_r 0..255 = 0
// @param float key_g 0..255 = 255
// @param float key_b 0..255 = 0
// @param float tolerance 0..442 = 120
// @param float softness 0..200 = 40
// @param bool show_matte = false
uchar4 pixel(int x, int y, Image src, Params p)
{
    const uchar4 c = read(src, x, y);
    const float dr = (float)c.x - p.key_r;
    const float dg = (float)c.y - p.key_g;
    const float db = (float)c.z - p.key_b;
    const float distance = sqrtf(dr * dr + dg * dg + db * db);
    // 0 within the tolerance, 1 beyond tolerance + softness, linear between.
    const float keep = clampf((distance - p.tolerance) / fmaxf(p.softness, 1e-3f), 0.0f, 1.0f);
    const float alpha = keep * (float)c.w;
    if (p.show_matte) return grey(alpha, 255);
    return make_uchar4(c.x, c.y, c.z, clamp255(alpha));
}
