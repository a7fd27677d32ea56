// convolution_mma.cu: the Gaussian's two passes (radius 1..CONV_MMA_MAX_RADIUS) as matrix
// products on the tensor cores (mma.sync, f16 inputs, f32 accumulation), through a linear
// scratch plane of f16 pairs.
//
// A 1-D convolution of radius R is a product with a banded (Toeplitz) matrix. For 16
// consecutive outputs the 2R + 1 taps span 16 + 2R inputs, that is J = ceil(2R / 16) + 1
// steps of 16: output o of a 16-wide group takes inputs 16j + i of step j with weight
// w[16j + i - o] (zero outside 0..2R). The J weight fragments are the same for every group,
// so each thread builds them once, from c_weights, into registers; the data fragments come
// from shared memory through ldmatrix.
//
// Accuracy as f32: f16 has an 11-bit significand, so every value that is not a byte is
// split into a high f16 and a low f16 holding the rest (22 bits together), and the products
// that matter are summed: w_hi d + w_lo d in the row pass (the bytes d are exact in f16),
// w_hi d_hi + w_lo d_hi + w_hi d_lo in the column pass. Weights are scaled by
// CONV_MMA_SCALE = 2^14 before the split, so that their low parts stay normal f16 numbers,
// and the sums scaled back (exactly) after it. The results differ from the f32 reference by
// about 1e-4, which moves a rounding only where the exact value is that close to a half.
//   - conv_rows_mma_J: block CONV_MMA_BLOCK, tile th x CONV_MMA_ROWS_TW (rows x output
//     columns, th a multiple of 16 from the host); grid (ceil(W / TW), ceil(H / th)). The
//     tile's rows, TW + 16(J - 1) pixels wide from x0 - R, are staged from the texture as
//     three f16 planes (R, G, B), two columns a thread and one 32-bit store a plane. Each warp takes 16 x 16 output units: per plane, J
//     ldmatrix.x4 (rows x inputs, the A operand) times the weight fragments (B, high and
//     low), two n8 halves each. Each pixel leaves as one 16-byte word (R, G, B high parts
//     (the f32 value with its 13 low significand bits cleared, exact in f16), the source
//     alpha byte, R, G, B low parts) into the scratch plane (W x H, row pitch W). Bytes
//     become f16 by a byte permute and one f16x2 subtraction, not by conversions (16 a
//     clock per SM on sm_90, an eighth of the FMA rate).
//   - conv_columns_mma_J: block CONV_MMA_BLOCK, tile th x CONV_MMA_COLS_TW; grid
//     (ceil(W / TW), ceil(H / th)). th + 16(J - 1) scratch rows from y0 - R (clamped) are
//     staged as six f16 planes (high R, G, B, low R, G, B); per 16 x 16 unit and channel,
//     the weights are the A operand and ldmatrix.x4.trans gives the data (inputs x columns)
//     as B. Results are rounded to 8 bits with the scratch's alpha and written through the
//     surface.
// Shared rows are TW + 8 (or TW + 16(J - 1) + 8) halves apart, an odd multiple of 16 bytes,
// so the eight rows of every ldmatrix phase fall in eight different bank groups.
#include "common.cuh"
#include "cudalens_constants.h"

#define CONV_MMA_SCALE 16384.0f

__constant__ float c_weights[2 * CONV_MMA_MAX_RADIUS + 1];

// Two bytes of `word` (chosen by a __byte_perm selector that pairs each with a 0x64 byte of
// 0x64646464) as an f16 pair, without conversion instructions: 0x64XX is the f16 1024 + XX,
// and one f16x2 subtraction of 1024 leaves XX exactly.
__device__ __forceinline__ unsigned int halves_of_bytes(unsigned int word, unsigned int selector)
{
    const unsigned int biased = __byte_perm(word, 0x64646464u, selector);
    unsigned int h;
    asm("sub.rn.f16x2 %0, %1, %2;" : "=r"(h) : "r"(biased), "r"(0x64006400u));
    return h;
}

// Bytes 0 and 1, or 2 and 3, of a word as an f16 pair, the first in the low half.
#define SELECT_LOW 0x5140u
#define SELECT_HIGH 0x5342u

// The f16 pair (lo, hi), lo in the low half.
__device__ __forceinline__ unsigned int pack_halves(float lo, float hi)
{
    unsigned int h;
#if __CUDA_ARCH__ >= 800
    asm("cvt.rn.f16x2.f32 %0, %1, %2;" : "=r"(h) : "f"(hi), "f"(lo));
#else
    unsigned short a, b;
    asm("cvt.rn.f16.f32 %0, %1;" : "=h"(a) : "f"(lo));
    asm("cvt.rn.f16.f32 %0, %1;" : "=h"(b) : "f"(hi));
    h = (unsigned int)a | ((unsigned int)b << 16);
#endif
    return h;
}

// v with the low 13 of its 23 significand bits cleared: exact in f16 (for v in f16's normal
// range), and v - high_part(v) is exact in f32.
__device__ __forceinline__ float high_part(float v)
{
    return __int_as_float(__float_as_int(v) & 0xffffe000);
}

__device__ __forceinline__ unsigned short half_of_float(float v)
{
    unsigned short h;
    asm("cvt.rn.f16.f32 %0, %1;" : "=h"(h) : "f"(v));
    return h;
}

__device__ __forceinline__ float float_of_half(unsigned short h)
{
    float v;
    asm("cvt.f32.f16 %0, %1;" : "=f"(v) : "h"(h));
    return v;
}

// v as a high f16 and a low f16 holding the rest.
struct HalfSplit {
    unsigned short hi, lo;
};

__device__ __forceinline__ HalfSplit split_half(float v)
{
    const unsigned short hi = half_of_float(v);
    return HalfSplit{hi, half_of_float(v - float_of_half(hi))};
}

// Tap t of the weights times CONV_MMA_SCALE, zero outside 0..2R.
__device__ __forceinline__ float scaled_tap(int t, int radius)
{
    return (t >= 0 && t <= 2 * radius) ? c_weights[t] * CONV_MMA_SCALE : 0.0f;
}

// The pairs (tap t, tap t + 1) of high and of low f16 parts, the first in the low half.
struct TapPairs {
    unsigned int hi, lo;
};

__device__ __forceinline__ TapPairs tap_pairs(int t, int radius)
{
    const HalfSplit a = split_half(scaled_tap(t, radius));
    const HalfSplit b = split_half(scaled_tap(t + 1, radius));
    return TapPairs{(unsigned int)a.hi | ((unsigned int)b.hi << 16),
                    (unsigned int)a.lo | ((unsigned int)b.lo << 16)};
}

__device__ __forceinline__ unsigned int shared_address(const void* p)
{
    return (unsigned int)__cvta_generic_to_shared(p);
}

__device__ __forceinline__ void ldmatrix_x4(unsigned int (&r)[4], const unsigned short* p)
{
    asm volatile("ldmatrix.sync.aligned.m8n8.x4.shared.b16 {%0, %1, %2, %3}, [%4];"
                 : "=r"(r[0]), "=r"(r[1]), "=r"(r[2]), "=r"(r[3])
                 : "r"(shared_address(p)));
}

__device__ __forceinline__ void ldmatrix_x4_trans(unsigned int (&r)[4], const unsigned short* p)
{
    asm volatile("ldmatrix.sync.aligned.m8n8.x4.trans.shared.b16 {%0, %1, %2, %3}, [%4];"
                 : "=r"(r[0]), "=r"(r[1]), "=r"(r[2]), "=r"(r[3])
                 : "r"(shared_address(p)));
}

// d += a (16 x 16, row-major) * b (16 x 8, column-major), f16 in, f32 accumulators in the
// mma fragment layout (lane = 4 * group + t: rows group and group + 8, columns 2t, 2t + 1).
__device__ __forceinline__ void mma_16x8x16(float (&d)[4], unsigned int a0, unsigned int a1,
                                            unsigned int a2, unsigned int a3, unsigned int b0,
                                            unsigned int b1)
{
#if __CUDA_ARCH__ >= 800
    asm(
        "mma.sync.aligned.m16n8k16.row.col.f32.f16.f16.f32 {%0, %1, %2, %3}, {%4, %5, %6, %7}, "
        "{%8, %9}, {%0, %1, %2, %3};"
        : "+f"(d[0]), "+f"(d[1]), "+f"(d[2]), "+f"(d[3])
        : "r"(a0), "r"(a1), "r"(a2), "r"(a3), "r"(b0), "r"(b1));
#else
    asm("mma.sync.aligned.m16n8k8.row.col.f32.f16.f16.f32 {%0, %1, %2, %3}, {%4, %5}, {%6}, "
        "{%0, %1, %2, %3};"
        : "+f"(d[0]), "+f"(d[1]), "+f"(d[2]), "+f"(d[3])
        : "r"(a0), "r"(a1), "r"(b0));
    asm(
        "mma.sync.aligned.m16n8k8.row.col.f32.f16.f16.f32 {%0, %1, %2, %3}, {%4, %5}, {%6}, "
        "{%0, %1, %2, %3};"
        : "+f"(d[0]), "+f"(d[1]), "+f"(d[2]), "+f"(d[3])
        : "r"(a2), "r"(a3), "r"(b1));
#endif
}

// Offset (in halves) of the row this lane gives ldmatrix.x4: lanes 8m..8m+7 give the eight
// rows of matrix m, which starts 8(m & 1) rows and 8(m >> 1) columns into the 16 x 16 tile.
__device__ __forceinline__ int ldmatrix_lane_offset(int lane, int stride)
{
    const int m = lane >> 3;
    return ((m & 1) * 8 + (lane & 7)) * stride + (m >> 1) * 8;
}

// Zeroes one 16 x 16 unit's accumulators of three channels (two n8 halves each).
__device__ __forceinline__ void zero_units(float (&acc)[3][2][4])
{
#pragma unroll
    for (int ch = 0; ch < 3; ++ch)
#pragma unroll
        for (int q = 0; q < 2; ++q)
#pragma unroll
            for (int e = 0; e < 4; ++e) acc[ch][q][e] = 0.0f;
}

// Calls unit(r0, c0) for each 16 x 16 unit (rows r0.., columns c0.. of the tile) that this
// warp takes of a tile ACROSS units wide and th rows high.
template <int ACROSS, class Unit>
__device__ __forceinline__ void for_each_unit(int th, Unit unit)
{
    const int units = ACROSS * (th / 16);
    for (int u = threadIdx.x / 32; u < units; u += CONV_MMA_BLOCK / 32) unit((u / ACROSS) * 16, (u % ACROSS) * 16);
}

// Calls out(x, y, rgb) for every pixel of a 16 x 16 unit at image (x0, y0) inside the
// image, with its three channels scaled back from the accumulators: lane (group, t) holds
// rows group and group + 8, columns 8q + 2t and 8q + 2t + 1 (the mma fragment layout).
template <class Out>
__device__ __forceinline__ void unit_outputs(const float (&acc)[3][2][4], int x0, int y0, int width,
                                             int height, Out out)
{
    const int lane = threadIdx.x & 31;
    const int group = lane >> 2;
    const int t = lane & 3;
#pragma unroll
    for (int q = 0; q < 2; ++q)
#pragma unroll
        for (int h = 0; h < 2; ++h)
#pragma unroll
            for (int e = 0; e < 2; ++e) {
                const int x = x0 + 8 * q + 2 * t + e;
                const int y = y0 + group + 8 * h;
                if (x >= width || y >= height) continue;
                const int i = 2 * h + e;
                const float s = 1.0f / CONV_MMA_SCALE;
                out(x, y, make_float3(acc[0][q][i] * s, acc[1][q][i] * s, acc[2][q][i] * s));
            }
}

// Stages `rows` x `cols` pixels (cols even) from (x0, y0) as N f16 planes `plane` halves
// apart (plane even), rows `stride` halves apart (stride even), two columns a thread:
// `fetch(x, y, v)` gives plane i's f16 pair for columns x and x + 1 as v[i] (x in the low
// half), stored as one 32-bit word.
template <int N, class Fetch>
__device__ __forceinline__ void stage_pairs(unsigned short* tile, int x0, int y0, int rows, int cols,
                                            int stride, int plane, Fetch fetch)
{
    const int pairs = cols / 2;
    for (int i = threadIdx.x; i < rows * pairs; i += CONV_MMA_BLOCK) {
        const int r = i / pairs;
        const int c = 2 * (i - r * pairs);
        unsigned int v[N];
        fetch(x0 + c, y0 + r, v);
        unsigned int* at = (unsigned int*)(tile + r * stride + c);
#pragma unroll
        for (int k = 0; k < N; ++k) at[k * (plane / 2)] = v[k];
    }
}

template <int J>
__device__ __forceinline__ void rows_mma(cudaTextureObject_t src, uint4* scratch, int width, int height,
                                         int radius, int th)
{
    extern __shared__ unsigned short smem[];
    constexpr int cols = CONV_MMA_ROWS_TW + 16 * (J - 1);
    constexpr int stride = cols + 8;
    const int plane = th * stride;
    const int x0 = blockIdx.x * CONV_MMA_ROWS_TW;
    const int y0 = blockIdx.y * th;
    const int lane = threadIdx.x & 31;
    const int group = lane >> 2;
    const int t = lane & 3;

    // Weight fragments (B operand): output half q of a 16-wide group, step j, registers
    // b0 (inputs 2t, 2t + 1) and b1 (inputs 2t + 8, 2t + 9) of column `group`.
    TapPairs b[J][2][2];
#pragma unroll
    for (int j = 0; j < J; ++j)
#pragma unroll
        for (int q = 0; q < 2; ++q) {
            const int k = 16 * j + 2 * t - 8 * q - group;
            b[j][q][0] = tap_pairs(k, radius);
            b[j][q][1] = tap_pairs(k + 8, radius);
        }

    stage_pairs<3>(smem, x0 - radius, y0, th, cols, stride, plane,
                   [&](int x, int y, unsigned int (&v)[3]) {
                       const unsigned int p0 = pack_rgba(pixel_at(src, x, y));
                       const unsigned int p1 = pack_rgba(pixel_at(src, x + 1, y));
                       const unsigned int rg = __byte_perm(p0, p1, 0x5140u);  // R0 R1 G0 G1
                       const unsigned int bb = __byte_perm(p0, p1, 0x0062u);  // B0 B1
                       v[0] = halves_of_bytes(rg, SELECT_LOW);
                       v[1] = halves_of_bytes(rg, SELECT_HIGH);
                       v[2] = halves_of_bytes(bb, SELECT_LOW);
                   });
    __syncthreads();

    // Matrix m of ldmatrix.x4: rows 8(m & 1).., inputs 8(m >> 1)..
    const int lane_offset = ldmatrix_lane_offset(lane, stride);
    for_each_unit<CONV_MMA_ROWS_TW / 16>(th, [&](int r0, int c0) {
        float acc[3][2][4];
        zero_units(acc);
#pragma unroll
        for (int ch = 0; ch < 3; ++ch) {
            const unsigned short* base = smem + ch * plane + r0 * stride + c0 + lane_offset;
#pragma unroll
            for (int j = 0; j < J; ++j) {
                unsigned int a[4];
                ldmatrix_x4(a, base + 16 * j);
#pragma unroll
                for (int q = 0; q < 2; ++q) {
                    mma_16x8x16(acc[ch][q], a[0], a[1], a[2], a[3], b[j][q][0].hi, b[j][q][1].hi);
                    mma_16x8x16(acc[ch][q], a[0], a[1], a[2], a[3], b[j][q][0].lo, b[j][q][1].lo);
                }
            }
        }
        unit_outputs(acc, x0 + c0, y0 + r0, width, height, [&](int x, int y, float3 v) {
            const float rh = high_part(v.x), gh = high_part(v.y), bh = high_part(v.z);
            const unsigned int alpha = pixel_at(src, x, y).w;
            scratch[(size_t)y * width + x] =
                make_uint4(pack_halves(rh, gh), (pack_halves(bh, 0.0f) & 0xffffu) | (alpha << 16),
                           pack_halves(v.x - rh, v.y - gh), pack_halves(v.z - bh, 0.0f));
        });
    });
}

template <int J>
__device__ __forceinline__ void columns_mma(const uint4* __restrict__ scratch, cudaSurfaceObject_t dst,
                                            int width, int height, int radius, int th)
{
    extern __shared__ unsigned short smem[];
    const int rows = th + 16 * (J - 1);
    constexpr int stride = CONV_MMA_COLS_TW + 8;
    const int plane = rows * stride;
    const int x0 = blockIdx.x * CONV_MMA_COLS_TW;
    const int y0 = blockIdx.y * th;
    const int lane = threadIdx.x & 31;
    const int group = lane >> 2;
    const int t = lane & 3;

    // Weight fragments (A operand) of step j: a0 (rows group, inputs 2t, 2t + 1), a1 (rows
    // group + 8), a2 (inputs + 8); a3 (rows + 8, inputs + 8) equals a0.
    TapPairs a[J][3];
#pragma unroll
    for (int j = 0; j < J; ++j) {
        const int k = 16 * j + 2 * t - group;
        a[j][0] = tap_pairs(k, radius);
        a[j][1] = tap_pairs(k - 8, radius);
        a[j][2] = tap_pairs(k + 8, radius);
    }

    stage_pairs<6>(smem, x0, y0 - radius, rows, CONV_MMA_COLS_TW, stride, plane,
                   [&](int x, int y, unsigned int (&v)[6]) {
                       const uint4* row = scratch + (size_t)clamp_int(y, 0, height - 1) * width;
                       const uint4 p0 = row[clamp_int(x, 0, width - 1)];
                       const uint4 p1 = row[clamp_int(x + 1, 0, width - 1)];
                       v[0] = __byte_perm(p0.x, p1.x, 0x5410u);  // R high
                       v[1] = __byte_perm(p0.x, p1.x, 0x7632u);  // G high
                       v[2] = __byte_perm(p0.y, p1.y, 0x5410u);  // B high
                       v[3] = __byte_perm(p0.z, p1.z, 0x5410u);  // R low
                       v[4] = __byte_perm(p0.z, p1.z, 0x7632u);  // G low
                       v[5] = __byte_perm(p0.w, p1.w, 0x5410u);  // B low
                   });
    __syncthreads();

    // Matrix m of ldmatrix.x4.trans: inputs 8(m & 1).., columns 8(m >> 1)..
    const int lane_offset = ldmatrix_lane_offset(lane, stride);
    for_each_unit<CONV_MMA_COLS_TW / 16>(th, [&](int r0, int c0) {
        float acc[3][2][4];
        zero_units(acc);
#pragma unroll
        for (int ch = 0; ch < 3; ++ch) {
            const unsigned short* hi = smem + ch * plane + r0 * stride + c0 + lane_offset;
            const unsigned short* lo = hi + 3 * plane;
#pragma unroll
            for (int j = 0; j < J; ++j) {
                unsigned int dh[4], dl[4];
                ldmatrix_x4_trans(dh, hi + 16 * j * stride);
                ldmatrix_x4_trans(dl, lo + 16 * j * stride);
                const TapPairs (&w)[3] = a[j];
#pragma unroll
                for (int q = 0; q < 2; ++q) {
                    mma_16x8x16(acc[ch][q], w[0].hi, w[1].hi, w[2].hi, w[0].hi, dh[2 * q], dh[2 * q + 1]);
                    mma_16x8x16(acc[ch][q], w[0].lo, w[1].lo, w[2].lo, w[0].lo, dh[2 * q], dh[2 * q + 1]);
                    mma_16x8x16(acc[ch][q], w[0].hi, w[1].hi, w[2].hi, w[0].hi, dl[2 * q], dl[2 * q + 1]);
                }
            }
        }
        unit_outputs(acc, x0 + c0, y0 + r0, width, height, [&](int x, int y, float3 v) {
            const unsigned int alpha = scratch[(size_t)y * width + x].y >> 16;
            store_pixel(dst, x, y, make_uchar4(to_u8(v.x), to_u8(v.y), to_u8(v.z), (unsigned char)alpha));
        });
    });
}

// One row-pass and one column-pass kernel per step count J = ceil(2R / 16) + 1 (mma_steps on
// the host; R in 1..96, J in 2..13): the weight fragments are registers, so J must be known
// at compile time.
#define CONV_MMA_KERNELS(J)                                                                          \
    extern "C" __global__ void __launch_bounds__(CONV_MMA_BLOCK)                                     \
    conv_rows_mma_##J(cudaTextureObject_t src, uint4* scratch, int width, int height, int radius,    \
                      int th)                                                                        \
    {                                                                                                \
        rows_mma<J>(src, scratch, width, height, radius, th);                                        \
    }                                                                                                \
    extern "C" __global__ void __launch_bounds__(CONV_MMA_BLOCK)                                     \
    conv_columns_mma_##J(const uint4* scratch, cudaSurfaceObject_t dst, int width, int height,       \
                         int radius, int th)                                                         \
    {                                                                                                \
        columns_mma<J>(scratch, dst, width, height, radius, th);                                     \
    }

CONV_MMA_KERNELS(2)
CONV_MMA_KERNELS(3)
CONV_MMA_KERNELS(4)
CONV_MMA_KERNELS(5)
CONV_MMA_KERNELS(6)
CONV_MMA_KERNELS(7)
CONV_MMA_KERNELS(8)
CONV_MMA_KERNELS(9)
CONV_MMA_KERNELS(10)
CONV_MMA_KERNELS(11)
CONV_MMA_KERNELS(12)
CONV_MMA_KERNELS(13)
