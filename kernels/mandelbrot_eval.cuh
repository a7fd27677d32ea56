// mandelbrot_eval.cuh: the per-pixel evaluation of the Mandelbrot kernels, the one place
// that iterates. Everything else (per-pixel grid, Mariani-Silver refinement) calls
// evaluate_pixel<T>; another evaluator (e.g. perturbation for deep zooms) can take its
// place by providing the same signature.
//
// Contract (shared with the Rust reference, src/mandelbrot/cpu.rs): pixel (x, y) of a
// W x H view with centre (cx, cy) and pixel size s is
//   c = (cx + (x + 0.5 - W/2) s, cy - (y + 0.5 - H/2) s);
// z = c, n = 0; while n < max_dwell and |z|^2 < 4: z = z^2 + c, n += 1. The dwell is n.
// A Julia set (julia != 0) starts from z = that point of the pixel and iterates with the
// fixed c = (jr, ji).
// The continuous escape value of an escaped point goes on iterating until |z|^2 >= 65536
// (m more steps, at most 16): nu = n + m + 1 - log2(log2 |z|^2).
// f64 follows the reference operation for operation (each product and sum rounded, no FMA
// contraction), so GPU f64 dwells equal the CPU's exactly; f32 is left free to contract.
// The distance estimate in pixels (mandel_distance, the perturbation kernels' pt_distance):
// beside z the derivative w = dz/dp by the pixel coordinate (dz/dc or dz/dz_0 times the pixel
// size s) starts at s and takes w <- 2 z w + a a step (a = s for the Mandelbrot set, 0 for a
// Julia set); after escape both go on as for nu, then d = |z| ln|z|^2 / |w| (Milnor's
// estimate), as src/mandelbrot/cpu.rs: distance_after_escape.
// Interior by periodicity (Brent): every MANDEL_PERIOD_STRIDE steps z is compared with the
// z saved at the last power-of-two step. Equal, the orbit repeats in this arithmetic, so
// it never escapes and its dwell is the max dwell: no approximation, the dwell is the one
// the plain loop gives, reached early.
#pragma once

#include "cudalens_constants.h"

#define MANDEL_SMOOTH_BAILOUT_SQ 65536
#define MANDEL_SMOOTH_EXTRA_MAX 16

// What the host passes about the view.
struct MandelView {
    double cx, cy, step;
    int width, height, max_dwell;
    int julia;      // nonzero: z_0 = the pixel's point, c = (jr, ji)
    double jr, ji;
};

// One pixel's result: the dwell, and the continuous value (the dwell for interior points,
// unset unless asked for).
struct MandelPixel {
    int dwell;
    float smooth;
};

__device__ __forceinline__ double mul_(double a, double b) { return __dmul_rn(a, b); }
__device__ __forceinline__ double add_(double a, double b) { return __dadd_rn(a, b); }
__device__ __forceinline__ double sub_(double a, double b) { return __dsub_rn(a, b); }
__device__ __forceinline__ double log2_(double a) { return log2(a); }
__device__ __forceinline__ float mul_(float a, float b) { return a * b; }
__device__ __forceinline__ float add_(float a, float b) { return a + b; }
__device__ __forceinline__ float sub_(float a, float b) { return a - b; }
__device__ __forceinline__ float log2_(float a) { return log2f(a); }

// c of pixel (x, y), in the reference's order.
template <typename T>
__device__ __forceinline__ void pixel_to_c(const MandelView& v, int x, int y, T& cr, T& ci)
{
    const T s = (T)v.step;
    cr = add_((T)v.cx, mul_(sub_(add_((T)x, (T)0.5), mul_((T)v.width, (T)0.5)), s));
    ci = sub_((T)v.cy, mul_(sub_(add_((T)y, (T)0.5), mul_((T)v.height, (T)0.5)), s));
}

// One step z <- z^2 + c.
template <typename T>
__device__ __forceinline__ void mandel_step(T& zr, T& zi, T cr, T ci)
{
    const T t = add_(sub_(mul_(zr, zr), mul_(zi, zi)), cr);
    zi = add_(mul_(mul_((T)2, zr), zi), ci);
    zr = t;
}

template <typename T>
__device__ __forceinline__ float smooth_after_escape(int n, T zr, T zi, T cr, T ci)
{
    T r2 = add_(mul_(zr, zr), mul_(zi, zi));
    int m = 0;
    while (r2 < (T)MANDEL_SMOOTH_BAILOUT_SQ && m < MANDEL_SMOOTH_EXTRA_MAX) {
        mandel_step(zr, zi, cr, ci);
        r2 = add_(mul_(zr, zr), mul_(zi, zi));
        ++m;
    }
    return (float)sub_((T)(n + m + 1), log2_(log2_(r2)));
}

// One step z <- z^2 + c with its derivative w <- 2 z w + a (f64, the reference's order).
__device__ __forceinline__ void mandel_step_dz(double& zr, double& zi, double& wr, double& wi, double cr, double ci,
                                               double a)
{
    const double t = sub_(mul_(zr, wr), mul_(zi, wi));
    const double u = add_(mul_(zr, wi), mul_(zi, wr));
    wr = add_(mul_(2.0, t), a);
    wi = mul_(2.0, u);
    mandel_step(zr, zi, cr, ci);
}

__device__ __forceinline__ float distance_after_escape(double zr, double zi, double wr, double wi, double cr,
                                                       double ci, double a)
{
    double r2 = add_(mul_(zr, zr), mul_(zi, zi));
    int m = 0;
    while (r2 < (double)MANDEL_SMOOTH_BAILOUT_SQ && m < MANDEL_SMOOTH_EXTRA_MAX) {
        mandel_step_dz(zr, zi, wr, wi, cr, ci, a);
        r2 = add_(mul_(zr, zr), mul_(zi, zi));
        ++m;
    }
    return (float)__ddiv_rn(mul_(__dsqrt_rn(r2), log(r2)), __dsqrt_rn(add_(mul_(wr, wr), mul_(wi, wi))));
}

// Pixel (x, y)'s distance estimate in f64, 0 where it did not escape (cpu.rs: distance):
// the plain loop with the derivative beside it (no periodicity check: the caller skips
// points whose dwell is the max dwell).
__device__ __forceinline__ float distance_at(const MandelView& v, int x, int y)
{
    double zr, zi, cr, ci;
    pixel_to_c<double>(v, x, y, zr, zi);
    if (v.julia) {
        cr = v.jr;
        ci = v.ji;
    } else {
        cr = zr;
        ci = zi;
    }
    const double a = v.julia ? 0.0 : v.step;
    double wr = v.step, wi = 0.0;
    int n = 0;
    while (n < v.max_dwell && add_(mul_(zr, zr), mul_(zi, zi)) < 4.0) {
        mandel_step_dz(zr, zi, wr, wi, cr, ci, a);
        ++n;
    }
    return n < v.max_dwell ? distance_after_escape(zr, zi, wr, wi, cr, ci, a) : 0.0f;
}

// An orbit in progress, resumable: the fused refinement (mandelbrot.cu) stops between
// steps to ask whether its cell is decided. run() takes the steps of evaluate_pixel in the
// same order, so a resumed orbit ends with the same dwell and value as an uninterrupted one.
template <typename T>
struct MandelOrbit {
    T cr, ci, zr, zi;
    int n;
    // The z saved for the periodicity check ((4, 4) before any: no orbit point is there)
    // and the step of the next save.
    T pr, pi;
    int save_at;

    __device__ __forceinline__ void start(const MandelView& v, int x, int y)
    {
        pixel_to_c(v, x, y, zr, zi);
        if (v.julia) {
            cr = (T)v.jr;
            ci = (T)v.ji;
        } else {
            cr = zr;
            ci = zi;
        }
        n = 0;
        pr = pi = (T)4;
        save_at = MANDEL_PERIOD_STRIDE;
    }

    // At most `limit` more steps; true once the orbit escaped or reached the max dwell.
    __device__ __forceinline__ bool run(const MandelView& v, int limit)
    {
        const int end = n + min(limit, v.max_dwell - n);
        while (n < end) {
            // The plain loop up to the next multiple of the stride, then the check there.
            const int stop = min(end, (n + MANDEL_PERIOD_STRIDE) & ~(MANDEL_PERIOD_STRIDE - 1));
            while (n < stop && add_(mul_(zr, zr), mul_(zi, zi)) < (T)4) {
                mandel_step(zr, zi, cr, ci);
                ++n;
            }
            if (n < stop || (n & (MANDEL_PERIOD_STRIDE - 1)) != 0)
                break; // escaped, or at the end of this call's steps
            if (zr == pr && zi == pi) {
                n = v.max_dwell; // a cycle: interior
                break;
            }
            if (n == save_at) {
                pr = zr;
                pi = zi;
                save_at <<= 1;
            }
        }
        return n < end || n == v.max_dwell;
    }

    __device__ __forceinline__ MandelPixel result(const MandelView& v, bool want_smooth) const
    {
        MandelPixel p;
        p.dwell = n;
        p.smooth = (want_smooth && n < v.max_dwell) ? smooth_after_escape(n, zr, zi, cr, ci) : (float)n;
        return p;
    }
};

// The per-pixel evaluation.
template <typename T>
__device__ __forceinline__ MandelPixel evaluate_pixel(const MandelView& v, int x, int y, bool want_smooth)
{
    MandelOrbit<T> o;
    o.start(v, x, y);
    o.run(v, v.max_dwell);
    return o.result(v, want_smooth);
}
