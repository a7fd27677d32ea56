//! Finds the deep bookmarks' centres (src/mandelbrot/deep/bookmarks.rs): the nucleus of
//! the lowest-period minibrot within `radius` of a seed point, by the ball-period test and
//! Newton's method in arbitrary precision, with its size estimate.
//!
//! `cargo run --release --example deep_locations -- SEED_RE,SEED_IM RADIUS [BITS]`
//! prints the period, the nucleus (as many digits as BITS carry) and the size.

use cudalens::mandelbrot::deep::fixed::decimal_to_fixed;
use cudalens::mandelbrot::deep::{ComplexExp, Decimal, FloatExp};
use num_bigint::BigInt;
use std::process::ExitCode;

type Fixed = (BigInt, BigInt);

fn square_add(z: &Fixed, c: &Fixed, bits: usize) -> Fixed {
    let (rr, ii, ri) = (&z.0 * &z.0, &z.1 * &z.1, &z.0 * &z.1);
    (((rr - ii) >> bits) + &c.0, (ri >> (bits - 1)) + &c.1)
}

fn cx(z: &Fixed, bits: usize) -> ComplexExp {
    ComplexExp::from_fixed(&z.0, &z.1, bits)
}

/// a / b for extended complex numbers.
fn divide(a: ComplexExp, b: ComplexExp) -> ComplexExp {
    let conj = ComplexExp::new(b.re, -b.im, b.e);
    let norm = b.re * b.re + b.im * b.im;
    let q = a * conj;
    ComplexExp::new(q.re / norm, q.im / norm, q.e - 2 * b.e)
}

fn to_fixed(v: ComplexExp, bits: usize) -> Fixed {
    let part = |m: f64| {
        let integer = BigInt::from((m * 2f64.powi(60)) as i64);
        let shift = i64::from(v.e) + bits as i64 - 60;
        if shift >= 0 {
            integer << shift as usize
        } else {
            integer >> (-shift) as usize
        }
    };
    (part(v.re), part(v.im))
}

/// The first n ≤ limit where the disc of `radius` around c maps over 0 (|z_n| < |dz_n|·r).
fn ball_period(c: &Fixed, radius: FloatExp, bits: usize, limit: u32) -> Option<u32> {
    let r = ComplexExp::new(radius.m, 0.0, radius.e);
    let mut z: Fixed = (BigInt::ZERO, BigInt::ZERO);
    let mut dz = ComplexExp::ZERO;
    let one = ComplexExp::new(1.0, 0.0, 0);
    for n in 1..=limit {
        dz = cx(&z, bits).double() * dz + one;
        z = square_add(&z, c, bits);
        let zc = cx(&z, bits);
        if zc.escaped() {
            return None;
        }
        if zc.norm_less(dz * r) {
            if std::env::var("DEBUG").is_ok() {
                eprintln!("n {n} z {zc:?} dz {dz:?} r {r:?} dzr {:?}", dz * r);
            }
            return Some(n);
        }
    }
    None
}

/// Newton's method on z_p(c) = 0 from `c`.
fn nucleus(mut c: Fixed, period: u32, bits: usize) -> Fixed {
    let one = ComplexExp::new(1.0, 0.0, 0);
    for _ in 0..200 {
        let mut z: Fixed = (BigInt::ZERO, BigInt::ZERO);
        let mut dz = ComplexExp::ZERO;
        for _ in 0..period {
            dz = cx(&z, bits).double() * dz + one;
            z = square_add(&z, &c, bits);
        }
        let step = divide(cx(&z, bits), dz);
        let delta = to_fixed(step, bits);
        c = (&c.0 - &delta.0, &c.1 - &delta.1);
        if step.is_zero() || i64::from(step.e) < -(bits as i64) + 16 {
            break;
        }
    }
    c
}

/// The complex size of the period-p minibrot with nucleus c: 1 / (β λ²).
fn size(c: &Fixed, period: u32, bits: usize) -> ComplexExp {
    let one = ComplexExp::new(1.0, 0.0, 0);
    let mut z = c.clone();
    let mut l = one;
    let mut b = one;
    for _ in 1..period {
        l = cx(&z, bits).double() * l;
        b = b + divide(one, l);
        z = square_add(&z, c, bits);
    }
    divide(one, b * l * l)
}

/// v / 2^bits rounded to `digits` decimals.
fn decimal(v: &BigInt, bits: usize, digits: i64) -> String {
    let scaled = v * BigInt::from(10u32).pow(digits as u32);
    let rounded = (scaled + (BigInt::from(1u32) << (bits - 1))) >> bits;
    Decimal::from_parts(&rounded, -digits)
        .map(|d| d.to_string())
        .unwrap_or_default()
}

fn main() -> ExitCode {
    let args: Vec<String> = std::env::args().skip(1).collect();
    let (Some(seed), Some(radius)) = (args.first(), args.get(1)) else {
        eprintln!("usage: deep_locations SEED_RE,SEED_IM RADIUS [BITS]");
        return ExitCode::from(2);
    };
    let bits: usize = args.get(2).and_then(|b| b.parse().ok()).unwrap_or(1200);
    let parsed = seed
        .split_once(',')
        .and_then(|(re, im)| Some((re.parse::<Decimal>().ok()?, im.parse::<Decimal>().ok()?)));
    let (Some((re, im)), Ok(radius)) = (parsed, radius.parse::<Decimal>()) else {
        eprintln!("bad seed or radius");
        return ExitCode::from(2);
    };
    let c = (decimal_to_fixed(&re, bits), decimal_to_fixed(&im, bits));
    let radius = FloatExp::from_decimal(&radius);
    let Some(period) = ball_period(&c, radius, bits, 200_000) else {
        eprintln!("no period found");
        return ExitCode::from(1);
    };
    let n = nucleus(c, period, bits);
    let s = size(&n, period, bits);
    let size_log10 = FloatExp::new(s.re.hypot(s.im), s.e).log2() / std::f64::consts::LOG2_10;
    let digits = (-size_log10) as i64 + 12;
    println!("period {period}");
    println!(
        "size 10^{size_log10:.2} (angle {:.3} rad)",
        s.im.atan2(s.re)
    );
    let (sr, si) = (FloatExp::new(s.re, s.e), FloatExp::new(s.im, s.e));
    println!(
        "size re {:.17e}·2^{} im {:.17e}·2^{}",
        sr.m, sr.e, si.m, si.e
    );
    println!("re {}", decimal(&n.0, bits, digits));
    println!("im {}", decimal(&n.1, bits, digits));
    ExitCode::SUCCESS
}
