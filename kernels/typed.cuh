// typed.cuh: what the kernels for every stored pixel format share.
//
// A stored format is samples of type T (unsigned char, unsigned short, float) with C
// channels: 1 (grey) or 4 (RGBA; RGB is stored as RGBA with opaque alpha). A filter
// computes the colour channels (1 for grey, R, G and B otherwise) and keeps alpha. Values
// are read as elements (integer textures with CU_TRSF_READ_AS_INTEGER, no normalisation)
// and held as f32 in the type's units, which is exact for every 8- and 16-bit value.
// Computed values are stored by the CPU reference's rule (Sample::from_f32 / from_f64 in
// src/pixels/sample.rs): integers round half away from zero and saturate, NaN becomes 0;
// floats are stored as they are. Alpha is stored unchanged (bit for bit for floats).
//
// TYPED_FORMATS(M) expands M(suffix, T, C) once per format that has no RGBA8 fast path;
// a filter names its kernel for each `<filter>_<suffix>`, as `typed_kernel!` in
// src/filters/gpu_stage.rs looks them up.
#pragma once

#include "cudalens_constants.h"

#define TYPED_FORMATS(M)                                                                     \
    M(u8x1, unsigned char, 1)                                                                \
    M(u16x1, unsigned short, 1)                                                              \
    M(u16x4, unsigned short, 4)                                                              \
    M(f32x1, float, 1)                                                                       \
    M(f32x4, float, 4)

// The CUDA vector type of one pixel of C samples of type T.
template <typename T, int C> struct Texel;
template <> struct Texel<unsigned char, 1> { typedef unsigned char type; };
template <> struct Texel<unsigned char, 4> { typedef uchar4 type; };
template <> struct Texel<unsigned short, 1> { typedef unsigned short type; };
template <> struct Texel<unsigned short, 4> { typedef ushort4 type; };
template <> struct Texel<float, 1> { typedef float type; };
template <> struct Texel<float, 4> { typedef float4 type; };

// Whether format (T, C) runs the strip walker's kernels (Sobel, 3x3 median): texels of at
// most TYPED_STRIP_MAX_TEXEL_BYTES; wider ones one thread a pixel (slides_strips in
// src/filters/gpu_stage.rs chooses the launch by the same rule).
template <typename T, int C> struct SlidesStrips {
    static constexpr bool value = sizeof(typename Texel<T, C>::type) <= TYPED_STRIP_MAX_TEXEL_BYTES;
};

// Colour channels a filter computes for C stored channels.
template <int C> struct Colour { static const int count = C == 1 ? 1 : 3; };

// Full scale of a sample type (white): 255, 65535, 1.
template <typename T> struct FullScale;
template <> struct FullScale<unsigned char> { static constexpr float value = 255.0f; };
template <> struct FullScale<unsigned short> { static constexpr float value = 65535.0f; };
template <> struct FullScale<float> { static constexpr float value = 1.0f; };

__device__ __forceinline__ float4 texel_values(unsigned char v) { return make_float4(v, 0, 0, 0); }
__device__ __forceinline__ float4 texel_values(uchar4 v) { return make_float4(v.x, v.y, v.z, v.w); }
__device__ __forceinline__ float4 texel_values(unsigned short v) { return make_float4(v, 0, 0, 0); }
__device__ __forceinline__ float4 texel_values(ushort4 v) { return make_float4(v.x, v.y, v.z, v.w); }
__device__ __forceinline__ float4 texel_values(float v) { return make_float4(v, 0, 0, 0); }
__device__ __forceinline__ float4 texel_values(float4 v) { return v; }

// The pixel at (x, y), clamp-to-edge through the texture's addressing, as f32 values.
template <typename T, int C>
__device__ __forceinline__ float4 load_values(cudaTextureObject_t src, int x, int y)
{
    typedef typename Texel<T, C>::type V;
    return texel_values(tex2D<V>(src, (float)x + 0.5f, (float)y + 0.5f));
}

// The texel at (x, y) as the texture holds it (integers not converted), clamp-to-edge.
template <typename T, int C>
__device__ __forceinline__ typename Texel<T, C>::type load_texel(cudaTextureObject_t src, int x, int y)
{
    return tex2D<typename Texel<T, C>::type>(src, (float)x + 0.5f, (float)y + 0.5f);
}

// Channel c (0..2) of an integer texel.
__device__ __forceinline__ unsigned int texel_channel(unsigned char v, int) { return v; }
__device__ __forceinline__ unsigned int texel_channel(unsigned short v, int) { return v; }
__device__ __forceinline__ unsigned int texel_channel(ushort4 v, int c) { return c == 0 ? v.x : c == 1 ? v.y : v.z; }

// This thread's pixel in a launch of one thread a pixel (blocks of TYPED_BLOCK_X x
// TYPED_BLOCK_Y): its coordinates and values; false past the image.
template <typename T, int C>
__device__ __forceinline__ bool typed_pixel(cudaTextureObject_t src, int width, int height, int& x,
                                            int& y, float4& v)
{
    x = blockIdx.x * TYPED_BLOCK_X + threadIdx.x;
    y = blockIdx.y * TYPED_BLOCK_Y + threadIdx.y;
    if (x >= width || y >= height) return false;
    v = load_values<T, C>(src, x, y);
    return true;
}

// Channel c (0..3) of a pixel's values.
__device__ __forceinline__ float channel_of(float4 v, int c)
{
    return c == 0 ? v.x : c == 1 ? v.y : c == 2 ? v.z : v.w;
}

__device__ __forceinline__ void set_channel(float4& v, int c, float x)
{
    if (c == 0) v.x = x;
    else if (c == 1) v.y = x;
    else if (c == 2) v.z = x;
    else v.w = x;
}

// A computed value stored in T (Sample::from_f32 and from_f64).
template <typename T> __device__ __forceinline__ T sample_from_f64(double v);
template <> __device__ __forceinline__ unsigned char sample_from_f64<unsigned char>(double v)
{
    return v != v ? 0 : (unsigned char)fmin(fmax(round(v), 0.0), 255.0);
}
template <> __device__ __forceinline__ unsigned short sample_from_f64<unsigned short>(double v)
{
    return v != v ? 0 : (unsigned short)fmin(fmax(round(v), 0.0), 65535.0);
}
template <> __device__ __forceinline__ float sample_from_f64<float>(double v)
{
    return __double2float_rn(v);
}
template <typename T> __device__ __forceinline__ T sample_from_f32(float v)
{
    return sample_from_f64<T>((double)v);
}
template <> __device__ __forceinline__ float sample_from_f32<float>(float v) { return v; }

// A texel at (x, y); outside the surface a launch error (trap), or dropped where `mode` is
// cudaBoundaryModeZero (the strip walker's apron lanes and last rows).
typedef cudaSurfaceBoundaryMode Bounds;
#define TYPED_WRITE_TEXEL(V, BYTES)                                                          \
    __device__ __forceinline__ void write_texel(cudaSurfaceObject_t dst, int x, int y, V v,  \
                                                Bounds mode = cudaBoundaryModeTrap)          \
    {                                                                                        \
        surf2Dwrite(v, dst, x * BYTES, y, mode);                                             \
    }
TYPED_WRITE_TEXEL(unsigned char, 1)
TYPED_WRITE_TEXEL(uchar4, 4)
TYPED_WRITE_TEXEL(unsigned short, 2)
TYPED_WRITE_TEXEL(ushort4, 8)
TYPED_WRITE_TEXEL(float, 4)
TYPED_WRITE_TEXEL(float4, 16)

// Stores `out` (the colour channels, computed: converted by sample_from_f32) with the
// alpha of `source` (stored as read).
template <typename T, int C>
__device__ __forceinline__ void store_values(cudaSurfaceObject_t dst, int x, int y, float4 out,
                                             float4 source, Bounds mode = cudaBoundaryModeTrap);
#define TYPED_STORE_GREY(T)                                                                  \
    template <>                                                                              \
    __device__ __forceinline__ void store_values<T, 1>(cudaSurfaceObject_t dst, int x, int y, \
                                                       float4 out, float4, Bounds mode)      \
    {                                                                                        \
        write_texel(dst, x, y, sample_from_f32<T>(out.x), mode);                             \
    }
TYPED_STORE_GREY(unsigned char)
TYPED_STORE_GREY(unsigned short)
TYPED_STORE_GREY(float)
template <>
__device__ __forceinline__ void store_values<unsigned short, 4>(cudaSurfaceObject_t dst, int x,
                                                                int y, float4 out, float4 source,
                                                                Bounds mode)
{
    write_texel(dst, x, y,
                make_ushort4(sample_from_f32<unsigned short>(out.x),
                             sample_from_f32<unsigned short>(out.y),
                             sample_from_f32<unsigned short>(out.z), (unsigned short)source.w),
                mode);
}
template <>
__device__ __forceinline__ void store_values<float, 4>(cudaSurfaceObject_t dst, int x, int y,
                                                       float4 out, float4 source, Bounds mode)
{
    write_texel(dst, x, y, make_float4(out.x, out.y, out.z, source.w), mode);
}

// The strip walker's reads and stores (slide_window_strip, common.cuh) for format (T, C):
// texels as f32 values, the centre's alpha kept, the output's colour channels stored with
// it, dropped outside the surface.
template <typename T, int C> struct TypedStrip {
    typedef float4 Texel;
    typedef float Kept;
    static __device__ __forceinline__ Texel load(cudaTextureObject_t src, int x, int y) { return load_values<T, C>(src, x, y); }
    static __device__ __forceinline__ Kept kept(Texel p) { return p.w; }
    static __device__ __forceinline__ void store(cudaSurfaceObject_t dst, int x, int y, float4 out, Kept alpha)
    {
        store_values<T, C>(dst, x, y, out, make_float4(0.0f, 0.0f, 0.0f, alpha), cudaBoundaryModeZero);
    }
};

// Rec. 709 luma of a pixel's values in the type's units, in the reference's order (no
// FMA contraction); grey counts as R = G = B.
template <int C>
__device__ __forceinline__ float typed_luma(float4 v)
{
    const float r = v.x, g = C == 1 ? v.x : v.y, b = C == 1 ? v.x : v.z;
    return __fadd_rn(__fadd_rn(__fmul_rn(0.2126f, r), __fmul_rn(0.7152f, g)),
                     __fmul_rn(0.0722f, b));
}

// The order key of a float (f32::total_cmp as an unsigned order; filters/median/keys.rs).
__device__ __forceinline__ unsigned int float_key(float v)
{
    const unsigned int b = __float_as_uint(v);
    return (b & 0x80000000u) ? ~b : (b | 0x80000000u);
}

__device__ __forceinline__ float float_of_key(unsigned int k)
{
    return __uint_as_float((k & 0x80000000u) ? (k & 0x7fffffffu) : ~k);
}

// The bin of a finite value over [lo, hi] in `bins` bins, as the references compute it in
// f64: floor((v - lo) / (hi - lo) * bins), the top value in the last bin, 0 for hi <= lo.
__device__ __forceinline__ unsigned int range_bin(float v, float lo, float hi, unsigned int bins)
{
    const double unit = hi > lo ? __ddiv_rn(__dsub_rn((double)v, (double)lo),
                                            __dsub_rn((double)hi, (double)lo))
                                : 0.0;
    const double scaled = __dmul_rn(unit, (double)bins);
    const unsigned int b = scaled >= 4294967295.0 ? 0xffffffffu : (unsigned int)scaled;
    return b < bins - 1 ? b : bins - 1;
}

__device__ __forceinline__ bool is_finite_f32(float v) { return (__float_as_uint(v) & 0x7f800000u) != 0x7f800000u; }

// The range kernels (a float image's least and greatest order keys, a channel's or the
// luma's): a thread folds the TYPED_RANGE_ROWS pixels of its column TYPED_BLOCK_Y rows
// apart into its own least and greatest key (fold_key), then each warp folds its threads'
// into the two words with one atomicMin and one atomicMax (warp_fold_range). Atomics on
// one word serialise in L2: one pair a warp of pixels took 1.2 ms at 4K RGBA, one pair a
// warp of columns takes a few microseconds.
// Grid: (ceil(W / BLOCK_X), ceil(H / (BLOCK_Y * TYPED_RANGE_ROWS))), block (BLOCK_X, BLOCK_Y).
__device__ __forceinline__ int range_first_row() { return blockIdx.y * TYPED_BLOCK_Y * TYPED_RANGE_ROWS + threadIdx.y; }

__device__ __forceinline__ void fold_key(unsigned int& lo, unsigned int& hi, float v)
{
    if (!is_finite_f32(v)) return;
    const unsigned int k = float_key(v);
    lo = min(lo, k);
    hi = max(hi, k);
}

// Every lane of the warp calls it; a lane with nothing folded passes lo = ~0, hi = 0.
__device__ __forceinline__ void warp_fold_range(unsigned int* lo_hi, unsigned int lo, unsigned int hi)
{
#pragma unroll
    for (int d = 16; d > 0; d >>= 1) {
        lo = min(lo, __shfl_xor_sync(0xffffffffu, lo, d));
        hi = max(hi, __shfl_xor_sync(0xffffffffu, hi, d));
    }
    if (((threadIdx.y * blockDim.x + threadIdx.x) & 31) == 0 && lo <= hi) {
        atomicMin(lo_hi, lo);
        atomicMax(lo_hi + 1, hi);
    }
}

