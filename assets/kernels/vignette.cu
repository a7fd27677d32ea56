// vignette.cu: darkens the corners.
//
// Teaches parameters and normalised coordinates. Each `// @param` line becomes a field of
// Params, a slider in the editor and a CLI parameter (kernel:vignette.cu,strength=1.5):
// `float NAME MIN..MAX = DEFAULT`. (x + 0.5) / width is the pixel centre's position across
// the image, 0 at the left edge and 1 at the right, whatever the image's size.
// @param float strength 0..2 = 1
// @param float radius 0.1..1.5 = 0.6
uchar4 pixel(int x, int y, Image src, Params p)
{
    const float u = ((float)x + 0.5f) / (float)src.width - 0.5f;
    const float v = ((float)y + 0.5f) / (float)src.height - 0.5f;
    // 0 at the centre, 1 in the corners.
    const float d = sqrtf(2.0f * (u * u + v * v));
    // Full brightness inside the radius, fading beyond it.
    const float fade = clampf((d - p.radius) / (1.0f - p.radius + 1e-3f), 0.0f, 1.0f);
    const float gain = clampf(1.0f - p.strength * fade * fade, 0.0f, 1.0f);
    const float4 c = to_float4(read(src, x, y));
    return make_uchar4(clamp255(c.x * gain), clamp255(c.y * gain), clamp255(c.z * gain),
                       (unsigned char)c.w);
}
