// mandelbrot_pixels.cu: the Mandelbrot kernels that launch no grids, one thread per pixel in
// blocks of MANDEL_BLOCK_X x MANDEL_BLOCK_Y. A plain module (no relocatable device code, no
// device runtime), apart from mandelbrot.cu's refinement: a frame that does not refine runs
// no code linked for dynamic parallelism, and every frame ends with a kernel of this module.
//
// mandel_per_pixel_f32 / _f64: evaluate_pixel<T> (mandelbrot_eval.cuh) at every pixel: the
//   dwell, and the continuous escape value when `smooth` is given.
// mandel_colorize: out[i] = lut[clamp(dwell[i], 0, max_dwell)] (the LUT is built on the host).
// mandel_colorize_smooth: the palette's gradient at sqrt(nu) * density / 8 + offset,
//   interpolated in f32 with the Rust reference's operation order; the interior colour
//   where the dwell is max_dwell.
// Both write a linear buffer (the classic path's mapped pixel buffer) or, as *_surface, the
// display texture's array through a surface object (the external-memory path: no pixel
// buffer and no GL copy per frame). `failures` points at the refinement's failure counter:
// when it is not 0 the host refuses the frame and the colour kernels draw nothing.
#include "common.cuh"
#include "mandelbrot_eval.cuh"

#define MANDEL_BLOCK_X 32
#define MANDEL_BLOCK_Y 8

// ---- per pixel -------------------------------------------------------------------------

template <typename T>
__device__ void per_pixel(int* dwells, float* smooth, const MandelView& v)
{
    const int x = blockIdx.x * MANDEL_BLOCK_X + threadIdx.x;
    const int y = blockIdx.y * MANDEL_BLOCK_Y + threadIdx.y;
    if (x >= v.width || y >= v.height) return;
    const MandelPixel p = evaluate_pixel<T>(v, x, y, smooth != nullptr);
    const size_t i = (size_t)y * v.width + x;
    dwells[i] = p.dwell;
    if (smooth) smooth[i] = p.smooth;
}

#define MANDEL_PER_PIXEL_ENTRY_POINT(T, SUFFIX)                                                         \
    extern "C" __global__ void __launch_bounds__(MANDEL_BLOCK_X * MANDEL_BLOCK_Y)                      \
    mandel_per_pixel_##SUFFIX(int* dwells, float* smooth, MandelView v)                                 \
    {                                                                                                   \
        per_pixel<T>(dwells, smooth, v);                                                                \
    }

MANDEL_PER_PIXEL_ENTRY_POINT(float, f32)
MANDEL_PER_PIXEL_ENTRY_POINT(double, f64)

// ---- colour ----------------------------------------------------------------------------

// Where the colour kernels write: a linear W x H buffer (the classic path's mapped pixel
// buffer), or a surface over the display texture's array (the external-memory path).
struct LinearOut {
    uchar4* p;
    int width;
    __device__ __forceinline__ void store(int x, int y, uchar4 v) const { p[(size_t)y * width + x] = v; }
};

struct SurfaceOut {
    cudaSurfaceObject_t s;
    __device__ __forceinline__ void store(int x, int y, uchar4 v) const { store_pixel(s, x, y, v); }
};

// This thread's pixel, or false when it is outside or the refinement counted a failure.
__device__ __forceinline__ bool colour_pixel(int width, int height, const unsigned int* failures, int& x, int& y)
{
    x = blockIdx.x * MANDEL_BLOCK_X + threadIdx.x;
    y = blockIdx.y * MANDEL_BLOCK_Y + threadIdx.y;
    return x < width && y < height && *failures == 0;
}

template <typename Out>
__device__ void colorize_lut(const int* __restrict__ dwells, const uchar4* __restrict__ lut, Out out, int width,
                             int height, int max_dwell, const unsigned int* __restrict__ failures)
{
    int x, y;
    if (!colour_pixel(width, height, failures, x, y)) return;
    out.store(x, y, lut[clamp_int(dwells[(size_t)y * width + x], 0, max_dwell)]);
}

template <typename Out>
__device__ void colorize_smooth(const int* __restrict__ dwells, const float* __restrict__ smooth,
                                const uchar4* __restrict__ gradient, int steps, Out out, int width, int height,
                                int max_dwell, float density, float offset, unsigned int interior,
                                const unsigned int* __restrict__ failures)
{
    int x, y;
    if (!colour_pixel(width, height, failures, x, y)) return;
    const size_t i = (size_t)y * width + x;
    if (clamp_int(dwells[i], 0, max_dwell) == max_dwell) {
        out.store(x, y, make_uchar4(interior & 0xff, (interior >> 8) & 0xff, (interior >> 16) & 0xff, interior >> 24));
        return;
    }
    float v = smooth[i];
    if (!(v >= 0.0f)) v = 0.0f;
    const float pos = __fadd_rn(__fmul_rn(__fmul_rn(sqrtf(v), density), 0.125f), offset);
    const float t = __fsub_rn(pos, floorf(pos));
    const float g = __fmul_rn(t, (float)steps);
    const int i0 = min((int)g, steps - 1);
    const float f = __fsub_rn(g, (float)i0);
    const float4 c0 = to_float4(gradient[i0]), c1 = to_float4(gradient[(i0 + 1) % steps]);
    const auto mix = [f](float p, float q) { return to_u8(__fadd_rn(p, __fmul_rn(__fsub_rn(q, p), f))); };
    out.store(x, y, make_uchar4(mix(c0.x, c1.x), mix(c0.y, c1.y), mix(c0.z, c1.z), mix(c0.w, c1.w)));
}

extern "C" __global__ void __launch_bounds__(MANDEL_BLOCK_X * MANDEL_BLOCK_Y)
mandel_colorize(const int* __restrict__ dwells, const uchar4* __restrict__ lut, uchar4* out, int width, int height,
                int max_dwell, const unsigned int* __restrict__ failures)
{
    colorize_lut(dwells, lut, LinearOut{out, width}, width, height, max_dwell, failures);
}

extern "C" __global__ void __launch_bounds__(MANDEL_BLOCK_X * MANDEL_BLOCK_Y)
mandel_colorize_surface(const int* __restrict__ dwells, const uchar4* __restrict__ lut, cudaSurfaceObject_t out,
                        int width, int height, int max_dwell, const unsigned int* __restrict__ failures)
{
    colorize_lut(dwells, lut, SurfaceOut{out}, width, height, max_dwell, failures);
}

extern "C" __global__ void __launch_bounds__(MANDEL_BLOCK_X * MANDEL_BLOCK_Y)
mandel_colorize_smooth(const int* __restrict__ dwells, const float* __restrict__ smooth,
                       const uchar4* __restrict__ gradient, int steps, uchar4* out, int width, int height,
                       int max_dwell, float density, float offset, unsigned int interior,
                       const unsigned int* __restrict__ failures)
{
    colorize_smooth(dwells, smooth, gradient, steps, LinearOut{out, width}, width, height, max_dwell, density, offset,
                    interior, failures);
}

extern "C" __global__ void __launch_bounds__(MANDEL_BLOCK_X * MANDEL_BLOCK_Y)
mandel_colorize_smooth_surface(const int* __restrict__ dwells, const float* __restrict__ smooth,
                               const uchar4* __restrict__ gradient, int steps, cudaSurfaceObject_t out, int width,
                               int height, int max_dwell, float density, float offset, unsigned int interior,
                               const unsigned int* __restrict__ failures)
{
    colorize_smooth(dwells, smooth, gradient, steps, SurfaceOut{out}, width, height, max_dwell, density, offset,
                    interior, failures);
}
