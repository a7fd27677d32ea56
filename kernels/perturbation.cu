// perturbation.cu: dwells of a deep view by perturbation, one thread per pixel.
//
// The per-pixel evaluation is in perturbation.cuh (algorithm, number types and the
// contract there): pt_pixel_dd (double-double) for pixels down to 2^-960, pt_pixel_ext
// (shared-exponent complex numbers) below. The host (src/pipeline/explorer/
// perturbation_kernels.rs) uploads the reference orbit computed in arbitrary precision and
// launches blocks of PT_BLOCK_X x PT_BLOCK_Y threads over the W x H image; each thread
// writes one dwell, and its continuous value when PtArgs.smooth is set. With a BLA table in
// the arguments (PtArgs.bla) each pixel skips steps by its linear maps.
// perturb_distance_dd / _ext: the distance estimate of every pixel whose dwell (PtArgs.dwells,
// a computed frame: per pixel or refined) is below the max dwell, 0 elsewhere, the same
// layout; the pixel iterates again with its derivative.
#include "perturbation.cuh"

#include "cudalens_constants.h"

template <MandelPixel (*PIXEL)(const PtArgs&, int, int, bool)>
__device__ __forceinline__ void pt_per_pixel(const PtArgs& a)
{
    const int x = blockIdx.x * PT_BLOCK_X + threadIdx.x;
    const int y = blockIdx.y * PT_BLOCK_Y + threadIdx.y;
    if (x >= a.width || y >= a.height) return;
    const MandelPixel p = PIXEL(a, x, y, a.smooth != nullptr);
    const size_t i = (size_t)y * a.width + x;
    a.dwells[i] = p.dwell;
    if (a.smooth) a.smooth[i] = p.smooth;
}

extern "C" __global__ void __launch_bounds__(PT_BLOCK_X * PT_BLOCK_Y) perturb_per_pixel_dd(PtArgs a)
{
    pt_per_pixel<pt_pixel_dd>(a);
}

extern "C" __global__ void __launch_bounds__(PT_BLOCK_X * PT_BLOCK_Y) perturb_per_pixel_ext(PtArgs a)
{
    pt_per_pixel<pt_pixel_ext>(a);
}

template <float (*DISTANCE)(const PtArgs&, int, int)>
__device__ __forceinline__ void pt_distance(const PtArgs& a, float* distance)
{
    const int x = blockIdx.x * PT_BLOCK_X + threadIdx.x;
    const int y = blockIdx.y * PT_BLOCK_Y + threadIdx.y;
    if (x >= a.width || y >= a.height) return;
    const size_t i = (size_t)y * a.width + x;
    distance[i] = a.dwells[i] < a.max_dwell ? DISTANCE(a, x, y) : 0.0f;
}

extern "C" __global__ void __launch_bounds__(PT_BLOCK_X * PT_BLOCK_Y) perturb_distance_dd(PtArgs a, float* distance)
{
    pt_distance<pt_distance_dd>(a, distance);
}

extern "C" __global__ void __launch_bounds__(PT_BLOCK_X * PT_BLOCK_Y) perturb_distance_ext(PtArgs a, float* distance)
{
    pt_distance<pt_distance_ext>(a, distance);
}
