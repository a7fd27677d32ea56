// perturbation.cuh: the dwell of one pixel of a deep view by perturbation around a
// reference orbit, as __device__ functions any kernel can call (perturbation.cu per pixel;
// the Mariani-Silver refinement of mandelbrot.cu can call pt_dwell_dd / pt_dwell_ext in
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
// Julia sets (c fixed, z_0 = the pixel): the orbit is two segments, the critical orbit
// 0, c, c^2 + c, ... up to index rebase_last (what rebasing restarts from, as Z_0 = 0 is for
// the Mandelbrot set), then Z_0 = the centre, Z_{k+1} = Z_k^2 + c from index orbit_start on.
// A pixel starts at orbit_start with delta = its offset and adds nothing per step (julia != 0:
// its c is the reference's); the end of either segment rebases. For the Mandelbrot set
// orbit_start = 1 and rebase_last = orbit_last.
//
// Two number types: double-double (pt_dwell_dd; PtDd = hi + lo, ~106 bits) for pixels down
// to 2^-960, and PtComplexExp, a complex with one shared int exponent (pt_dwell_ext; orbit =
// mantissas, orbit_exp = exponents) below. Double-double because near a minibrot a dwell can
// change when c moves by 1e-14 of a pixel, the error f64's 2^-53 makes on a delta of hundreds
// of pixels (dc, delta and Z_k all need the extra bits: src/mandelbrot/deep/perturb.rs).
// Every operation is written exactly like the Rust twin (perturb.rs, double_double.rs,
// complex_exp.rs): explicit _rn intrinsics, so no FMA contraction (the FMAs of the
// double-double products are explicit __fma_rn, Rust's f64::mul_add), and the same order,
// so GPU dwells equal the CPU's bit for bit.
//
// Continuous escape values (pt_pixel_dd / pt_pixel_ext): the pixel's z = Z_k + delta_k at
// escape in f64 goes on with smooth_after_escape of mandelbrot_eval.cuh, c in f64 being the
// centre plus the pixel's offset (PtArgs.cr/ci; a Julia set's c as it is), as perturb.rs does.
//
// Distance estimates (pt_distance): with DZ the loops carry w = dz/dp (dz/dc, or dz/dz_0 for a
// Julia set, times the pixel size s) as a PtComplexExp on both paths (w passes below f64's
// range on deep views): w starts at s and takes w <- 2 z w + a a step (a = s, or 0 for a Julia
// set), w <- A w + B a a BLA step; rebasing leaves z and so w. At escape w in f64 goes on with
// z as distance_after_escape of mandelbrot_eval.cuh (perturb.rs: Derivative).
//
// BLA (bivariate linear approximation, src/mandelbrot/deep/bla.rs): when PtArgs.bla is set, a
// pixel at index k > 0 first looks for a linear map delta <- A delta + B dc of 2^l steps (levels
// l with 2^l dividing k - 1, the longest first) whose radius R holds |Re delta| + |Im delta|
// and that ends within max_dwell; it takes the first, else one ordinary step. The table is
// built on the host, one array of levels (bla_level[i]: first entry of level i + 1).
//
// No system includes, so NVRTC can compile it from the embedded sources.
#pragma once

#include "mandelbrot_eval.cuh"

// Mirror of PtArgs in src/pipeline/explorer/perturbation_kernels.rs (same fields, same order).
struct PtArgs {
    int* dwells;
    float* smooth;         // continuous values (per-pixel kernels), or null
    int width, height, max_dwell;
    // Z_0..Z_K. Double-double path: 2 entries per point, (re.hi, im.hi) then (re.lo, im.lo).
    // Extended path: one entry per point, the mantissas.
    const double2* orbit;
    const int* orbit_exp;  // exponents of the extended path (unused by the double-double path)
    int orbit_last;        // K
    double step;           // pixel size's high part (double-double) or mantissa in [1, 2)
    int step_exp;          // the pixel size's exponent (extended path)
    double step_lo;        // pixel size's low part (double-double path)
    int orbit_start;       // where pixels start: 1, or a Julia set's Z_0
    int rebase_last;       // last index of the segment from 0 (orbit_last for the Mandelbrot set)
    int julia;             // nonzero: the offset starts delta only (no dc term)
    const double* bla;     // BLA entries (10 doubles each, double-double; 8, extended), or null
    const int* bla_level;  // bla_levels + 1 offsets (in entries) of the levels 1, 2, ...
    int bla_levels;
    double cr, ci;         // c in f64: the centre (Mandelbrot set) or the Julia set's c
};


__device__ __forceinline__ double pt_mul(double a, double b) { return __dmul_rn(a, b); }
__device__ __forceinline__ double pt_add(double a, double b) { return __dadd_rn(a, b); }
__device__ __forceinline__ double pt_sub(double a, double b) { return __dsub_rn(a, b); }

// hi + lo (double_double.rs: Dd).
struct PtDd {
    double hi, lo;
};

// a + b as (rounded sum, exact error), any magnitudes (two_sum).
__device__ __forceinline__ PtDd pt_two_sum(double a, double b)
{
    const double s = pt_add(a, b);
    const double bb = pt_sub(s, a);
    return PtDd{s, pt_add(pt_sub(a, pt_sub(s, bb)), pt_sub(b, bb))};
}

// a + b as (rounded sum, exact error) when |a| >= |b| or a == 0 (fast_two_sum).
__device__ __forceinline__ PtDd pt_fast_two_sum(double a, double b)
{
    const double s = pt_add(a, b);
    return PtDd{s, pt_sub(b, pt_sub(s, a))};
}

__device__ __forceinline__ PtDd pt_dd_neg(PtDd a) { return PtDd{-a.hi, -a.lo}; }
__device__ __forceinline__ PtDd pt_dd_double(PtDd a) { return PtDd{pt_mul(2.0, a.hi), pt_mul(2.0, a.lo)}; }

// a + b unnormalised (Dd::add_raw) and normalised (Dd + Dd).
__device__ __forceinline__ PtDd pt_dd_add_raw(PtDd a, PtDd b)
{
    const PtDd s = pt_two_sum(a.hi, b.hi);
    return PtDd{s.hi, pt_add(s.lo, pt_add(a.lo, b.lo))};
}

__device__ __forceinline__ PtDd pt_dd_add(PtDd a, PtDd b)
{
    const PtDd s = pt_dd_add_raw(a, b);
    return pt_fast_two_sum(s.hi, s.lo);
}

// a b unnormalised (Dd::mul_raw): exact product of the high parts plus the cross terms.
__device__ __forceinline__ PtDd pt_dd_mul_raw(PtDd a, PtDd b)
{
    const double p = pt_mul(a.hi, b.hi);
    double e = __fma_rn(a.hi, b.hi, -p);
    e = __fma_rn(a.hi, b.lo, e);
    return PtDd{p, __fma_rn(a.lo, b.hi, e)};
}

// a t for a double t (Dd::mul_f64).
__device__ __forceinline__ PtDd pt_dd_mul_f64(PtDd a, double t)
{
    const double p = pt_mul(a.hi, t);
    double e = __fma_rn(a.hi, t, -p);
    e = __fma_rn(a.lo, t, e);
    return pt_fast_two_sum(p, e);
}

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

// Where a pixel's iteration stopped: the dwell, z = Z_k + delta_k there in f64, the pixel's c
// in f64 and, with DZ, the derivative w (perturb.rs: PixelEnd, Derivative).
struct PtEnd {
    int dwell;
    double zr, zi, cr, ci;
    PtComplexExp w;
};

// The nearest f64 pair (complex_exp.rs: to_f64; parts below 2^-1080 become 0).
__device__ __forceinline__ double2 pt_cx_to_f64(PtComplexExp a)
{
    if (a.e > 1023) return make_double2(a.re * __longlong_as_double(0x7ff0000000000000LL),
                                        a.im * __longlong_as_double(0x7ff0000000000000LL));
    const int e = max(a.e, -1200);
    return make_double2(pt_ldexp_small(a.re, e), pt_ldexp_small(a.im, e));
}

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

// The derivative beside delta (perturb.rs: Derivative): w = dz/dp, a = the pixel size for the
// Mandelbrot set, 0 for a Julia set.
struct PtDerivative {
    PtComplexExp w, a;
    __device__ __forceinline__ void step(PtComplexExp z) { w = pt_cx_add(pt_cx_double(pt_cx_mul(z, w)), a); }
    __device__ __forceinline__ void bla(PtComplexExp A, PtComplexExp B)
    {
        w = pt_cx_add(pt_cx_mul(A, w), pt_cx_mul(B, a));
    }
};

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

// The pixel's offset from the centre in steps, ((x + 0.5) - W 0.5, (y + 0.5) - H 0.5) (perturb.rs: steps).
__device__ __forceinline__ double2 pt_steps(const PtArgs& a, int x, int y)
{
    return make_double2(pt_sub(pt_add((double)x, 0.5), pt_mul((double)a.width, 0.5)),
                        pt_sub(pt_add((double)y, 0.5), pt_mul((double)a.height, 0.5)));
}

// Z_k of the double-double path: re = (hi.x, lo.x), im = (hi.y, lo.y).
__device__ __forceinline__ void pt_orbit_dd(const PtArgs& a, int k, PtDd& re, PtDd& im)
{
    const double2 hi = __ldg(&a.orbit[2 * k]);
    const double2 lo = __ldg(&a.orbit[2 * k + 1]);
    re = PtDd{hi.x, lo.x};
    im = PtDd{hi.y, lo.y};
}

// ---- BLA -------------------------------------------------------------------------------

// a b normalised (Dd * Dd).
__device__ __forceinline__ PtDd pt_dd_mul(PtDd a, PtDd b)
{
    const PtDd p = pt_dd_mul_raw(a, b);
    return pt_fast_two_sum(p.hi, p.lo);
}

// (ar + i ai)(br + i bi) with normalised products and sums (bla.rs: cdd_mul).
__device__ __forceinline__ void pt_cdd_mul(PtDd ar, PtDd ai, PtDd br, PtDd bi, PtDd& re, PtDd& im)
{
    re = pt_dd_add(pt_dd_mul(ar, br), pt_dd_neg(pt_dd_mul(ai, bi)));
    im = pt_dd_add(pt_dd_mul(ar, bi), pt_dd_mul(ai, br));
}

// The longest usable level at index k (bla.rs: BlaLevels::find): the entry's first double, or
// null; len gets its length. fits(entry) says whether delta lies in its radius.
template <int DOUBLES, class Fits>
__device__ __forceinline__ const double* pt_bla_find(const PtArgs& a, int k, int remaining, int& len, Fits fits)
{
    if (k == 0) return nullptr;
    const int offset = k - 1;
    int top = offset == 0 ? a.bla_levels : __ffs(offset) - 1;
    if (top > a.bla_levels) top = a.bla_levels;
    for (int l = top; l >= 1; --l) {
        const int length = 1 << l;
        if (length > remaining) continue;
        const int i = offset >> l;
        const int first = __ldg(&a.bla_level[l - 1]);
        if (i >= __ldg(&a.bla_level[l]) - first) continue;
        const double* e = a.bla + (size_t)(first + i) * DOUBLES;
        if (fits(e)) {
            len = length;
            return e;
        }
    }
    return nullptr;
}

// The pixel size as the derivative's number type: double-double path (high part), extended.
__device__ __forceinline__ PtComplexExp pt_unit_dd(const PtArgs& a) { return pt_cx(a.step, 0.0, 0); }
__device__ __forceinline__ PtComplexExp pt_unit_ext(const PtArgs& a) { return pt_cx(a.step, 0.0, a.step_exp); }

__device__ __forceinline__ PtDerivative pt_derivative(const PtArgs& a, PtComplexExp unit)
{
    return PtDerivative{unit, a.julia ? PtComplexExp{0.0, 0.0, 0} : unit};
}

// The dwell of pixel (x, y), double-double perturbation (perturb.rs: dwell_dd, step_dd), taking
// BLA steps where BLA is set and the table has one, with the derivative where DZ is. The
// escape and rebasing tests read only the high parts.
template <bool BLA, bool DZ>
__device__ __forceinline__ PtEnd pt_dwell_dd(const PtArgs& a, int x, int y)
{
    PtDerivative der = pt_derivative(a, pt_unit_dd(a));
    const double2 st = pt_steps(a, x, y);
    const PtDd step = PtDd{a.step, a.step_lo};
    const PtDd offr = pt_dd_mul_f64(step, st.x), offi = pt_dd_neg(pt_dd_mul_f64(step, st.y));
    const PtDd zero = PtDd{0.0, 0.0};
    const PtDd cr = a.julia ? zero : offr, ci = a.julia ? zero : offi;
    PtDd dr = offr, di = offi;
    int k = a.orbit_start, n = 0;
    for (;;) {
        PtDd zr, zi;
        pt_orbit_dd(a, k, zr, zi);
        const double hr = pt_add(zr.hi, dr.hi), hi = pt_add(zi.hi, di.hi);
        const double norm = pt_add(pt_mul(hr, hr), pt_mul(hi, hi));
        if (n >= a.max_dwell || norm >= 4.0)
            return a.julia ? PtEnd{n, hr, hi, a.cr, a.ci, der.w}
                           : PtEnd{n, hr, hi, pt_add(a.cr, offr.hi), pt_add(a.ci, offi.hi), der.w};
        if (k == a.orbit_last || k == a.rebase_last ||
            norm < pt_add(pt_mul(dr.hi, dr.hi), pt_mul(di.hi, di.hi))) {
            dr = pt_dd_add(zr, dr);
            di = pt_dd_add(zi, di);
            k = 0;
            pt_orbit_dd(a, 0, zr, zi);
        }
        if (BLA) {
            const double size = pt_add(fabs(dr.hi), fabs(di.hi));
            int len = 0;
            const double* e = pt_bla_find<10>(a, k, a.max_dwell - n, len,
                                              [&](const double* e) { return size < __ldg(&e[8]); });
            if (e) {
                if (DZ) der.bla(pt_cx(__ldg(&e[0]), __ldg(&e[1]), 0), pt_cx(__ldg(&e[4]), __ldg(&e[5]), 0));
                const PtDd Ar{__ldg(&e[0]), __ldg(&e[2])}, Ai{__ldg(&e[1]), __ldg(&e[3])};
                const PtDd Br{__ldg(&e[4]), __ldg(&e[6])}, Bi{__ldg(&e[5]), __ldg(&e[7])};
                PtDd adr, adi, bcr, bci;
                pt_cdd_mul(Ar, Ai, dr, di, adr, adi);
                pt_cdd_mul(Br, Bi, cr, ci, bcr, bci);
                dr = pt_dd_add(adr, bcr);
                di = pt_dd_add(adi, bci);
                k += len;
                n += len;
                continue;
            }
        }
        if (DZ) der.step(pt_cx(hr, hi, 0));
        const PtDd ar = pt_dd_add_raw(pt_dd_double(zr), dr);
        const PtDd ai = pt_dd_add_raw(pt_dd_double(zi), di);
        const PtDd nr = pt_dd_add(pt_dd_add_raw(pt_dd_mul_raw(ar, dr), pt_dd_neg(pt_dd_mul_raw(ai, di))), cr);
        const PtDd ni = pt_dd_add(pt_dd_add_raw(pt_dd_mul_raw(ar, di), pt_dd_mul_raw(ai, dr)), ci);
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

// |Re d| + |Im d| < R of an extended entry (bla.rs: fits_ext).
__device__ __forceinline__ bool pt_bla_fits_ext(PtComplexExp d, const double* e)
{
    const double rm = __ldg(&e[6]);
    if (rm == 0.0) return false;
    if (pt_is_zero(d)) return true;
    const int k = (int)__ldg(&e[7]) - d.e;
    if (k >= 2) return true;
    if (k <= -1) return false;
    return pt_add(fabs(d.re), fabs(d.im)) < pt_mul(rm, pt_pow2(k));
}

// The dwell of pixel (x, y), extended exponents (perturb.rs: dwell_ext), taking BLA steps
// where BLA is set and the table has one, with the derivative where DZ is.
template <bool BLA, bool DZ>
__device__ __forceinline__ PtEnd pt_dwell_ext(const PtArgs& a, int x, int y)
{
    PtDerivative der = pt_derivative(a, pt_unit_ext(a));
    const double2 st = pt_steps(a, x, y);
    const PtComplexExp offset = pt_cx(pt_mul(st.x, a.step), -pt_mul(st.y, a.step), a.step_exp);
    const PtComplexExp dc = a.julia ? PtComplexExp{0.0, 0.0, 0} : offset;
    PtComplexExp d = offset;
    int k = a.orbit_start, n = 0;
    for (;;) {
        PtComplexExp Z = pt_orbit_point(a, k);
        const PtComplexExp z = pt_cx_add(Z, d);
        if (n >= a.max_dwell || pt_cx_escaped(z)) {
            const double zr = pt_ldexp_small(z.re, z.e), zi = pt_ldexp_small(z.im, z.e);
            if (a.julia) return PtEnd{n, zr, zi, a.cr, a.ci, der.w};
            return PtEnd{n, zr, zi, pt_add(a.cr, pt_ldexp_small(offset.re, offset.e)),
                         pt_add(a.ci, pt_ldexp_small(offset.im, offset.e)), der.w};
        }
        if (k == a.orbit_last || k == a.rebase_last || pt_cx_norm_less(z, d)) {
            d = z;
            k = 0;
            Z = pt_orbit_point(a, 0);
        }
        if (BLA) {
            int len = 0;
            const double* e = pt_bla_find<8>(a, k, a.max_dwell - n, len,
                                             [&](const double* e) { return pt_bla_fits_ext(d, e); });
            if (e) {
                const PtComplexExp A{__ldg(&e[0]), __ldg(&e[1]), (int)__ldg(&e[2])};
                const PtComplexExp B{__ldg(&e[3]), __ldg(&e[4]), (int)__ldg(&e[5])};
                if (DZ) der.bla(A, B);
                d = pt_cx_add(pt_cx_mul(A, d), pt_cx_mul(B, dc));
                k += len;
                n += len;
                continue;
            }
        }
        if (DZ) der.step(z);
        d = pt_cx_add(pt_cx_mul(pt_cx_add(pt_cx_double(Z), d), d), dc);
        ++k;
        ++n;
    }
}

// The dwell (and, with want_smooth, the continuous value) from where the pixel stopped.
__device__ __forceinline__ MandelPixel pt_pixel(const PtArgs& a, PtEnd e, bool want_smooth)
{
    MandelPixel p;
    p.dwell = e.dwell;
    p.smooth = (want_smooth && e.dwell < a.max_dwell) ? smooth_after_escape(e.dwell, e.zr, e.zi, e.cr, e.ci)
                                                      : (float)e.dwell;
    return p;
}

// Pixel (x, y) on either path, with BLA when the arguments carry a table.
__device__ __forceinline__ MandelPixel pt_pixel_dd(const PtArgs& a, int x, int y, bool want_smooth)
{
    return pt_pixel(a, a.bla ? pt_dwell_dd<true, false>(a, x, y) : pt_dwell_dd<false, false>(a, x, y), want_smooth);
}

__device__ __forceinline__ MandelPixel pt_pixel_ext(const PtArgs& a, int x, int y, bool want_smooth)
{
    return pt_pixel(a, a.bla ? pt_dwell_ext<true, false>(a, x, y) : pt_dwell_ext<false, false>(a, x, y),
                    want_smooth);
}

// Pixel (x, y)'s distance estimate in pixels, 0 where it did not escape (perturb.rs:
// Perturbation::distance), on either path.
__device__ __forceinline__ float pt_distance_of(const PtArgs& a, PtEnd e, PtComplexExp unit)
{
    if (e.dwell >= a.max_dwell) return 0.0f;
    const double add = a.julia ? 0.0 : pt_cx_to_f64(unit).x;
    const double2 w = pt_cx_to_f64(e.w);
    return distance_after_escape(e.zr, e.zi, w.x, w.y, e.cr, e.ci, add);
}

__device__ __forceinline__ float pt_distance_dd(const PtArgs& a, int x, int y)
{
    const PtEnd e = a.bla ? pt_dwell_dd<true, true>(a, x, y) : pt_dwell_dd<false, true>(a, x, y);
    return pt_distance_of(a, e, pt_unit_dd(a));
}

__device__ __forceinline__ float pt_distance_ext(const PtArgs& a, int x, int y)
{
    const PtEnd e = a.bla ? pt_dwell_ext<true, true>(a, x, y) : pt_dwell_ext<false, true>(a, x, y);
    return pt_distance_of(a, e, pt_unit_ext(a));
}

