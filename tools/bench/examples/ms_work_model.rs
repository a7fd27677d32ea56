//! The work bound of Mariani–Silver against one thread per pixel, on the CPU.
//!
//! Counts what each kernel must iterate on the six bookmarks, in lane-iterations: a warp
//! costs 32 lanes times the largest dwell among its pixels (the pixels it leaves idle
//! still hold their lanes). Per-pixel: warps of 32 pixels of a row. Mariani–Silver with a
//! tuning: the first grid's lines, the lines of every split rectangle and the interior of
//! every leaf, each in warps of 32 pixels in the order the kernels take them; filled
//! interiors cost nothing. For the window tuning (one level of 16 px, the fused kernel) it
//! also counts blocks as the kernel forms them (a unit of the lines a warp, eight units a
//! block; a cell a block of 256 threads), each holding its slots for its slowest pixel.
//! No latency is counted, so the ratios are upper bounds of what a partition can save:
//! docs/performance.md compares them with the measured speed-ups. A nested
//! tuning is also counted as if run speculatively, like the fused kernel's one level: every
//! cell iterates at once, and one below the first level that is then filled pays its
//! pixels' iterations until its parent's lines were known.
//!
//! `cargo run --release -p cudalens-bench --example ms_work_model -- [WIDTHxHEIGHT] [MAX_DWELL] [RE,IM,SPAN]`
//! (one view instead of the bookmarks, e.g. the goal points at −0.5,0,2).

use cudalens::mandelbrot::{
    render_mariani_silver, render_per_pixel, Dwells, Fractal, GridLines, MsRecord, MsTuning,
    RectKind, View, BOOKMARKS,
};

/// Lanes of a warp, threads of the fused kernel's block (MS_BLOCK).
const WARP: usize = 32;
const BLOCK: u64 = 256;

/// Partitions to compare: (first cell, subdivision, leaf), no child grids.
const TUNINGS: [(u32, u32, u32); 6] = [
    (16, 2, 16),
    (32, 2, 32),
    (32, 2, 16),
    (64, 4, 16),
    (64, 2, 16),
    (128, 8, 16),
];

fn warp_cost(dwells: &[u64]) -> u64 {
    dwells
        .chunks(WARP)
        .map(|c| c.iter().copied().max().unwrap_or(0) * WARP as u64)
        .sum()
}

fn dwell(d: &Dwells, (x, y): (u32, u32)) -> u64 {
    u64::from(d.values[y as usize * d.width as usize + x as usize])
}

/// Per-pixel: (warp model, block model with the kernel's 32×8 blocks).
fn per_pixel_cost(d: &Dwells) -> (u64, u64) {
    let (w, h) = (d.width, d.height);
    let row = |y: u32| (0..w).map(|x| dwell(d, (x, y))).collect::<Vec<_>>();
    let warps = (0..h).map(|y| warp_cost(&row(y))).sum();
    let mut blocks = 0;
    for y0 in (0..h).step_by(8) {
        for x0 in (0..w).step_by(32) {
            let m = (y0..(y0 + 8).min(h))
                .flat_map(|y| (x0..(x0 + 32).min(w)).map(move |x| (x, y)))
                .map(|p| dwell(d, p))
                .max()
                .unwrap_or(0);
            blocks += m * BLOCK;
        }
    }
    (warps, blocks)
}

/// The warp model of a tuning's refinement (its records from the CPU reference).
fn refinement_cost(d: &Dwells, tuning: &MsTuning, records: &[MsRecord]) -> u64 {
    let lines = GridLines {
        width: d.width,
        height: d.height,
        s: tuning.init_size,
    };
    let line_dwells: Vec<u64> = (0..lines.pixel_count())
        .map(|i| dwell(d, lines.pixel(i)))
        .collect();
    let mut cost = warp_cost(&line_dwells);
    for r in records {
        let pixels: Vec<u64> = match r.kind {
            RectKind::Split => {
                let s = tuning.size(r.level as usize + 1);
                (0..r.rect.line_pixel_count(s))
                    .map(|i| dwell(d, r.rect.line_pixel(s, i)))
                    .collect()
            }
            RectKind::Leaf => (0..r.rect.interior_pixels())
                .map(|i| dwell(d, r.rect.interior_pixel(i)))
                .collect(),
            RectKind::Fill => Vec::new(),
        };
        cost += warp_cost(&pixels);
    }
    cost
}

/// The warp model of a nested tuning run speculatively, as the fused kernel runs its one
/// level: every cell starts iterating its interior at once, so a cell below the first
/// level that is then filled has iterated each pixel until its parent's lines were known
/// (the parent's decision time plus the slowest pixel of its lines, in iterations).
fn speculative_cost(d: &Dwells, tuning: &MsTuning, records: &[MsRecord]) -> u64 {
    let mut by_level: Vec<&MsRecord> = records.iter().collect();
    by_level.sort_by_key(|r| r.level);
    // Decision time of each split cell's parts, keyed by (level, column, row) of the part's
    // parent in its own grid.
    let mut known = std::collections::HashMap::new();
    let mut waste = 0;
    for r in by_level {
        let level = r.level as usize;
        let parent = |k: usize| {
            let s = tuning.size(k);
            (k, r.rect.x0 / s, r.rect.y0 / s)
        };
        let start = if level == 0 {
            0
        } else {
            known.get(&parent(level - 1)).copied().unwrap_or(0)
        };
        match r.kind {
            RectKind::Split => {
                let s = tuning.size(level + 1);
                let slowest = (0..r.rect.line_pixel_count(s))
                    .map(|i| dwell(d, r.rect.line_pixel(s, i)))
                    .max()
                    .unwrap_or(0);
                known.insert(parent(level), start + slowest);
            }
            RectKind::Fill if level > 0 => {
                let pixels: Vec<u64> = (0..r.rect.interior_pixels())
                    .map(|i| dwell(d, r.rect.interior_pixel(i)).min(start))
                    .collect();
                waste += warp_cost(&pixels);
            }
            _ => {}
        }
    }
    refinement_cost(d, tuning, records) + waste
}

/// The block model of the fused kernel (one level of `s` px): units of the lines (a
/// corner's top row and left column) eight to a block, then a block per evaluated cell.
fn fused_block_cost(d: &Dwells, s: u32, records: &[MsRecord]) -> u64 {
    let (w, h) = (d.width, d.height);
    let (cols, rows) = GridLines {
        width: w,
        height: h,
        s,
    }
    .counts();
    let mut units = Vec::new();
    for j in 0..rows {
        for i in 0..cols {
            let (x0, y0) = ((i * s).min(w - 1), (j * s).min(h - 1));
            let top = if i + 1 < cols {
                ((i + 1) * s).min(w - 1) - x0
            } else {
                1
            };
            let left = if j + 1 < rows {
                ((j + 1) * s).min(h - 1) - y0 - 1
            } else {
                0
            };
            let row = (0..top).map(|k| dwell(d, (x0 + k, y0)));
            let column = (0..left).map(|k| dwell(d, (x0, y0 + 1 + k)));
            units.push(row.chain(column).max().unwrap_or(0));
        }
    }
    let line_blocks: u64 = units
        .chunks(8)
        .map(|c| c.iter().copied().max().unwrap_or(0) * BLOCK)
        .sum();
    let cell_blocks: u64 = records
        .iter()
        .filter(|r| r.kind == RectKind::Leaf)
        .map(|r| {
            let m = (0..r.rect.interior_pixels())
                .map(|i| dwell(d, r.rect.interior_pixel(i)))
                .max();
            m.unwrap_or(0) * BLOCK
        })
        .sum();
    line_blocks + cell_blocks
}

/// A view to model: a name, its centre and span.
type Place = (&'static str, (f64, f64), f64);

fn parse_args() -> Option<((u32, u32), u32, Vec<Place>)> {
    let mut args = std::env::args().skip(1);
    let size = match args.next() {
        Some(s) => {
            let (w, h) = s.split_once('x')?;
            (w.parse().ok()?, h.parse().ok()?)
        }
        None => (1920, 1080),
    };
    let max_dwell = args.next().map_or(Some(8192), |s| s.parse().ok())?;
    let places = match args.next() {
        Some(s) => {
            let v: Vec<f64> = s
                .split(',')
                .map(|x| x.parse().ok())
                .collect::<Option<_>>()?;
            let [re, im, span] = v[..] else { return None };
            vec![("view", (re, im), span)]
        }
        None => BOOKMARKS.iter().map(|&(n, c, s, _)| (n, c, s)).collect(),
    };
    Some((size, max_dwell, places))
}

fn main() -> std::process::ExitCode {
    let Some(((width, height), max_dwell, places)) = parse_args() else {
        eprintln!("usage: ms_work_model [WIDTHxHEIGHT] [MAX_DWELL] [RE,IM,SPAN]");
        return std::process::ExitCode::from(2);
    };
    println!("{width}×{height}, max dwell {max_dwell}: per-pixel / Mariani–Silver work");
    let mut logs = vec![0.0f64; TUNINGS.len() + 1];
    let mut spec_logs = vec![0.0f64; TUNINGS.len()];
    for &(name, center, span) in &places {
        let view = View {
            center,
            span,
            width,
            height,
            max_dwell,
            fractal: Fractal::Mandelbrot,
        };
        let d = render_per_pixel(&view, false);
        let (pp_warps, pp_blocks) = per_pixel_cost(&d);
        let mut line = format!("{name:<16}");
        for (k, &(init_size, subdiv, leaf_size)) in TUNINGS.iter().enumerate() {
            let tuning = MsTuning {
                init_size,
                subdiv,
                leaf_size,
                launch_min_pixels: 1 << 30,
                lookahead: 1,
            };
            let (_, records) = render_mariani_silver(&view, &tuning, false);
            let ratio = pp_warps as f64 / refinement_cost(&d, &tuning, &records) as f64;
            logs[k] += ratio.ln();
            line += &format!("  {init_size}/{subdiv}/{leaf_size} {ratio:5.2}");
            if init_size > leaf_size {
                let spec = pp_warps as f64 / speculative_cost(&d, &tuning, &records) as f64;
                spec_logs[k] += spec.ln();
                line += &format!(" (speculative {spec:4.2})");
            }
            if k == 0 {
                let blocks = pp_blocks as f64 / fused_block_cost(&d, init_size, &records) as f64;
                logs[TUNINGS.len()] += blocks.ln();
                line += &format!(" (blocks {blocks:4.2})");
            }
        }
        println!("{line}");
    }
    let n = places.len() as f64;
    let mut line = format!("{:<16}", "geometric mean");
    for (k, (init_size, subdiv, leaf_size)) in TUNINGS.iter().enumerate() {
        line += &format!(
            "  {init_size}/{subdiv}/{leaf_size} {:5.2}",
            (logs[k] / n).exp()
        );
        if k == 0 {
            line += &format!(" (blocks {:4.2})", (logs[TUNINGS.len()] / n).exp());
        } else if init_size > leaf_size {
            line += &format!(" (speculative {:4.2})", (spec_logs[k] / n).exp());
        }
    }
    println!("{line}");
    std::process::ExitCode::SUCCESS
}
