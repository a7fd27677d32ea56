// levels.cu: the levels filter. R, G and B of each pixel go through a 256-entry table that
// the host computed in f64 (src/filters/levels/cpu.rs, the CPU reference's own table), so
// the result is the reference's bit for bit; alpha passes through.
//
// One pixel a thread; the launch chooses the block (any size) and a grid that covers the
// image. The table comes as 64 words in device memory and is staged in shared memory.
#include "common.cuh"

extern "C" __global__ void levels(cudaTextureObject_t src, cudaSurfaceObject_t dst, int width,
                                  int height, const unsigned int* table)
{
    __shared__ unsigned int words[64];
    const int tid = threadIdx.y * blockDim.x + threadIdx.x;
    for (int i = tid; i < 64; i += blockDim.x * blockDim.y) words[i] = table[i];
    const int x = blockIdx.x * blockDim.x + threadIdx.x;
    const int y = blockIdx.y * blockDim.y + threadIdx.y;
    const uint4 p = texel_at(src, x, y);
    __syncthreads();
    const unsigned char* lut = reinterpret_cast<const unsigned char*>(words);
    // A pixel past the image's right or bottom edge falls outside the surface and is dropped.
    store_word_clipped(dst, x, y,
                       (unsigned int)lut[p.x] | ((unsigned int)lut[p.y] << 8) |
                           ((unsigned int)lut[p.z] << 16) | (p.w << 24));
}

// Every other stored format (typed.cuh), one pixel a thread in TYPED_BLOCK_X x
// TYPED_BLOCK_Y blocks. Integer samples look up the table of every value (256 or 65536
// entries of T) that the host computed with the reference's own map: exact. Floats take
// the reference's f64 steps: t = clamp((v - black) / span, 0, 1) (NaN stays NaN), then
// lo + (hi - lo) * t^(1 / gamma), rounded once to f32. Alpha kept.
#include "cudalens_constants.h"
#include "typed.cuh"

struct LevelsMap {
    double black, span, lo, hi, inv_gamma;
};

template <typename T>
__device__ __forceinline__ float level_value(float v, const T* table, const LevelsMap& m)
{
    return (float)table[(int)v];
}

template <>
__device__ __forceinline__ float level_value<float>(float v, const float*, const LevelsMap& m)
{
    double t = __ddiv_rn(__dsub_rn((double)v, m.black), m.span);
    t = t < 0.0 ? 0.0 : (t > 1.0 ? 1.0 : t);
    return __double2float_rn(__dadd_rn(m.lo, __dmul_rn(__dsub_rn(m.hi, m.lo), pow(t, m.inv_gamma))));
}

template <typename T, int C>
__device__ __forceinline__ void levels_typed(cudaTextureObject_t src, cudaSurfaceObject_t dst,
                                             int width, int height, const T* table, LevelsMap m)
{
    int x, y;
    float4 v;
    if (!typed_pixel<T, C>(src, width, height, x, y, v)) return;
    float4 out = v;
#pragma unroll
    for (int c = 0; c < Colour<C>::count; ++c) set_channel(out, c, level_value<T>(channel_of(v, c), table, m));
    store_values<T, C>(dst, x, y, out, v);
}

#define LEVELS_TYPED(suffix, T, C)                                                           \
    extern "C" __global__ void __launch_bounds__(TYPED_BLOCK_X * TYPED_BLOCK_Y)              \
    levels_##suffix(cudaTextureObject_t src, cudaSurfaceObject_t dst, int width, int height, \
                    const T* table, LevelsMap m)                                             \
    {                                                                                        \
        levels_typed<T, C>(src, dst, width, height, table, m);                               \
    }
TYPED_FORMATS(LEVELS_TYPED)
