// box_filter.cu: exact box mean of the (2R+1)^2 window by separable running sums.
//
// Cost per pixel does not depend on the radius: each thread slides a window along a
// segment of a row (pass 1) or a column (pass 2), adding the entering pixel and
// subtracting the leaving one. Integer sums keep the result exact:
// out = (sum + n/2) / n with n = (2R+1)^2, alpha unchanged.
//
// Segments: a thread starts its window once (2R+1 reads) and then runs over
// `segment` outputs; the host picks segment = max(BOX_MIN_SEGMENT, 4 (2R+1)) so the start
// costs at most a quarter of the run while keeping enough threads for small radii.
//
// Pass 1, box_rows: reads the source through the texture path (clamp addressing gives
//   the border), writes uint4 row sums to a linear buffer. One thread per (row, segment);
//   threads of a block take consecutive rows. Block BOX_BLOCK threads.
// Pass 2, box_columns: one thread per (column, segment); threads of a warp take
//   consecutive columns, so every read of the sums and every surface write is coalesced.
#include "common.cuh"

#define BOX_BLOCK 128
#define BOX_MIN_SEGMENT 64

__device__ __forceinline__ uint4 add_rgb(uint4 a, uint4 b)
{
    return make_uint4(a.x + b.x, a.y + b.y, a.z + b.z, 0u);
}
__device__ __forceinline__ uint4 sub_rgb(uint4 a, uint4 b)
{
    return make_uint4(a.x - b.x, a.y - b.y, a.z - b.z, 0u);
}
__device__ __forceinline__ uint4 rgb_u32(uchar4 p)
{
    return make_uint4(p.x, p.y, p.z, 0u);
}

extern "C" __global__ void __launch_bounds__(BOX_BLOCK)
box_rows(cudaTextureObject_t src, uint4* sums, int width, int height, int radius, int segment)
{
    const int t = blockIdx.x * BOX_BLOCK + threadIdx.x;
    const int y = t % height;
    const int x0 = (t / height) * segment;
    if (x0 >= width) return;
    const int x1 = min(x0 + segment, width);

    uint4 sum = make_uint4(0u, 0u, 0u, 0u);
    for (int k = -radius; k <= radius; ++k) sum = add_rgb(sum, rgb_u32(pixel_at(src, x0 + k, y)));
    uint4* row = sums + (size_t)y * width;
    for (int x = x0; x < x1; ++x) {
        row[x] = sum;
        sum = add_rgb(sum, rgb_u32(pixel_at(src, x + radius + 1, y)));
        sum = sub_rgb(sum, rgb_u32(pixel_at(src, x - radius, y)));
    }
}

extern "C" __global__ void __launch_bounds__(BOX_BLOCK)
box_columns(const uint4* __restrict__ sums, cudaTextureObject_t src, cudaSurfaceObject_t dst,
            int width, int height, int radius, int segment)
{
    const int t = blockIdx.x * BOX_BLOCK + threadIdx.x;
    const int x = t % width;
    const int y0 = (t / width) * segment;
    if (y0 >= height) return;
    const int y1 = min(y0 + segment, height);
    const unsigned int n = (unsigned int)((2 * radius + 1) * (2 * radius + 1));

    uint4 sum = make_uint4(0u, 0u, 0u, 0u);
    for (int k = -radius; k <= radius; ++k)
        sum = add_rgb(sum, sums[(size_t)clamp_int(y0 + k, 0, height - 1) * width + x]);
    for (int y = y0; y < y1; ++y) {
        const unsigned char alpha = pixel_at(src, x, y).w;
        store_pixel(dst, x, y,
                    make_uchar4((sum.x + n / 2) / n, (sum.y + n / 2) / n, (sum.z + n / 2) / n, alpha));
        sum = add_rgb(sum, sums[(size_t)min(y + radius + 1, height - 1) * width + x]);
        sum = sub_rgb(sum, sums[(size_t)max(y - radius, 0) * width + x]);
    }
}
