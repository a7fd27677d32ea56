// bilateral.cu: smooths flat areas and keeps edges.
//
// Teaches a neighbourhood loop. Every neighbour within radius gets a weight that falls
// with its distance (sigma_space, in pixels) and with its colour difference from the
// centre (sigma_range, in 0..255 units), so pixels across an edge hardly count. Cost grows
// with (2 radius + 1)^2 reads per pixel: the texture cache serves the overlap.
// @param int radius 1..8 = 3
// @param float sigma_space 0.5..8 = 2
// @param float sigma_range 1..128 = 24
uchar4 pixel(int x, int y, Image src, Params p)
{
    const float4 centre = to_float4(read(src, x, y));
    const float space = -0.5f / (p.sigma_space * p.sigma_space);
    const float range = -0.5f / (p.sigma_range * p.sigma_range);
    float4 sum = make_float4(0.0f, 0.0f, 0.0f, 0.0f);
    float total = 0.0f;
    for (int dy = -p.radius; dy <= p.radius; ++dy) {
        for (int dx = -p.radius; dx <= p.radius; ++dx) {
            const float4 n = to_float4(read(src, x + dx, y + dy));
            const float dr = n.x - centre.x, dg = n.y - centre.y, db = n.z - centre.z;
            const float w = __expf(space * (float)(dx * dx + dy * dy) +
                                   range * (dr * dr + dg * dg + db * db));
            sum.x += w * n.x;
            sum.y += w * n.y;
            sum.z += w * n.z;
            total += w;
        }
    }
    // The centre's own weight is 1, so total >= 1.
    return make_uchar4(clamp255(sum.x / total), clamp255(sum.y / total),
                       clamp255(sum.z / total), (unsigned char)centre.w);
}
