#include <cstdio>
#include <cstdlib>
#include "sweep.h"
#include "../../../kernels/histogram.cu"

template <int WARPS, int ROWS>
__global__ void __launch_bounds__(32 * WARPS) histogram_v(cudaTextureObject_t s, int w, int h, unsigned int* bins)
{
    histogram_items<WARPS, ROWS>(s, w, h, bins);
}
template <int WARPS, int ROWS>
void launch_histogram(const Args& a, int per_sm)
{
    long long items = (long long)((a.w + 31) / 32) * ((a.h + ROWS - 1) / ROWS);
    long long grid = (items + WARPS - 1) / WARPS;
    if (grid > (long long)a.sm_count * per_sm) grid = (long long)a.sm_count * per_sm;
    histogram_v<WARPS, ROWS><<<(int)grid, 32 * WARPS, 0, a.stream>>>(a.src, a.w, a.h, a.bins);
}
std::vector<Variant> histogram_variants()
{
    return {
        {"histogram w8 rows8 4/SM", launch_histogram<8, 8>, 4},
        {"histogram w8 rows8 6/SM", launch_histogram<8, 8>, 6},
        {"histogram w8 rows4 4/SM", launch_histogram<8, 4>, 4},
        {"histogram w8 rows16 4/SM", launch_histogram<8, 16>, 4},
        {"histogram w4 rows8 8/SM", launch_histogram<4, 8>, 8},
        {"histogram w8 rows8 8/SM", launch_histogram<8, 8>, 8},
        {"histogram w8 rows8 2/SM", launch_histogram<8, 8>, 2},
    };
}
