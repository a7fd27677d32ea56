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
// perturb_fill_dd / _ext: a pan's exposed pixels (dwell MANDEL_PAN_UNSET, mandelbrot.cu:
// mandel_shift), around the orbit kept from the view the pan started from: pixel (x, y) is
// that view's (x + ox, y + oy), no new reference orbit. The table's radii hold for pixels
// within BLA_REACH half diagonals of the orbit's centre; a pixel beyond takes no BLA steps.
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

// Mirror of PtFillArgs in src/pipeline/explorer/perturbation_kernels.rs.
struct PtFill {
    float* distance;  // or null
    int ox, oy;       // the pixel's place in the orbit's view: (x + ox, y + oy)
};

template <MandelPixel (*PIXEL)(const PtArgs&, int, int, bool), float (*DISTANCE)(const PtArgs&, int, int)>
__device__ __forceinline__ void pt_fill(const PtArgs& a, const PtFill& f)
{
    const int x = blockIdx.x * PT_BLOCK_X + threadIdx.x;
    const int y = blockIdx.y * PT_BLOCK_Y + threadIdx.y;
    if (x >= a.width || y >= a.height) return;
    const size_t i = (size_t)y * a.width + x;
    if (a.dwells[i] != MANDEL_PAN_UNSET) return;
    const int px = x + f.ox, py = y + f.oy;
    PtArgs b = a;
    const double2 st = pt_steps(a, px, py);
    const double reach2 = (double)(BLA_REACH * BLA_REACH) * 0.25 *
                          ((double)a.width * a.width + (double)a.height * a.height);
    if (st.x * st.x + st.y * st.y > reach2) b.bla = nullptr;
    const MandelPixel p = PIXEL(b, px, py, a.smooth != nullptr);
    a.dwells[i] = p.dwell;
    if (a.smooth) a.smooth[i] = p.smooth;
    if (f.distance) f.distance[i] = p.dwell < a.max_dwell ? DISTANCE(b, px, py) : 0.0f;
}

extern "C" __global__ void __launch_bounds__(PT_BLOCK_X * PT_BLOCK_Y) perturb_fill_dd(PtArgs a, PtFill f)
{
    pt_fill<pt_pixel_dd, pt_distance_dd>(a, f);
}

extern "C" __global__ void __launch_bounds__(PT_BLOCK_X * PT_BLOCK_Y) perturb_fill_ext(PtArgs a, PtFill f)
{
    pt_fill<pt_pixel_ext, pt_distance_ext>(a, f);
}
