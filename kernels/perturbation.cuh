// perturbation.cuh: the dwell of one pixel of a deep view by perturbation around a
// reference orbit, as __device__ functions any kernel can call (perturbation.cu per pixel;
// the Mariani-Silver refinement of mandelbrot.cu can call pt_dwell_f64 / pt_dwell_ext in
// place of its dwell_at for deep views).
//
// The reference orbit Z_0 = 0, Z_1 = C, Z_{k+1} = Z_k^2 + C at the view's exact centre is
// computed on the host in arbitrary precision (src/mandelbrot/deep/orbit.rs) up to its last
// index K (the first |Z_K|^2 >= 4, or max_dwell + 1). A pixel at offset dc from the centre
// keeps delta_k = z - Z_k and iterates delta_{k+1} = (2 Z_k + delta_k) delta_k + dc. The loop
// follows the contract (z = c, count z <- z^2 + c while |z|^2 < 4 and n < max_dwell); before
// each step it rebases, delta <- Z_k + delta_k and k <- 0, when |Z_k + delta_k| < |delta_k|
// (glitch avoidance by rebasing) or when k == K (the reference escaped or ended first).
//
// Two number types: f64 (pt_dwell_f64; orbit = Z_k as double2) for pixels down to 2^-960,
// and PtComplexExp, a complex with one shared int exponent (pt_dwell_ext; orbit = mantissas,
// orbit_exp = exponents) below. Every operation is written exactly like the Rust twin
// (src/mandelbrot/deep/perturb.rs, complex_exp.rs): explicit _rn intrinsics, so no FMA
// contraction, and the same order, so GPU dwells equal the CPU's bit for bit.
//
// Self-contained (no system includes) so NVRTC can compile it from the embedded source.
#pragma once

// Mirror of PtArgs in src/cuda/perturbation_kernels.rs (same fields, same order).
struct PtArgs {
    int* dwells;
    int width, height, max_dwell;
    const double2* orbit;  // Z_0..Z_K: values (f64 path) or mantissas (extended path)
    const int* orbit_exp;  // exponents of the extended path (unused by the f64 path)
    int orbit_last;        // K
    double step;           // pixel size (f64 path) or its mantissa in [1, 2) (extended)
    int step_exp;          // the pixel size's exponent (extended path)
};

__device__ __forceinline__ double pt_mul(double a, double b) { return __dmul_rn(a, b); }
__device__ __forceinline__ double pt_add(double a, double b) { return __dadd_rn(a, b); }
__device__ __forceinline__ double pt_sub(double a, double b) { return __dsub_rn(a, b); }

// 2^k for -1022 <= k <= 1023 (exact).
__device__ __forceinline__ double pt_pow2(int k) { return __longlong_as_double((long long)(k + 1023) << 52); }

// x * 2^k for |x| < 4, k <= 1023; 0 below 2^-1080 (float_exp.rs: ldexp_small).
__device__ __forceinline__ double pt_ldexp_small(double x, int k)
{
    if (k < -1080) return 0.0;
    if (k >= -1022) return pt_mul(x, pt_pow2(k));
    return pt_mul(pt_mul(x, pt_pow2(-540)), pt_pow2(k + 540));
}

// x * 2^n, exact for normal results (complex_exp.rs: scale2).
__device__ __forceinline__ double pt_scale2(double x, int n)
{
    if (n > 1000) return pt_mul(pt_mul(x, pt_pow2(1000)), pt_pow2(n - 1000));
    if (n < -1000) return pt_mul(pt_mul(x, pt_pow2(-1000)), pt_pow2(n + 1000));
    return pt_mul(x, pt_pow2(n));
}

// k with 1 <= |m| 2^-k < 2, for finite nonzero m (float_exp.rs: split_exponent).
__device__ __forceinline__ int pt_exponent(double m)
{
    const int biased = (int)((__double_as_longlong(m) >> 52) & 0x7ff);
    if (biased != 0) return biased - 1023;
    // Subnormal: scale up first (exact).
    return (int)((__double_as_longlong(pt_mul(m, pt_pow2(64))) >> 52) & 0x7ff) - 1023 - 64;
}

// (re + i im) 2^e with 1 <= max(|re|, |im|) < 2, or zero (all fields 0).
struct PtComplexExp {
    double re, im;
    int e;
};

__device__ __forceinline__ PtComplexExp pt_cx(double re, double im, int e)
{
    const double m = fmax(fabs(re), fabs(im));
    if (m == 0.0) return PtComplexExp{0.0, 0.0, 0};
    const int k = pt_exponent(m);
    return PtComplexExp{pt_scale2(re, -k), pt_scale2(im, -k), e + k};
}

__device__ __forceinline__ bool pt_is_zero(PtComplexExp a) { return a.re == 0.0 && a.im == 0.0; }

__device__ __forceinline__ PtComplexExp pt_cx_add(PtComplexExp a, PtComplexExp b)
{
    if (pt_is_zero(a)) return b;
    if (pt_is_zero(b)) return a;
    if (a.e >= b.e) {
        const int d = b.e - a.e;
        return pt_cx(pt_add(a.re, pt_ldexp_small(b.re, d)), pt_add(a.im, pt_ldexp_small(b.im, d)), a.e);
    }
    const int d = a.e - b.e;
    return pt_cx(pt_add(pt_ldexp_small(a.re, d), b.re), pt_add(pt_ldexp_small(a.im, d), b.im), b.e);
}

__device__ __forceinline__ PtComplexExp pt_cx_mul(PtComplexExp a, PtComplexExp b)
{
    return pt_cx(pt_sub(pt_mul(a.re, b.re), pt_mul(a.im, b.im)),
                 pt_add(pt_mul(a.re, b.im), pt_mul(a.im, b.re)), a.e + b.e);
}

__device__ __forceinline__ PtComplexExp pt_cx_double(PtComplexExp a)
{
    if (!pt_is_zero(a)) a.e += 1;
    return a;
}

// |a|^2 < |b|^2
__device__ __forceinline__ bool pt_cx_norm_less(PtComplexExp a, PtComplexExp b)
{
    if (pt_is_zero(b)) return false;
    if (pt_is_zero(a)) return true;
    const double qa = pt_add(pt_mul(a.re, a.re), pt_mul(a.im, a.im));
    const double qb = pt_add(pt_mul(b.re, b.re), pt_mul(b.im, b.im));
    const int d = 2 * (b.e - a.e);
    if (d >= 4) return true;
    if (d <= -4) return false;
    return qa < pt_mul(qb, pt_pow2(d));
}

// |a|^2 >= 4
__device__ __forceinline__ bool pt_cx_escaped(PtComplexExp a)
{
    if (pt_is_zero(a) || a.e <= -2) return false;
    if (a.e >= 2) return true;
    const double s = pt_pow2(a.e);
    const double r = pt_mul(a.re, s), i = pt_mul(a.im, s);
    return pt_add(pt_mul(r, r), pt_mul(i, i)) >= 4.0;
}

// dc of pixel (x, y): (((x + 0.5) - W 0.5) step, -(((y + 0.5) - H 0.5) step)) (perturb.rs: offset_f64).
__device__ __forceinline__ double2 pt_offset(const PtArgs& a, int x, int y)
{
    return make_double2(pt_mul(pt_sub(pt_add((double)x, 0.5), pt_mul((double)a.width, 0.5)), a.step),
                        -pt_mul(pt_sub(pt_add((double)y, 0.5), pt_mul((double)a.height, 0.5)), a.step));
}

// The dwell of pixel (x, y), f64 perturbation (perturb.rs: dwell_f64).
__device__ __forceinline__ int pt_dwell_f64(const PtArgs& a, int x, int y)
{
    const double2 dc = pt_offset(a, x, y);
    double dr = dc.x, di = dc.y;
    int k = 1, n = 0;
    for (;;) {
        double2 Z = __ldg(&a.orbit[k]);
        const double zr = pt_add(Z.x, dr), zi = pt_add(Z.y, di);
        const double norm = pt_add(pt_mul(zr, zr), pt_mul(zi, zi));
        if (n >= a.max_dwell || norm >= 4.0) return n;
        if (k == a.orbit_last || norm < pt_add(pt_mul(dr, dr), pt_mul(di, di))) {
            dr = zr;
            di = zi;
            k = 0;
            Z = __ldg(&a.orbit[0]);
        }
        const double ar = pt_add(pt_mul(2.0, Z.x), dr);
        const double ai = pt_add(pt_mul(2.0, Z.y), di);
        const double nr = pt_add(pt_sub(pt_mul(ar, dr), pt_mul(ai, di)), dc.x);
        const double ni = pt_add(pt_add(pt_mul(ar, di), pt_mul(ai, dr)), dc.y);
        dr = nr;
        di = ni;
        ++k;
        ++n;
    }
}

__device__ __forceinline__ PtComplexExp pt_orbit_point(const PtArgs& a, int k)
{
    const double2 m = __ldg(&a.orbit[k]);
    return PtComplexExp{m.x, m.y, __ldg(&a.orbit_exp[k])};
}

// The dwell of pixel (x, y), extended exponents (perturb.rs: dwell_ext).
__device__ __forceinline__ int pt_dwell_ext(const PtArgs& a, int x, int y)
{
    const double2 offset = pt_offset(a, x, y);
    const PtComplexExp dc = pt_cx(offset.x, offset.y, a.step_exp);
    PtComplexExp d = dc;
    int k = 1, n = 0;
    for (;;) {
        PtComplexExp Z = pt_orbit_point(a, k);
        const PtComplexExp z = pt_cx_add(Z, d);
        if (n >= a.max_dwell || pt_cx_escaped(z)) return n;
        if (k == a.orbit_last || pt_cx_norm_less(z, d)) {
            d = z;
            k = 0;
            Z = pt_orbit_point(a, 0);
        }
        d = pt_cx_add(pt_cx_mul(pt_cx_add(pt_cx_double(Z), d), d), dc);
        ++k;
        ++n;
    }
}
