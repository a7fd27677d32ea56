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
