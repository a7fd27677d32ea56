// convolution.cu: separable convolution (Gaussian by default) of radius R <= CONV_MAX_RADIUS,
// the 2R+1 coefficients in constant memory.
//
// out = round(sum_j c[j] * sum_i c[i] * in(x + i - R, y + j - R)) per RGB channel with
// clamp-to-edge borders, f32 throughout (fused multiply-adds: within 1 of the Rust
// reference, which rounds every product), alpha unchanged.
//
// Every pass computes CONV_RUN consecutive outputs per thread along the filter's direction
// (convolve_run): a window of CONV_RUN input values lives in registers and each value read
// from shared memory serves up to CONV_RUN outputs, so shared-memory reads stay well below
// the multiply-adds (3 * CONV_RUN per value). Shared rows have an odd stride, so the 32
// lanes of a warp, which work on 32 different rows or columns, hit 32 different banks.
//
// conv_fused (R <= CONV_FUSED_MAX_RADIUS): one block computes a CONV_TILE_W x th output
// tile (th from the host) in one pass: (1) the (th + 2R) x (CONV_TILE_W + 2R) input tile
// from the texture into shared memory (packed RGBA8); (2) the row pass over all th + 2R
// rows into a shared f32 tile (three planes); (3) the column pass from that tile, written
// through the surface. Each pixel is read from memory once (plus halos, mostly from L2)
// and written once. block = CONV_BLOCK, grid = (ceil(W / CONV_TILE_W), ceil(H / th)).
//
// unsharp_fused: conv_fused finishing into the unsharp formula (unsharp.cu) instead of the
// rounded Gaussian, for unsharp's radii up to CONV_FUSED_MAX_RADIUS.
//
// conv_rows (block CONV_BLOCK; a 32-row x CONV_TILE_W tile, input staged in shared memory,
// the results staged there again and stored row by row; grid = (ceil(W / CONV_TILE_W),
// ceil(H / 32))): the row pass alone, into a linear float4 scratch plane (W x H, row pitch
// W), for unsharp.cu to finish. The Gaussian's radii above CONV_FUSED_MAX_RADIUS run on the
// tensor cores (convolution_mma.cu), where the multiply-adds cost more than the extra pass.
#include "common.cuh"
// CONV_ROWS_OUT_STRIDE: row stride (floats) of conv_rows' output staging, CONV_TILE_W + 1, odd.
#include "cudalens_constants.h"

__constant__ float c_weights[2 * CONV_MAX_RADIUS + 1];

__device__ __forceinline__ float3 unpack_rgb(unsigned int v)
{
    return make_float3((float)(v & 0xffu), (float)((v >> 8) & 0xffu), (float)((v >> 16) & 0xffu));
}

__device__ __forceinline__ void fma3(float w, float3 v, float3& acc)
{
    acc.x = fmaf(w, v.x, acc.x);
    acc.y = fmaf(w, v.y, acc.y);
    acc.z = fmaf(w, v.z, acc.z);
}

// The RGBA8 passes' multiply-add: fused, three channels.
struct Fused3 {
    __device__ __forceinline__ void operator()(float w, float3 v, float3& acc) const { fma3(w, v, acc); }
};

// acc[o] = sum_{k < taps} c_weights[k] * load(o + k) for o < K, each term added by
// mad(w, value, acc) in order of k: a window of K values rotates through registers (slot
// (o + u) % K holds value kb + o + u), so every value is loaded once. `taps` is uniform
// across the warp. V: float3 (RGBA8) or the typed passes' Channels.
template <int K, class Load, class V, class Mad = Fused3>
__device__ __forceinline__ void convolve_run(int taps, Load load, V (&acc)[K], Mad mad = Mad())
{
    V win[K];
#pragma unroll
    for (int i = 0; i < K; ++i) {
        win[i] = load(i);
        acc[i] = V{};
    }
    for (int kb = 0; kb < taps; kb += K) {
#pragma unroll
        for (int u = 0; u < K; ++u) {
            if (kb + u < taps) {
                const float w = c_weights[kb + u];
#pragma unroll
                for (int o = 0; o < K; ++o) mad(w, win[(o + u) % K], acc[o]);
                if (kb + u + 1 < taps) win[u] = load(kb + u + K);
            }
        }
    }
}

// CONV_RUN consecutive outputs down one column of a shared tile of three f32 planes
// (`plane` floats apart), rows `stride` floats apart.
__device__ __forceinline__ void column_run(const float* column, int stride, int plane, int taps,
                                           float3 (&acc)[CONV_RUN])
{
    convolve_run<CONV_RUN>(
        taps,
        [&](int k) {
            const float* at = column + k * stride;
            return make_float3(at[0], at[plane], at[2 * plane]);
        },
        acc);
}

// Stride of a shared row of `n` elements: odd, so that 32 rows start in 32 different banks.
__device__ __forceinline__ int odd_stride(int n)
{
    return n | 1;
}

// Stages rows [y0 - R, y0 - R + rows) x columns [x0 - R, x0 - R + cols) of the texture as
// packed RGBA8, row stride `stride`.
__device__ __forceinline__ void stage_input(cudaTextureObject_t src, unsigned int* in, int x0, int y0,
                                            int radius, int rows, int cols, int stride)
{
    const int warp = threadIdx.x / 32;
    const int lane = threadIdx.x & 31;
    for (int r = warp; r < rows; r += CONV_BLOCK / 32)
        for (int c = lane; c < cols; c += 32)
            in[r * stride + c] = pack_rgba(pixel_at(src, x0 - radius + c, y0 - radius + r));
}

// The fused pass of one tile (conv_fused, unsharp_fused): finish(g, source) turns an output
// pixel's Gaussian g (f32, before rounding) and its packed source pixel into the output.
template <class Finish>
__device__ __forceinline__ void fused_tile(cudaTextureObject_t src, cudaSurfaceObject_t dst, int width,
                                           int height, int radius, int th, Finish finish)
{
    extern __shared__ unsigned int tile_smem[];  // the dynamic shared memory, as in conv_rows
    const int taps = 2 * radius + 1;
    const int rows = th + 2 * radius;
    const int cols = CONV_TILE_W + 2 * radius;
    const int in_stride = odd_stride(cols);
    const int h_stride = CONV_TILE_W + 1;
    unsigned int* in = tile_smem;
    float* h = (float*)(tile_smem + rows * in_stride);  // [3][rows][h_stride]
    const int plane = rows * h_stride;
    const int x0 = blockIdx.x * CONV_TILE_W;
    const int y0 = blockIdx.y * th;

    stage_input(src, in, x0, y0, radius, rows, cols, in_stride);
    __syncthreads();

    // Row pass: item i is (row i % rows, run i / rows of CONV_RUN columns).
    constexpr int RUNS = CONV_TILE_W / CONV_RUN;
    for (int i = threadIdx.x; i < rows * RUNS; i += CONV_BLOCK) {
        const int row = i % rows;
        const int c0 = (i / rows) * CONV_RUN;
        const unsigned int* line = in + row * in_stride + c0;
        float3 acc[CONV_RUN];
        convolve_run<CONV_RUN>(taps, [&](int k) { return unpack_rgb(line[k]); }, acc);
#pragma unroll
        for (int o = 0; o < CONV_RUN; ++o) {
            float* at = h + row * h_stride + c0 + o;
            at[0] = acc[o].x;
            at[plane] = acc[o].y;
            at[2 * plane] = acc[o].z;
        }
    }
    __syncthreads();

    // Column pass: item i is (column i % CONV_TILE_W, run i / CONV_TILE_W of CONV_RUN rows).
    for (int i = threadIdx.x; i < CONV_TILE_W * (th / CONV_RUN); i += CONV_BLOCK) {
        const int col = i % CONV_TILE_W;
        const int r0 = (i / CONV_TILE_W) * CONV_RUN;
        float3 acc[CONV_RUN];
        column_run(h + r0 * h_stride + col, h_stride, plane, taps, acc);
        const int x = x0 + col;
#pragma unroll
        for (int o = 0; o < CONV_RUN; ++o) {
            const int y = y0 + r0 + o;
            if (x < width && y < height)
                store_pixel(dst, x, y, finish(acc[o], in[(r0 + o + radius) * in_stride + col + radius]));
        }
    }
}

extern "C" __global__ void __launch_bounds__(CONV_BLOCK)
conv_fused(cudaTextureObject_t src, cudaSurfaceObject_t dst, int width, int height, int radius,
           int th)
{
    fused_tile(src, dst, width, height, radius, th, [](float3 g, unsigned int source) {
        return make_uchar4(to_u8(g.x), to_u8(g.y), to_u8(g.z), (unsigned char)(source >> 24));
    });
}

// The unsharp mask in the fused pass (radius up to CONV_FUSED_MAX_RADIUS): unsharp_value of
// each source channel and its Gaussian, as unsharp.cu finishes the two-pass Gaussian.
extern "C" __global__ void __launch_bounds__(CONV_BLOCK)
unsharp_fused(cudaTextureObject_t src, cudaSurfaceObject_t dst, int width, int height, int radius,
              int th, float amount)
{
    fused_tile(src, dst, width, height, radius, th, [amount](float3 g, unsigned int source) {
        const float3 v = unpack_rgb(source);
        return make_uchar4(unsharp_value(v.x, g.x, amount), unsharp_value(v.y, g.y, amount),
                           unsharp_value(v.z, g.z, amount), (unsigned char)(source >> 24));
    });
}

extern "C" __global__ void __launch_bounds__(CONV_BLOCK)
conv_rows(cudaTextureObject_t src, float4* rows, int width, int height, int radius)
{
    extern __shared__ unsigned int smem[];
    const int taps = 2 * radius + 1;
    const int cols = CONV_TILE_W + 2 * radius;
    const int stride = odd_stride(cols);
    const int x0 = blockIdx.x * CONV_TILE_W;
    const int y0 = blockIdx.y * 32;
    // Rows y0 .. y0 + 31 only: stage_input's row origin is y0 - radius.
    stage_input(src, smem, x0, y0 + radius, radius, 32, cols, stride);
    __syncthreads();

    const int row = threadIdx.x & 31;
    const int c0 = (threadIdx.x / 32) * CONV_RUN;
    const unsigned int* line = smem + row * stride + c0;
    float3 acc[CONV_RUN];
    convolve_run<CONV_RUN>(taps, [&](int k) { return unpack_rgb(line[k]); }, acc);

    // A warp's lanes hold 32 different rows: the results go through shared memory (three
    // planes, rows CONV_ROWS_OUT_STRIDE floats apart, odd so the 32 rows hit 32 banks) and
    // leave as whole rows of CONV_TILE_W float4, each warp store 512 contiguous bytes.
    __syncthreads();  // every thread has read its input
    float* out_tile = (float*)smem;
    constexpr int plane = 32 * CONV_ROWS_OUT_STRIDE;
#pragma unroll
    for (int o = 0; o < CONV_RUN; ++o) {
        float* at = out_tile + row * CONV_ROWS_OUT_STRIDE + c0 + o;
        at[0] = acc[o].x;
        at[plane] = acc[o].y;
        at[2 * plane] = acc[o].z;
    }
    __syncthreads();
    for (int i = threadIdx.x; i < 32 * CONV_TILE_W; i += CONV_BLOCK) {
        const int r = i / CONV_TILE_W;
        const int c = i % CONV_TILE_W;
        const int y = y0 + r;
        const int x = x0 + c;
        if (y < height && x < width) {
            const float* at = out_tile + r * CONV_ROWS_OUT_STRIDE + c;
            rows[(size_t)y * width + x] = make_float4(at[0], at[plane], at[2 * plane], 0.0f);
        }
    }
}

// Every other stored format (typed.cuh): the reference's two f32 passes (filters/gaussian/
// typed.rs) through a plane of the colour channels in the scratch (channel-major), each
// output the sum over k = 0..2R of c_weights[k] * value, accumulated from 0 in that order
// with each product and sum rounded (no FMA: MadExact), so the plane is the reference's bit
// for bit. Both passes run convolve_run: a thread's CONV_RUN consecutive outputs share one
// window of values in registers, so each value is read once, not 2R + 1 times.
//   gauss_rows_<format>: a warp a row, its lanes CONV_RUN consecutive columns each (a span
//     of 32 * CONV_RUN). The warp stages its span's values and the 2R apron (texture,
//     clamp-to-edge) in shared memory, channel by channel, value i at i + i / 8 (lane l's
//     k-th value then falls in bank 9l + k + k/8: 32 lanes, 32 banks), convolves, puts its
//     results back there and stores them coalesced to the plane. Warps share no data (no
//     block barrier). block (32, GAUSS_ROWS_WARPS), grid (ceil(W / (32 * CONV_RUN)),
//     ceil(H / GAUSS_ROWS_WARPS)); dynamic shared memory GAUSS_ROWS_WARPS * colours *
//     `stride` floats, `stride` (from the host) >= n + n / 8 for n = 32 * CONV_RUN + 2R.
//   gauss_cols_<format>: a thread CONV_RUN consecutive rows of a column from the plane
//     (clamped rows; a warp's loads are one row's 32 columns); stores the Gaussian, or with
//     `unsharp` the mask v + amount (v - g), by sample_from_f32; alpha from the source.
//     block (TYPED_BLOCK_X, TYPED_BLOCK_Y), grid (ceil(W / BLOCK_X), ceil(H / (BLOCK_Y * CONV_RUN))).
#include "typed.cuh"

template <int N> struct Channels {
    float c[N];
};

struct MadExact {
    template <int N>
    __device__ __forceinline__ void operator()(float w, const Channels<N>& v, Channels<N>& acc) const
    {
#pragma unroll
        for (int i = 0; i < N; ++i) acc.c[i] = __fadd_rn(acc.c[i], __fmul_rn(w, v.c[i]));
    }
};

// Where staged value i of a row lies (one padding float after every 8).
__device__ __forceinline__ int staged_at(int i) { return i + (i >> 3); }

template <typename T, int C>
__device__ __forceinline__ void gauss_rows_typed(cudaTextureObject_t src, float* plane, int width,
                                                 int height, int radius, int stride)
{
    const int CC = Colour<C>::count;
    const int SPAN = 32 * CONV_RUN;
    extern __shared__ float staged_rows[];
    const int lane = threadIdx.x;
    const int y = blockIdx.y * GAUSS_ROWS_WARPS + threadIdx.y;
    const int x0 = blockIdx.x * SPAN;
    if (y >= height) return;  // the whole warp
    float* row = staged_rows + threadIdx.y * CC * stride;
    const int n = SPAN + 2 * radius;
    for (int i = lane; i < n; i += 32) {
        const float4 v = load_values<T, C>(src, x0 - radius + i, y);
#pragma unroll
        for (int c = 0; c < CC; ++c) row[c * stride + staged_at(i)] = channel_of(v, c);
    }
    __syncwarp();
    Channels<CC> acc[CONV_RUN];
    convolve_run<CONV_RUN>(
        2 * radius + 1,
        [&](int k) {
            const int at = staged_at(lane * CONV_RUN + k);
            Channels<CC> v;
#pragma unroll
            for (int c = 0; c < CC; ++c) v.c[c] = row[c * stride + at];
            return v;
        },
        acc, MadExact());
    __syncwarp();
#pragma unroll
    for (int o = 0; o < CONV_RUN; ++o) {
#pragma unroll
        for (int c = 0; c < CC; ++c) row[c * stride + staged_at(lane * CONV_RUN + o)] = acc[o].c[c];
    }
    __syncwarp();
    const size_t channel = (size_t)width * height;
    for (int i = lane; i < SPAN && x0 + i < width; i += 32) {
#pragma unroll
        for (int c = 0; c < CC; ++c)
            plane[c * channel + (size_t)y * width + x0 + i] = row[c * stride + staged_at(i)];
    }
}

template <typename T, int C>
__device__ __forceinline__ void gauss_cols_typed(cudaTextureObject_t src, const float* plane,
                                                 cudaSurfaceObject_t dst, int width, int height,
                                                 int radius, int unsharp, float amount)
{
    const int CC = Colour<C>::count;
    const int x = blockIdx.x * TYPED_BLOCK_X + threadIdx.x;
    const int y0 = (blockIdx.y * TYPED_BLOCK_Y + threadIdx.y) * CONV_RUN;
    if (x >= width || y0 >= height) return;
    const size_t channel = (size_t)width * height;
    Channels<CC> acc[CONV_RUN];
    convolve_run<CONV_RUN>(
        2 * radius + 1,
        [&](int k) {
            const size_t at = (size_t)clamp_int(y0 - radius + k, 0, height - 1) * width + x;
            Channels<CC> v;
#pragma unroll
            for (int c = 0; c < CC; ++c) v.c[c] = plane[c * channel + at];
            return v;
        },
        acc, MadExact());
#pragma unroll
    for (int o = 0; o < CONV_RUN; ++o) {
        const int y = y0 + o;
        if (y >= height) break;
        const float4 source = load_values<T, C>(src, x, y);
        float4 out = source;
#pragma unroll
        for (int c = 0; c < CC; ++c) {
            const float v = channel_of(source, c), g = acc[o].c[c];
            set_channel(out, c, unsharp ? __fadd_rn(v, __fmul_rn(amount, __fsub_rn(v, g))) : g);
        }
        store_values<T, C>(dst, x, y, out, source);
    }
}

#define GAUSS_TYPED(suffix, T, C)                                                            \
    extern "C" __global__ void __launch_bounds__(32 * GAUSS_ROWS_WARPS)                      \
    gauss_rows_##suffix(cudaTextureObject_t src, float* plane, int width, int height,        \
                        int radius, int stride)                                              \
    {                                                                                        \
        gauss_rows_typed<T, C>(src, plane, width, height, radius, stride);                   \
    }                                                                                        \
    extern "C" __global__ void __launch_bounds__(TYPED_BLOCK_X * TYPED_BLOCK_Y)              \
    gauss_cols_##suffix(cudaTextureObject_t src, const float* plane, cudaSurfaceObject_t dst, \
                        int width, int height, int radius, int unsharp, float amount)        \
    {                                                                                        \
        gauss_cols_typed<T, C>(src, plane, dst, width, height, radius, unsharp, amount);     \
    }
TYPED_FORMATS(GAUSS_TYPED)
