//! `cudalens-bench --bla-stats`: where a deep view's iterations go with BLA, on the CPU (no
//! GPU needed). For each deep bookmark (or those whose name contains `--bla-view`) at the
//! bench size, every pixel iterates with a step counter beside it: perturbation steps, BLA
//! steps and the iterations they skip, for several ε (the table's validity radius factor)
//! and reaches (|δc|max as a multiple of the view's half diagonal), and how many pixels end
//! with another dwell than perturbation without BLA (the exact reference).

use cudalens::cli::CliError;
use cudalens::mandelbrot::deep::{
    choose_precision, BlaTable, ComplexExp, DeepView, Perturbation, ReferenceOrbit, Track,
    DEEP_BOOKMARKS,
};
use cudalens::mandelbrot::Precision;
use rayon::prelude::*;
use std::time::Instant;

/// Steps of one or more pixels.
#[derive(Default, Clone, Copy)]
struct StepCounts {
    /// Ordinary perturbation steps.
    steps: u64,
    /// BLA steps taken, and the iterations they stand for.
    hops: u64,
    skipped: u64,
}

impl Track for StepCounts {
    fn step(&mut self, _: impl FnOnce() -> ComplexExp) {
        self.steps += 1;
    }

    fn bla(&mut self, _: impl FnOnce() -> (ComplexExp, ComplexExp), len: u32) {
        self.hops += 1;
        self.skipped += u64::from(len);
    }
}

impl std::ops::Add for StepCounts {
    type Output = Self;
    fn add(self, b: Self) -> Self {
        Self {
            steps: self.steps + b.steps,
            hops: self.hops + b.hops,
            skipped: self.skipped + b.skipped,
        }
    }
}

/// Every pixel of `source`: the dwells and the summed step counts.
fn count(source: &Perturbation<'_>, (w, h): (u32, u32)) -> (Vec<u32>, StepCounts) {
    let rows: Vec<(Vec<u32>, StepCounts)> = (0..h)
        .into_par_iter()
        .map(|y| {
            let mut counts = StepCounts::default();
            let dwells = (0..w)
                .map(|x| source.end(x, y, &mut counts).0.dwell)
                .collect();
            (dwells, counts)
        })
        .collect();
    let mut dwells = Vec::with_capacity((w * h) as usize);
    let mut total = StepCounts::default();
    for (d, c) in rows {
        dwells.extend(d);
        total = total + c;
    }
    (dwells, total)
}

pub fn run(size: (u32, u32), filter: Option<&str>) -> Result<serde_json::Value, CliError> {
    let mut out = Vec::new();
    for b in DEEP_BOOKMARKS
        .iter()
        .filter(|b| filter.is_none_or(|f| b.name.contains(f)))
    {
        let view = DeepView {
            location: b.location().map_err(CliError::internal)?,
            width: size.0,
            height: size.1,
            max_dwell: b.max_dwell,
            fractal: cudalens::mandelbrot::Fractal::Mandelbrot,
        };
        let precision = choose_precision(Precision::Auto, &view.location, view.width);
        let orbit = ReferenceOrbit::compute(&view);
        let start = Instant::now();
        let exact = Perturbation::new(&view, &orbit, precision);
        let (reference, _) = count(&exact, size);
        let plain_s = start.elapsed().as_secs_f64();
        let pixels = f64::from(size.0 * size.1);
        let iterations: u64 = reference.iter().map(|&d| u64::from(d)).sum();
        println!(
            "{} ({precision:?}), {}×{}, max dwell {}: {:.0} iterations a pixel, {plain_s:.2} s without BLA",
            b.name,
            size.0,
            size.1,
            b.max_dwell,
            iterations as f64 / pixels
        );
        println!(
            "  ε       reach  steps/px  BLA steps/px  mean length  work ratio  differ  time (s)"
        );
        let default_eps = if precision == Precision::Extended {
            cudalens::mandelbrot::deep::EPSILON_EXT_LOG2
        } else {
            cudalens::mandelbrot::deep::EPSILON_DD_LOG2
        };
        let mut rows = Vec::new();
        let cases = [-96, -80, -64, -53, -40, -32, -24]
            .map(|e| (e, 1.0))
            .into_iter()
            .chain([(default_eps, 2.0), (default_eps, 3.0)]);
        for (eps, reach) in cases {
            let table = BlaTable::build_with(&view, &orbit, precision, eps, reach);
            let start = Instant::now();
            let source = Perturbation::new(&view, &orbit, precision).with_bla(Some(&table));
            let (dwells, c) = count(&source, size);
            let seconds = start.elapsed().as_secs_f64();
            let differ = dwells
                .iter()
                .zip(&reference)
                .filter(|(a, b)| a != b)
                .count();
            // Iterations per unit of loop work (a perturbation step or a BLA step).
            let ratio = iterations as f64 / (c.steps + c.hops).max(1) as f64;
            println!(
                "  2^{eps:<4} {reach:>4.1}  {:>9.1}  {:>12.1}  {:>11.1}  {ratio:>10.2}  {differ:>6}  {seconds:>8.2}",
                c.steps as f64 / pixels,
                c.hops as f64 / pixels,
                c.skipped as f64 / c.hops.max(1) as f64,
            );
            rows.push(serde_json::json!({
                "epsilon_log2": eps, "reach": reach,
                "steps_per_pixel": c.steps as f64 / pixels,
                "bla_steps_per_pixel": c.hops as f64 / pixels,
                "mean_bla_length": c.skipped as f64 / c.hops.max(1) as f64,
                "work_ratio": ratio, "pixels_differing": differ, "seconds": seconds,
            }));
        }
        out.push(serde_json::json!({
            "bookmark": b.name, "precision": format!("{precision:?}"),
            "size": [size.0, size.1], "max_dwell": b.max_dwell,
            "iterations_per_pixel": iterations as f64 / pixels,
            "seconds_without_bla": plain_s, "cases": rows,
        }));
    }
    Ok(serde_json::Value::Array(out))
}
