#include <cstdio>
#include <cstdlib>
#include "sweep.h"
#include "../../../kernels/filters/transpose.cu"
#include "../../../kernels/copy.cu"

template <int BX, int BY, int ROWS>
__global__ void __launch_bounds__(BX * BY) copy_v(cudaTextureObject_t s, cudaSurfaceObject_t d, int w, int h)
{
    copy_rows<BX, BY, ROWS>(s, d, w, h);
}
template <int TILE, int ROWS>
__global__ void __launch_bounds__(TILE * ROWS) transpose_v(cudaTextureObject_t s, cudaSurfaceObject_t d, int w, int h)
{
    transpose_tile<TILE, ROWS>(s, d, w, h);
}
template <int BX, int BY, int ROWS>
void launch_copy(const Args& a, int)
{
    dim3 grid((a.w + BX - 1) / BX, (a.h + BY * ROWS - 1) / (BY * ROWS));
    copy_v<BX, BY, ROWS><<<grid, dim3(BX, BY), 0, a.stream>>>(a.src, a.dst, a.w, a.h);
}
template <int TILE, int ROWS>
void launch_transpose(const Args& a, int)
{
    dim3 grid((a.w + TILE - 1) / TILE, (a.h + TILE - 1) / TILE);
    transpose_v<TILE, ROWS><<<grid, dim3(TILE, ROWS), 0, a.stream>>>(a.src, a.dst, a.w, a.h);
}
std::vector<Variant> copy_variants()
{
    return {
        {"copy 32x8 rows1", launch_copy<32, 8, 1>, 0},
        {"copy 32x8 rows4", launch_copy<32, 8, 4>, 0},
        {"copy 32x8 rows8", launch_copy<32, 8, 8>, 0},
        {"copy 16x16 rows2", launch_copy<16, 16, 2>, 0},
        {"copy 16x16 rows4", launch_copy<16, 16, 4>, 0},
        {"copy 8x32 rows4", launch_copy<8, 32, 4>, 0},
        {"copy 64x4 rows4", launch_copy<64, 4, 4>, 0},
    };
}
std::vector<Variant> transpose_variants()
{
    return {
        {"transpose 32x8", launch_transpose<32, 8>, 0},
        {"transpose 32x16", launch_transpose<32, 16>, 0},
        {"transpose 32x4", launch_transpose<32, 4>, 0},
        {"transpose 64x8", launch_transpose<64, 8>, 0},
        {"transpose 64x16", launch_transpose<64, 16>, 0},
    };
}
