// geometry.cu: image edits on RGBA8 images (src/edit/). Each kernel writes one output
// pixel per thread; grid = (ceil(out_w / 16), ceil(out_h / 16)) of 16 x 16 blocks.
//
// edit_move:     rotations, flips and crops: output (x, y) reads input
//                (a x + b y + c, d x + e y + f), an integer matrix from the host.
// edit_nearest:  nearest-neighbour resize through per-axis index tables from the host.
// edit_resample: one separable pass of Pillow's resampling (along x, or along y), with
//                the windows and fixed-point weights computed on the host exactly as the
//                CPU reference does; optionally premultiplies alpha on read and undoes it
//                on write, as Pillow's Image.resize wraps RGBA in RGBa.

#include "common.cuh"

__device__ __forceinline__ bool edit_thread(int out_w, int out_h, int* x, int* y)
{
    *x = blockIdx.x * blockDim.x + threadIdx.x;
    *y = blockIdx.y * blockDim.y + threadIdx.y;
    return *x < out_w && *y < out_h;
}

extern "C" __global__ void edit_move(cudaTextureObject_t src, cudaSurfaceObject_t dst, int out_w,
                                     int out_h, int a, int b, int c, int d, int e, int f)
{
    int x, y;
    if (!edit_thread(out_w, out_h, &x, &y)) return;
    store_pixel(dst, x, y, pixel_at(src, a * x + b * y + c, d * x + e * y + f));
}

extern "C" __global__ void edit_nearest(cudaTextureObject_t src, cudaSurfaceObject_t dst,
                                        const int* __restrict__ xs, const int* __restrict__ ys,
                                        int out_w, int out_h)
{
    int x, y;
    if (!edit_thread(out_w, out_h, &x, &y)) return;
    store_pixel(dst, x, y, pixel_at(src, xs[x], ys[y]));
}

// a * b / 255 rounded, as Pillow's MULDIV255.
__device__ __forceinline__ unsigned int muldiv255(unsigned int a, unsigned int b)
{
    const unsigned int t = a * b + 128u;
    return ((t >> 8) + t) >> 8;
}

__device__ __forceinline__ uchar4 premultiply(uchar4 p)
{
    return make_uchar4(muldiv255(p.x, p.w), muldiv255(p.y, p.w), muldiv255(p.z, p.w), p.w);
}

__device__ __forceinline__ unsigned char unpremultiply_channel(unsigned int c, unsigned int a)
{
    const unsigned int v = 255u * c / a;
    return (unsigned char)(v > 255u ? 255u : v);
}

__device__ __forceinline__ uchar4 unpremultiply(uchar4 p)
{
    if (p.w == 0 || p.w == 255) return p;
    return make_uchar4(unpremultiply_channel(p.x, p.w), unpremultiply_channel(p.y, p.w),
                       unpremultiply_channel(p.z, p.w), p.w);
}

__device__ __forceinline__ unsigned char clip8(int acc, int precision_bits)
{
    return (unsigned char)clamp_int(acc >> precision_bits, 0, 255);
}

extern "C" __global__ void edit_resample(cudaTextureObject_t src, cudaSurfaceObject_t dst,
                                         const int* __restrict__ start,
                                         const int* __restrict__ count,
                                         const int* __restrict__ weights, int ksize, int out_w,
                                         int out_h, int vertical, int premultiply_in,
                                         int unpremultiply_out, int precision_bits)
{
    int x, y;
    if (!edit_thread(out_w, out_h, &x, &y)) return;
    const int i = vertical ? y : x;
    const int first = start[i];
    const int n = count[i];
    const int* w = weights + (size_t)i * ksize;
    const int half = 1 << (precision_bits - 1);
    int r = half, g = half, b = half, a = half;
    for (int k = 0; k < n; ++k) {
        uchar4 p = vertical ? pixel_at(src, x, first + k) : pixel_at(src, first + k, y);
        if (premultiply_in) p = premultiply(p);
        const int wk = w[k];
        r += (int)p.x * wk;
        g += (int)p.y * wk;
        b += (int)p.z * wk;
        a += (int)p.w * wk;
    }
    uchar4 out = make_uchar4(clip8(r, precision_bits), clip8(g, precision_bits),
                             clip8(b, precision_bits), clip8(a, precision_bits));
    if (unpremultiply_out) out = unpremultiply(out);
    store_pixel(dst, x, y, out);
}
