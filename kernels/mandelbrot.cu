// mandelbrot.cu: escape-time dwells of the Mandelbrot set, per pixel or by Mariani-Silver
// refinement with dynamic parallelism (CDP2), and LUT colouring into a mapped PBO.
//
// Contract (shared with the Rust reference, src/mandelbrot/): pixel (x, y) of a W x H view
// with centre (cx, cy) and span S is c = (cx + (x + 0.5 - W/2) * S/W, cy - (y + 0.5 - H/2) * S/W);
// z = c, n = 0; while n < max_dwell and |z|^2 < 4: z = z^2 + c, n += 1. The dwell is n.
// Every kernel exists for float and double (suffix _f32 / _f64); the host picks.
//
// mandel_per_pixel: one thread per pixel, blocks of MANDEL_BLOCK_X x MANDEL_BLOCK_Y.
//
// mandel_ms (Mariani-Silver): a grid of blocks, one rectangle each. The block evaluates
//   its rectangle's border (threads stride over the perimeter) and reduces the border
//   dwells to one "common dwell" (or MS_DIFFERENT) in shared memory. Then thread 0:
//   - common dwell: fill the rectangle with it (child grid of fill_rect, or in-block when
//     the rectangle has fewer than launch_min_pixels pixels);
//   - else, while depth + 1 < max_depth and the parts stay >= min_size: launch a child
//     grid of subdiv x subdiv blocks on the parts;
//   - else: evaluate every pixel (child grid of per_pixel_rect, or in-block below
//     launch_min_pixels).
//   Each pixel is computed at most once: the host sets every dwell to -1 first, border
//   evaluation stores what it computes, and children and leaves reuse stored dwells (the
//   border of a part lies partly on its parent's border). Sibling rectangles are disjoint,
//   so a stored dwell always comes from dwell_at, never from a fill; a store not yet visible
//   to another grid only costs a recomputation of the same value.
//   Child grids go to the fire-and-forget stream: CDP2 has no device-side synchronize, and
//   the host's stream completes only when every descendant grid has.
//   The first grid is init_subdiv x init_subdiv rectangles over the whole image. The
//   tuning values (init_subdiv, subdiv, max_depth, min_size, launch_min_pixels) come from
//   the host (MsTuning in src/cuda/tiles.rs, chosen by `cudalens bench --ms-sweep`).
//   Optionally every decision is appended to a record buffer (x, y, w, h | kind << 28)
//   that the UI draws as an overlay. Failed child launches are counted (counters[1]).
//
// mandel_colorize: out[i] = lut[dwell[i]] (the LUT, built on the host, holds the palette
//   and the interior colour), one thread per pixel into the mapped PBO.
#include "common.cuh"

#define MANDEL_BLOCK_X 32
#define MANDEL_BLOCK_Y 8
#define MS_BLOCK 128
#define MS_DIFFERENT (-1)
#define MS_NONE (-2)
#define MS_KIND_FILL 0
#define MS_KIND_SPLIT 1
#define MS_KIND_LEAF 2

// Arithmetic of the iteration. f64 follows the Rust reference operation for operation
// (each product and sum rounded, no FMA contraction), so GPU f64 dwells equal the CPU's
// exactly; f32 is left free to contract (it is the fast mode, compared within tolerance).
__device__ __forceinline__ double mul_(double a, double b) { return __dmul_rn(a, b); }
__device__ __forceinline__ double add_(double a, double b) { return __dadd_rn(a, b); }
__device__ __forceinline__ double sub_(double a, double b) { return __dsub_rn(a, b); }
__device__ __forceinline__ float mul_(float a, float b) { return a * b; }
__device__ __forceinline__ float add_(float a, float b) { return a + b; }
__device__ __forceinline__ float sub_(float a, float b) { return a - b; }

template <typename T>
__device__ __forceinline__ int dwell_at(int x, int y, int width, int height, double cx, double cy,
                                        double step, int max_dwell)
{
    const T s = (T)step;
    // c = (cx + (x + 0.5 - W/2) s, cy - (y + 0.5 - H/2) s), in the reference's order.
    const T cr = add_((T)cx, mul_(sub_(add_((T)x, (T)0.5), mul_((T)width, (T)0.5)), s));
    const T ci = sub_((T)cy, mul_(sub_(add_((T)y, (T)0.5), mul_((T)height, (T)0.5)), s));
    T zr = cr, zi = ci;
    int n = 0;
    while (n < max_dwell && add_(mul_(zr, zr), mul_(zi, zi)) < (T)4) {
        const T t = add_(sub_(mul_(zr, zr), mul_(zi, zi)), cr);
        zi = add_(mul_(mul_((T)2, zr), zi), ci);
        zr = t;
        ++n;
    }
    return n;
}

struct MsArgs {
    int* dwells;
    int width, height;
    double cx, cy, step;
    int max_dwell;
    int4* records;          // overlay records, or unused when record_capacity == 0
    unsigned int* counters; // [0] records written (may exceed capacity), [1] failed child launches
    int record_capacity;
    int init_subdiv, subdiv, max_depth, min_size, launch_min_pixels;
};

// The dwell of pixel (x, y): the stored one when an earlier border evaluation computed it,
// otherwise computed now (and stored when `keep`).
template <typename T>
__device__ __forceinline__ int dwell_once(const MsArgs& a, int x, int y, bool keep)
{
    int* slot = &a.dwells[(size_t)y * a.width + x];
    int d = *slot;
    if (d < 0) {
        d = dwell_at<T>(x, y, a.width, a.height, a.cx, a.cy, a.step, a.max_dwell);
        if (keep) *slot = d;
    }
    return d;
}

__device__ void ms_record(const MsArgs& a, int x0, int y0, int w, int h, int kind)
{
    if (a.record_capacity <= 0) return;
    const unsigned int i = atomicAdd(&a.counters[0], 1u);
    if (i < (unsigned int)a.record_capacity) a.records[i] = make_int4(x0, y0, w, h | (kind << 28));
}

template <typename T>
__global__ void per_pixel_rect(MsArgs a, int x0, int y0, int w, int h)
{
    const int x = x0 + blockIdx.x * blockDim.x + threadIdx.x;
    const int y = y0 + blockIdx.y * blockDim.y + threadIdx.y;
    if (x >= x0 + w || y >= y0 + h) return;
    a.dwells[(size_t)y * a.width + x] = dwell_once<T>(a, x, y, false);
}

__global__ void fill_rect(MsArgs a, int x0, int y0, int w, int h, int dwell)
{
    const int x = x0 + blockIdx.x * blockDim.x + threadIdx.x;
    const int y = y0 + blockIdx.y * blockDim.y + threadIdx.y;
    if (x >= x0 + w || y >= y0 + h) return;
    a.dwells[(size_t)y * a.width + x] = dwell;
}

// Device-side launches report failure (e.g. the pending-launch limit) only through
// cudaGetLastError: count them so the host can refuse an incomplete image.
__device__ __forceinline__ void check_child_launch(const MsArgs& a)
{
    if (cudaGetLastError() != cudaSuccess) atomicAdd(&a.counters[1], 1u);
}

__device__ __forceinline__ int same_dwell(int a, int b)
{
    if (a == MS_NONE) return b;
    if (b == MS_NONE) return a;
    return a == b ? a : MS_DIFFERENT;
}

template <typename T>
__device__ int border_dwell(const MsArgs& a, int x0, int y0, int w, int h)
{
    __shared__ int partial[MS_BLOCK];
    const int perimeter = (w == 1 || h == 1) ? w * h : 2 * (w + h) - 4;
    int common = MS_NONE;
    for (int i = threadIdx.x; i < perimeter; i += MS_BLOCK) {
        int x, y;
        if (w == 1 || h == 1) { x = x0 + i % w; y = y0 + i / w; }
        else if (i < w) { x = x0 + i; y = y0; }
        else if (i < 2 * w) { x = x0 + i - w; y = y0 + h - 1; }
        else if (i < 2 * w + h - 2) { x = x0; y = y0 + 1 + (i - 2 * w); }
        else { x = x0 + w - 1; y = y0 + 1 + (i - 2 * w - (h - 2)); }
        common = same_dwell(common, dwell_once<T>(a, x, y, true));
    }
    partial[threadIdx.x] = common;
    __syncthreads();
    for (int stride = MS_BLOCK / 2; stride > 0; stride /= 2) {
        if (threadIdx.x < stride) partial[threadIdx.x] = same_dwell(partial[threadIdx.x], partial[threadIdx.x + stride]);
        __syncthreads();
    }
    const int result = partial[0];
    __syncthreads();
    return result;
}

template <typename T>
__global__ void ms_block(MsArgs a, int px0, int py0, int pw, int ph, int subdiv, int depth);

template <typename T>
__device__ void ms_rect(const MsArgs& a, int px0, int py0, int pw, int ph, int subdiv, int depth)
{
    // This block's part of the parent rectangle.
    const int sw = div_up(pw, subdiv), sh = div_up(ph, subdiv);
    const int x0 = px0 + blockIdx.x * sw, y0 = py0 + blockIdx.y * sh;
    const int w = min(sw, px0 + pw - x0), h = min(sh, py0 + ph - y0);
    if (w <= 0 || h <= 0) return;

    const int common = border_dwell<T>(a, x0, y0, w, h);
    const bool small = w * h < a.launch_min_pixels;
    const dim3 block(MANDEL_BLOCK_X, MANDEL_BLOCK_Y);
    const dim3 grid(div_up(w, MANDEL_BLOCK_X), div_up(h, MANDEL_BLOCK_Y));
    if (common >= 0) {
        if (threadIdx.x == 0) ms_record(a, x0, y0, w, h, MS_KIND_FILL);
        if (small) {
            for (int i = threadIdx.x; i < w * h; i += MS_BLOCK)
                a.dwells[(size_t)(y0 + i / w) * a.width + x0 + i % w] = common;
        } else if (threadIdx.x == 0) {
            fill_rect<<<grid, block, 0, cudaStreamFireAndForget>>>(a, x0, y0, w, h, common);
            check_child_launch(a);
        }
    } else if (depth + 1 < a.max_depth && w / a.subdiv >= a.min_size && h / a.subdiv >= a.min_size) {
        if (threadIdx.x == 0) {
            ms_record(a, x0, y0, w, h, MS_KIND_SPLIT);
            ms_block<T><<<dim3(a.subdiv, a.subdiv), MS_BLOCK, 0, cudaStreamFireAndForget>>>(
                a, x0, y0, w, h, a.subdiv, depth + 1);
            check_child_launch(a);
        }
    } else {
        if (threadIdx.x == 0) ms_record(a, x0, y0, w, h, MS_KIND_LEAF);
        if (small) {
            for (int i = threadIdx.x; i < w * h; i += MS_BLOCK) {
                const int x = x0 + i % w, y = y0 + i / w;
                a.dwells[(size_t)y * a.width + x] = dwell_once<T>(a, x, y, false);
            }
        } else if (threadIdx.x == 0) {
            per_pixel_rect<T><<<grid, block, 0, cudaStreamFireAndForget>>>(a, x0, y0, w, h);
            check_child_launch(a);
        }
    }
}

template <typename T>
__global__ void __launch_bounds__(MS_BLOCK)
ms_block(MsArgs a, int px0, int py0, int pw, int ph, int subdiv, int depth)
{
    ms_rect<T>(a, px0, py0, pw, ph, subdiv, depth);
}

template <typename T>
__device__ void per_pixel(int* dwells, int width, int height, double cx, double cy, double step, int max_dwell)
{
    const int x = blockIdx.x * MANDEL_BLOCK_X + threadIdx.x;
    const int y = blockIdx.y * MANDEL_BLOCK_Y + threadIdx.y;
    if (x >= width || y >= height) return;
    dwells[(size_t)y * width + x] = dwell_at<T>(x, y, width, height, cx, cy, step, max_dwell);
}

#define MANDEL_ENTRY_POINTS(T, SUFFIX)                                                                  \
    extern "C" __global__ void __launch_bounds__(MANDEL_BLOCK_X * MANDEL_BLOCK_Y)                      \
    mandel_per_pixel_##SUFFIX(int* dwells, int width, int height, double cx, double cy, double step,   \
                              int max_dwell)                                                            \
    {                                                                                                   \
        per_pixel<T>(dwells, width, height, cx, cy, step, max_dwell);                                   \
    }                                                                                                   \
    /* The host launches init_subdiv x init_subdiv blocks of MS_BLOCK threads. */                   \
    extern "C" __global__ void __launch_bounds__(MS_BLOCK) mandel_ms_##SUFFIX(MsArgs a)                \
    {                                                                                                   \
        ms_rect<T>(a, 0, 0, a.width, a.height, a.init_subdiv, 0);                                       \
    }

MANDEL_ENTRY_POINTS(float, f32)
MANDEL_ENTRY_POINTS(double, f64)

extern "C" __global__ void __launch_bounds__(MANDEL_BLOCK_X * MANDEL_BLOCK_Y)
mandel_colorize(const int* __restrict__ dwells, const uchar4* __restrict__ lut, uchar4* out, int width, int height)
{
    const int x = blockIdx.x * MANDEL_BLOCK_X + threadIdx.x;
    const int y = blockIdx.y * MANDEL_BLOCK_Y + threadIdx.y;
    if (x >= width || y >= height) return;
    const size_t i = (size_t)y * width + x;
    out[i] = lut[dwells[i]];
}
