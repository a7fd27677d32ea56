// convolution.cu: separable convolution (Gaussian by default), any odd kernel of radius
// R <= CONV_MAX_RADIUS, coefficients in constant memory.
//
// out = round(sum_j c[j] * sum_i c[i] * in(x + i - R, y + j - R)), per RGB channel, with
// clamp-to-edge borders; the row pass keeps f32 (float4) results, like the Rust reference.
//
// Row pass, conv_rows: a block of CONV_ROW_BLOCK_X x CONV_ROW_BLOCK_Y threads computes a
//   tile of CONV_ROW_BLOCK_X * CONV_ROW_RESULTS pixels on each of CONV_ROW_BLOCK_Y rows.
//   It first stages the tile plus an apron of R pixels on both sides in shared memory
//   (read through the texture path: clamp addressing supplies the border), then each
//   thread computes CONV_ROW_RESULTS outputs, CONV_ROW_BLOCK_X apart so that a warp's
//   writes to the float4 buffer are coalesced.
//   grid = (ceil(W / (BLOCK_X * RESULTS)), ceil(H / BLOCK_Y)),
//   dynamic shared = BLOCK_Y * (BLOCK_X * RESULTS + 2R) * sizeof(float4).
// Column pass, conv_columns: a block of CONV_COL_BLOCK_X x CONV_COL_BLOCK_Y threads
//   computes CONV_COL_BLOCK_Y * CONV_COL_RESULTS rows of CONV_COL_BLOCK_X columns. The
//   column tile plus R rows of apron above and below is staged in shared memory with
//   coalesced float4 reads (rows clamped to the image), then each thread computes
//   CONV_COL_RESULTS outputs, CONV_COL_BLOCK_Y rows apart, written through the surface.
//   grid = (ceil(W / BLOCK_X), ceil(H / (BLOCK_Y * RESULTS))),
//   dynamic shared = (BLOCK_Y * RESULTS + 2R) * BLOCK_X * sizeof(float4)
//   (115 KB at R = 96: the host raises the kernel's dynamic shared-memory limit).
#include "common.cuh"

#define CONV_MAX_RADIUS 96
#define CONV_ROW_BLOCK_X 64
#define CONV_ROW_BLOCK_Y 4
#define CONV_ROW_RESULTS 4
#define CONV_COL_BLOCK_X 32
#define CONV_COL_BLOCK_Y 8
#define CONV_COL_RESULTS 4

__constant__ float c_weights[2 * CONV_MAX_RADIUS + 1];

extern "C" __global__ void __launch_bounds__(CONV_ROW_BLOCK_X * CONV_ROW_BLOCK_Y)
conv_rows(cudaTextureObject_t src, float4* out, int width, int height, int radius)
{
    extern __shared__ float4 tile[];  // [CONV_ROW_BLOCK_Y][tile_w]
    const int tile_w = CONV_ROW_BLOCK_X * CONV_ROW_RESULTS + 2 * radius;
    const int x0 = blockIdx.x * CONV_ROW_BLOCK_X * CONV_ROW_RESULTS;
    const int y = blockIdx.y * CONV_ROW_BLOCK_Y + threadIdx.y;
    float4* line = tile + threadIdx.y * tile_w;
    const int yc = min(y, height - 1);  // threads past the last row still help to stage
    for (int i = threadIdx.x; i < tile_w; i += CONV_ROW_BLOCK_X)
        line[i] = to_float4(pixel_at(src, x0 - radius + i, yc));
    __syncthreads();
    if (y >= height) return;

#pragma unroll
    for (int r = 0; r < CONV_ROW_RESULTS; ++r) {
        const int xs = r * CONV_ROW_BLOCK_X + threadIdx.x;
        const int x = x0 + xs;
        if (x >= width) break;
        float4 acc = make_float4(0.0f, 0.0f, 0.0f, 0.0f);
        for (int k = 0; k <= 2 * radius; ++k) acc = fma4(c_weights[k], line[xs + k], acc);
        out[(size_t)y * width + x] = acc;
    }
}

extern "C" __global__ void __launch_bounds__(CONV_COL_BLOCK_X * CONV_COL_BLOCK_Y)
conv_columns(const float4* __restrict__ rows, cudaTextureObject_t src, cudaSurfaceObject_t dst,
             int width, int height, int radius)
{
    extern __shared__ float4 tile[];  // [tile_h][CONV_COL_BLOCK_X]
    const int tile_h = CONV_COL_BLOCK_Y * CONV_COL_RESULTS + 2 * radius;
    const int x = blockIdx.x * CONV_COL_BLOCK_X + threadIdx.x;
    const int y0 = blockIdx.y * CONV_COL_BLOCK_Y * CONV_COL_RESULTS;
    const int xc = min(x, width - 1);
    for (int i = threadIdx.y; i < tile_h; i += CONV_COL_BLOCK_Y) {
        const int yy = clamp_int(y0 - radius + i, 0, height - 1);
        tile[i * CONV_COL_BLOCK_X + threadIdx.x] = rows[(size_t)yy * width + xc];
    }
    __syncthreads();
    if (x >= width) return;

#pragma unroll
    for (int r = 0; r < CONV_COL_RESULTS; ++r) {
        const int ys = r * CONV_COL_BLOCK_Y + threadIdx.y;
        const int y = y0 + ys;
        if (y >= height) break;
        float4 acc = make_float4(0.0f, 0.0f, 0.0f, 0.0f);
        for (int k = 0; k <= 2 * radius; ++k)
            acc = fma4(c_weights[k], tile[(ys + k) * CONV_COL_BLOCK_X + threadIdx.x], acc);
        store_pixel(dst, x, y, rgb_with_alpha(acc, pixel_at(src, x, y).w));
    }
}
