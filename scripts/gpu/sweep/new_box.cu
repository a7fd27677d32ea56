#include <cstdio>
#include <cstdlib>
#include "sweep.h"
#include "../../../kernels/box_filter.cu"

template <int T>
__global__ void __launch_bounds__(T) box_v(cudaTextureObject_t s, cudaSurfaceObject_t d, int w, int h, int r, int strip, int segment)
{
    box_strip<T>(s, d, w, h, r, strip, segment);
}
template <int T>
void launch_box(const Args& a, int segment)
{
    const int strip = T * BOX_COLUMNS_PER_THREAD - 2 * a.radius;
    dim3 grid((a.h + segment - 1) / segment, (a.w + strip - 1) / strip);
    size_t shared = 4 * 3 * (T * BOX_COLUMNS_PER_THREAD + T / 32);
    box_v<T><<<grid, T, shared, a.stream>>>(a.src, a.dst, a.w, a.h, a.radius, strip, segment);
}
std::vector<Variant> box_variants(int radius, int w, int h, int sm_count)
{
    std::vector<Variant> out;
    const int segments[] = {16, 32, 64, 128, 256, 512};
    char name[96];
    for (int s : segments) {
        if (128 * 4 - 2 * radius >= 32) {
            snprintf(name, sizeof name, "box T128 seg%d", s);
            out.push_back({name, launch_box<128>, s});
        }
        if (256 * 4 - 2 * radius >= 32) {
            snprintf(name, sizeof name, "box T256 seg%d", s);
            out.push_back({name, launch_box<256>, s});
        }
        snprintf(name, sizeof name, "box T512 seg%d", s);
        out.push_back({name, launch_box<512>, s});
    }
    return out;
}
