#include <cstdio>
#include <cstdlib>
#include "sweep.h"
#include "../../../kernels/filters/box_filter.cu"

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
template <int R, int WARPS, int SEGMENT, int STEP>
__global__ void __launch_bounds__(32 * WARPS) box_small_v(cudaTextureObject_t s, cudaSurfaceObject_t d, int w, int h)
{
    box_small_strip<R, WARPS, SEGMENT, STEP>(s, d, w, h);
}
template <int R, int WARPS, int SEGMENT, int STEP>
void launch_box_small(const Args& a, int)
{
    dim3 grid((a.w + (32 - 2 * R) * WARPS - 1) / ((32 - 2 * R) * WARPS), (a.h + SEGMENT - 1) / SEGMENT);
    box_small_v<R, WARPS, SEGMENT, STEP><<<grid, dim3(32, WARPS), 0, a.stream>>>(a.src, a.dst, a.w, a.h);
}
// The warp kernel's layouts for radius R.
template <int R>
void add_small(std::vector<Variant>& out)
{
    out.push_back({"small w4 seg64 step4", launch_box_small<R, 4, 64, 4>, 0});
    out.push_back({"small w4 seg32 step4", launch_box_small<R, 4, 32, 4>, 0});
    out.push_back({"small w4 seg16 step4", launch_box_small<R, 4, 16, 4>, 0});
    out.push_back({"small w4 seg16 step2", launch_box_small<R, 4, 16, 2>, 0});
    out.push_back({"small w4 seg8 step4", launch_box_small<R, 4, 8, 4>, 0});
    out.push_back({"small w8 seg16 step4", launch_box_small<R, 8, 16, 4>, 0});
    out.push_back({"small w2 seg16 step4", launch_box_small<R, 2, 16, 4>, 0});
    out.push_back({"small w4 seg16 step8", launch_box_small<R, 4, 16, 8>, 0});
    out.push_back({"small w4 seg32 step8", launch_box_small<R, 4, 32, 8>, 0});
    out.push_back({"small w4 seg128 step4", launch_box_small<R, 4, 128, 4>, 0});
    out.push_back({"small w4 seg64 step8", launch_box_small<R, 4, 64, 8>, 0});
    out.push_back({"small w4 seg64 step2", launch_box_small<R, 4, 64, 2>, 0});
    out.push_back({"small w8 seg64 step4", launch_box_small<R, 8, 64, 4>, 0});
    out.push_back({"small w2 seg64 step4", launch_box_small<R, 2, 64, 4>, 0});
}
std::vector<Variant> box_variants(int radius, int w, int h, int sm_count)
{
    std::vector<Variant> out;
    switch (radius) {
    case 1: add_small<1>(out); break;
    case 2: add_small<2>(out); break;
    case 3: add_small<3>(out); break;
    case 4: add_small<4>(out); break;
    case 5: add_small<5>(out); break;
    case 6: add_small<6>(out); break;
    case 7: add_small<7>(out); break;
    default: break;
    }
    const int segments[] = {16, 64, 256};
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
