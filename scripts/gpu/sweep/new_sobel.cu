#include <cstdio>
#include <cstdlib>
#include "sweep.h"
#include "../../../kernels/sobel.cu"

template <int WARPS, int SEGMENT, int STEP>
__global__ void __launch_bounds__(32 * WARPS) sobel_v(cudaTextureObject_t s, cudaSurfaceObject_t d, int w, int h, float scale)
{
    sobel_strip<WARPS, SEGMENT, STEP>(s, d, w, h, scale);
}
template <int WARPS, int SEGMENT, int STEP>
void launch_sobel(const Args& a, int)
{
    dim3 grid((a.w + 32 * WARPS - 1) / (32 * WARPS), (a.h + SEGMENT - 1) / SEGMENT);
    sobel_v<WARPS, SEGMENT, STEP><<<grid, dim3(32, WARPS), 0, a.stream>>>(a.src, a.dst, a.w, a.h, a.scale);
}
std::vector<Variant> sobel_variants()
{
    return {
        {"sobel w4 seg64 step4", launch_sobel<4, 64, 4>, 0},
        {"sobel w4 seg32 step4", launch_sobel<4, 32, 4>, 0},
        {"sobel w4 seg128 step4", launch_sobel<4, 128, 4>, 0},
        {"sobel w4 seg64 step8", launch_sobel<4, 64, 8>, 0},
        {"sobel w4 seg64 step2", launch_sobel<4, 64, 2>, 0},
        {"sobel w2 seg64 step4", launch_sobel<2, 64, 4>, 0},
        {"sobel w8 seg64 step4", launch_sobel<8, 64, 4>, 0},
        {"sobel w8 seg32 step8", launch_sobel<8, 32, 8>, 0},
    };
}
