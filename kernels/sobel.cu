// sobel.cu: Sobel gradient magnitude of luma.
//
// out.rgb = clamp(round(scale * sqrt(Gx^2 + Gy^2)), 0, 255), alpha unchanged, with the
// standard 3x3 kernels on Rec. 709 luma and clamp-to-edge borders (texture addressing).
//
// Launch: blocks of SOBEL_BLOCK_X x SOBEL_BLOCK_Y threads; each thread computes
// SOBEL_PIXELS_PER_THREAD vertically adjacent pixels of one column, so the 3 luma rows of
// one output overlap the next: (PPT + 2) x 3 texture reads for PPT outputs instead of
// 9 x PPT. grid = (ceil(W / BLOCK_X), ceil(H / (BLOCK_Y * PPT))).
#include "common.cuh"

#define SOBEL_BLOCK_X 32
#define SOBEL_BLOCK_Y 8
#define SOBEL_PIXELS_PER_THREAD 4

extern "C" __global__ void __launch_bounds__(SOBEL_BLOCK_X * SOBEL_BLOCK_Y)
sobel(cudaTextureObject_t src, cudaSurfaceObject_t dst, int width, int height, float scale)
{
    const int x = blockIdx.x * SOBEL_BLOCK_X + threadIdx.x;
    const int y0 = (blockIdx.y * SOBEL_BLOCK_Y + threadIdx.y) * SOBEL_PIXELS_PER_THREAD;
    if (x >= width || y0 >= height) return;

    float l[SOBEL_PIXELS_PER_THREAD + 2][3];
    unsigned char alpha[SOBEL_PIXELS_PER_THREAD];
#pragma unroll
    for (int r = 0; r < SOBEL_PIXELS_PER_THREAD + 2; ++r) {
#pragma unroll
        for (int c = 0; c < 3; ++c) {
            uchar4 p = pixel_at(src, x + c - 1, y0 + r - 1);
            l[r][c] = luma_of(p);
            if (c == 1 && r >= 1 && r <= SOBEL_PIXELS_PER_THREAD) alpha[r - 1] = p.w;
        }
    }
#pragma unroll
    for (int i = 0; i < SOBEL_PIXELS_PER_THREAD; ++i) {
        const int y = y0 + i;
        if (y >= height) break;
        float gx = (l[i][2] + 2.0f * l[i + 1][2] + l[i + 2][2]) - (l[i][0] + 2.0f * l[i + 1][0] + l[i + 2][0]);
        float gy = (l[i + 2][0] + 2.0f * l[i + 2][1] + l[i + 2][2]) - (l[i][0] + 2.0f * l[i][1] + l[i][2]);
        unsigned char v = to_u8(scale * sqrtf(gx * gx + gy * gy));
        store_pixel(dst, x, y, make_uchar4(v, v, v, alpha[i]));
    }
}
