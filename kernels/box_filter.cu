// box_filter.cu: exact box mean of the (2R+1)^2 window by separable running sums.
//
// Cost per pixel does not depend on the radius: each thread slides a window along a
// segment of a row (pass 1) or a column (pass 2), adding the entering pixel and
// subtracting the leaving one. Integer sums keep the result exact:
// out = (sum + n/2) / n with n = (2R+1)^2, alpha unchanged.
//
// Pass 1, box_rows: one warp per (row, segment of L outputs). The warp reads the L + 2R + 1
//   source pixels the segment needs, 32 consecutive ones at a time, through the texture
//   path (clamp addressing gives the border), and turns them into inclusive prefix sums P
//   with a shuffle scan (carry between chunks), kept in shared memory. Each output is then
//   one difference, P[j + 2R + 1] - P[j], written to the uint4 row-sum buffer by 32
//   consecutive lanes (coalesced). The host picks L = max(BOX_ROW_MIN_SEGMENT, 4 (2R+1))
//   rounded up to 32, so the apron costs at most a quarter of the work at any radius.
//   grid = (ceil(W / L), H), block = 32 threads, dynamic shared = 3 (L + 2R + 1) u32.
// Pass 2, box_columns: a running sum down a segment of a column: one thread per (column,
//   segment), threads of a warp take consecutive columns, so every read of the sums and
//   every surface write is coalesced. The thread starts its window once (2R+1 reads) and
//   then runs over max(BOX_MIN_SEGMENT, 4 (2R+1)) outputs. Block BOX_BLOCK threads.
#include "common.cuh"

#define BOX_BLOCK 128
#define BOX_MIN_SEGMENT 64
#define BOX_ROW_MIN_SEGMENT 256

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

extern "C" __global__ void __launch_bounds__(32)
box_rows(cudaTextureObject_t src, uint4* sums, int width, int height, int radius, int segment)
{
    extern __shared__ unsigned int prefix[];  // [3][n]: R, G, B prefix sums
    const int y = blockIdx.y;
    const int x0 = blockIdx.x * segment;
    const int n = segment + 2 * radius + 1;   // extended pixels x0 - R - 1 ... x0 + L + R - 1
    const int lane = threadIdx.x;
    uint4 carry = make_uint4(0u, 0u, 0u, 0u);
    for (int base = 0; base < n; base += 32) {
        const int i = base + lane;
        uint4 v = i < n ? rgb_u32(pixel_at(src, x0 - radius - 1 + i, y)) : make_uint4(0u, 0u, 0u, 0u);
#pragma unroll
        for (int d = 1; d < 32; d <<= 1) {
            const unsigned int r = __shfl_up_sync(0xffffffffu, v.x, d);
            const unsigned int g = __shfl_up_sync(0xffffffffu, v.y, d);
            const unsigned int b = __shfl_up_sync(0xffffffffu, v.z, d);
            if (lane >= d) v = add_rgb(v, make_uint4(r, g, b, 0u));
        }
        v = add_rgb(v, carry);
        if (i < n) {
            prefix[i] = v.x;
            prefix[n + i] = v.y;
            prefix[2 * n + i] = v.z;
        }
        carry = make_uint4(__shfl_sync(0xffffffffu, v.x, 31), __shfl_sync(0xffffffffu, v.y, 31),
                           __shfl_sync(0xffffffffu, v.z, 31), 0u);
    }
    __syncwarp();
    uint4* row = sums + (size_t)y * width;
    for (int j = lane; j < segment && x0 + j < width; j += 32) {
        const int hi = j + 2 * radius + 1;
        row[x0 + j] = make_uint4(prefix[hi] - prefix[j], prefix[n + hi] - prefix[n + j],
                                 prefix[2 * n + hi] - prefix[2 * n + j], 0u);
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
