// unsharp.cu: the column pass of the unsharp mask, out = clamp(round(v + A (v - g)), 0, 255)
// per R, G and B channel, where g is the Gaussian of the gaussian contract before rounding;
// alpha of the source pixel kept.
//
// The host first runs conv_rows of convolution.cu (the Gaussian's row pass) into a float4
// scratch plane. This kernel finishes the Gaussian down each column with the same 2R+1
// weights (uploaded to this module's c_weights) and applies the formula instead of storing
// the blur. Reads of the scratch are coalesced along x; the 2R+1 rows a block reads overlap
// with its neighbours' and are served from L1/L2.
//
// Launch: UNSHARP_BLOCK_X x UNSHARP_BLOCK_Y threads, one output pixel each. Radii up to
// CONV_FUSED_MAX_RADIUS take convolution.cu's unsharp_fused instead (one pass, no scratch).
#include "common.cuh"
#include "cudalens_constants.h"

#define UNSHARP_MAX_TAPS (2 * CONV_MAX_RADIUS + 1)

__constant__ float c_weights[UNSHARP_MAX_TAPS];

extern "C" __global__ void __launch_bounds__(UNSHARP_BLOCK_X * UNSHARP_BLOCK_Y)
unsharp_columns(const float4* rows, cudaTextureObject_t src, cudaSurfaceObject_t dst, int width,
                int height, int radius, float amount)
{
    const int x = blockIdx.x * UNSHARP_BLOCK_X + threadIdx.x;
    const int y = blockIdx.y * UNSHARP_BLOCK_Y + threadIdx.y;
    if (x >= width || y >= height) return;
    float4 g = make_float4(0.f, 0.f, 0.f, 0.f);
    for (int k = 0; k <= 2 * radius; ++k) {
        const int yy = clamp_int(y + k - radius, 0, height - 1);
        g = fma4(c_weights[k], rows[(long long)yy * width + x], g);
    }
    const uchar4 p = pixel_at(src, x, y);
    store_pixel(dst, x, y,
                make_uchar4(unsharp_value((float)p.x, g.x, amount), unsharp_value((float)p.y, g.y, amount),
                            unsharp_value((float)p.z, g.z, amount), p.w));
}
