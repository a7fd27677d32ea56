// The cudalens user-kernel prelude: compiled in front of every user kernel.
//
// Self-contained: NVRTC is given no header paths, so there are no standard headers. Images
// are RGBA8, read through a texture object with point filtering, clamp-to-edge
// addressing and integer reads (tex2D<uchar4>), and written through a surface object
// whose x is in BYTES. The arithmetic helpers round like the built-in filters' Rust
// reference (no FMA contraction), so a user kernel can match a built-in filter exactly.

// The source image of the per-pixel form: its texture and size.
struct Image {
    cudaTextureObject_t tex;
    int width;
    int height;
};

// Pixel (x, y) of a texture; coordinates outside the image give the nearest edge pixel.
__device__ __forceinline__ uchar4 read(cudaTextureObject_t tex, int x, int y)
{
    return tex2D<uchar4>(tex, (float)x + 0.5f, (float)y + 0.5f);
}

__device__ __forceinline__ uchar4 read(Image src, int x, int y)
{
    return read(src.tex, x, y);
}

// The pixel at normalised coordinates (u, v) in [0, 1] x [0, 1] (nearest pixel, clamped).
__device__ __forceinline__ uchar4 read_norm(Image src, float u, float v)
{
    return tex2D<uchar4>(src.tex, u * (float)src.width, v * (float)src.height);
}

// Writes pixel (x, y) of a surface (the byte offset is computed here).
__device__ __forceinline__ void write(cudaSurfaceObject_t dst, int x, int y, uchar4 v)
{
    surf2Dwrite(v, dst, x * (int)sizeof(uchar4), y);
}

// clamp(round(v), 0, 255), rounding half away from zero (like Rust's f32::round).
__device__ __forceinline__ unsigned char clamp255(float v)
{
    return (unsigned char)fminf(fmaxf(roundf(v), 0.0f), 255.0f);
}

__device__ __forceinline__ int clampi(int v, int lo, int hi)
{
    return v < lo ? lo : (v > hi ? hi : v);
}

__device__ __forceinline__ float clampf(float v, float lo, float hi)
{
    return fminf(fmaxf(v, lo), hi);
}

// Rec. 709 luma: (0.2126 r + 0.7152 g) + 0.0722 b, each step rounded, as the built-in
// filters compute it.
__device__ __forceinline__ float luma(uchar4 p)
{
    const float rg = __fadd_rn(__fmul_rn(0.2126f, (float)p.x), __fmul_rn(0.7152f, (float)p.y));
    return __fadd_rn(rg, __fmul_rn(0.0722f, (float)p.z));
}

// Channels as floats 0..255.
__device__ __forceinline__ float4 to_float4(uchar4 p)
{
    return make_float4((float)p.x, (float)p.y, (float)p.z, (float)p.w);
}

// A pixel from float channels (each rounded and clamped by clamp255).
__device__ __forceinline__ uchar4 from_float4(float4 v)
{
    return make_uchar4(clamp255(v.x), clamp255(v.y), clamp255(v.z), clamp255(v.w));
}

// A grey pixel of value v (rounded, clamped) with alpha a.
__device__ __forceinline__ uchar4 grey(float v, unsigned char a)
{
    const unsigned char g = clamp255(v);
    return make_uchar4(g, g, g, a);
}

__device__ __forceinline__ float lerpf(float a, float b, float t)
{
    return a + t * (b - a);
}
