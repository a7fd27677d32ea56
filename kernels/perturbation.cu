// perturbation.cu: dwells of a deep view by perturbation, one thread per pixel.
//
// The per-pixel evaluation is in perturbation.cuh (algorithm, number types and the
// contract there): pt_dwell_dd (double-double) for pixels down to 2^-960, pt_dwell_ext (shared-exponent
// complex numbers) below. The host (src/pipeline/explorer/perturbation_kernels.rs) uploads the reference
// orbit computed in arbitrary precision and launches blocks of PT_BLOCK_X x PT_BLOCK_Y
// threads over the W x H image; each thread writes one dwell. With a BLA table in the
// arguments (PtArgs.bla) each pixel skips steps by its linear maps (pt_dwell_dd/pt_dwell_ext with BLA = true).
#include "perturbation.cuh"

#include "cudalens_constants.h"

extern "C" __global__ void __launch_bounds__(PT_BLOCK_X * PT_BLOCK_Y) perturb_per_pixel_dd(PtArgs a)
{
    const int x = blockIdx.x * PT_BLOCK_X + threadIdx.x;
    const int y = blockIdx.y * PT_BLOCK_Y + threadIdx.y;
    if (x >= a.width || y >= a.height) return;
    a.dwells[(size_t)y * a.width + x] = pt_dwell_dd_any(a, x, y);
}

extern "C" __global__ void __launch_bounds__(PT_BLOCK_X * PT_BLOCK_Y) perturb_per_pixel_ext(PtArgs a)
{
    const int x = blockIdx.x * PT_BLOCK_X + threadIdx.x;
    const int y = blockIdx.y * PT_BLOCK_Y + threadIdx.y;
    if (x >= a.width || y >= a.height) return;
    a.dwells[(size_t)y * a.width + x] = pt_dwell_ext_any(a, x, y);
}
