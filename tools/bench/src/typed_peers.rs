//! `cudalens-bench --peers --type u16|f32`: NPP's 16u or 32f C4R equivalent of each case
//! beside cudalens's typed kernel, on the bench's random image as RGBA of that type
//! (converted as `cudalens bench --type` converts it), in one process on one device.
//!
//! cudalens's kernels are timed by the app's case loop (CUDA events, warm-up, medians of
//! `--runs`); the app runs no hook on typed images, so the peers follow the last case
//! instead of each one, on the same image. Each peer is timed as the RGBA8 peers are (CUDA
//! events, a first run on a poisoned destination, then the median of a time-boxed count up
//! to `--runs`) and its first output checked against the typed CPU reference
//! (`Filter::apply_cpu_typed`) as `npp::typed::rule` says: pass or fail within a stated
//! tolerance, or only measured where NPP does not document its rounding.

use crate::npp::ffi::NppSample;
use crate::npp::typed::{
    self, check_typed, pixel_bytes, Tolerance, TypedCheck, TypedOp, TypedPeer,
};
use crate::npp::{Compare, Npp, NppError, PeerOutput};
use crate::peer_bench::PeerBench;
use crate::peers::KernelRow;
use cudalens::cli::bench::{bench_sample_type, cases};
use cudalens::cli::BenchArgs;
use cudalens::cuda::CudaDevice;
use cudalens::filters::{gaussian_weights, Filter};
use cudalens::pixels::{PixelImage, SampleType};
use serde_json::Value;
use std::collections::BTreeMap;

/// The operation of the typed peer of the filter `name` in `sample`; `None` where NPP has
/// no 4-channel call of that type close to it, or the typed peers do not cover it.
pub fn typed_op(name: &str, sample: SampleType) -> Option<TypedOp> {
    if sample == SampleType::U8 {
        return None; // the RGBA8 peers (`peer_for`)
    }
    Some(match name {
        "box" => TypedOp::Box,
        "gaussian" => TypedOp::Gaussian,
        "median" => TypedOp::Median,
        "sobel" if sample == SampleType::F32 => TypedOp::Sobel,
        _ => return None,
    })
}

/// Why the filter `name` has no typed peer in `sample`, for its row.
fn no_peer(name: &str, sample: SampleType) -> NppError {
    NppError::NoEquivalent(match (name, sample) {
        ("sobel", SampleType::U16) => {
            "sobel in 16u (NPP's Sobel takes 8u, 16s and 32f samples)".to_string()
        }
        _ => format!("{name} among the {sample} peers"),
    })
}

/// `cudalens`'s layout name of RGBA in `sample`: `u16x4`, `f32x4`.
fn layout_name(sample: SampleType) -> &'static str {
    match sample {
        SampleType::U8 => "u8x4",
        SampleType::U16 => "u16x4",
        SampleType::F32 => "f32x4",
    }
}

/// The rows of one case in `sample`: the copy without filters (no histogram: the typed
/// frame counts no bins), the filter alone, none for a chain.
fn typed_rows(
    name: &str,
    filters: &[Filter],
    w: u32,
    h: u32,
    sample: SampleType,
) -> Vec<KernelRow> {
    let image_bytes = pixel_bytes(sample) as f64 * f64::from(w) * f64::from(h);
    match filters {
        [] => vec![KernelRow {
            name: "copy (no filter)".into(),
            stage: "copy",
            bytes: 2.0 * image_bytes,
        }],
        [f] => vec![KernelRow {
            name: name.into(),
            stage: f.name(),
            bytes: 2.0 * image_bytes,
        }],
        _ => Vec::new(),
    }
}

/// The peer of `op` in `S`, with `filter`'s parameters (none for the copy).
fn build<S: NppSample>(
    npp: &Npp,
    op: TypedOp,
    filter: Option<&Filter>,
    (w, h): (u32, u32),
) -> Result<TypedPeer, NppError> {
    let params = filter.map(|f| *f.params()).unwrap_or_default();
    match op {
        TypedOp::Copy => typed::copy::<S>(npp),
        TypedOp::Box => typed::box_filter::<S>(npp, params.int(0)),
        TypedOp::Gaussian => {
            typed::gaussian::<S>(npp, &gaussian_weights(params.get(0), params.int(1)))
        }
        TypedOp::Median => typed::median::<S>(npp, params.int(0), w, h),
        TypedOp::Sobel => typed::sobel::<S>(npp),
    }
}

/// NPP's typed peer of a row and the typed CPU reference its output is checked against
/// (none for a different operation).
fn peer_of(
    bench: &PeerBench,
    filters: &[Filter],
    image: &PixelImage,
) -> Result<(TypedPeer, Option<PixelImage>), NppError> {
    let sample = image.sample_type();
    let filter = filters.first();
    let op = match filter {
        None => TypedOp::Copy,
        Some(f) => typed_op(f.name(), sample).ok_or_else(|| no_peer(f.name(), sample))?,
    };
    let size = image.dimensions();
    let peer = match sample {
        SampleType::U16 => build::<u16>(&bench.npp, op, filter, size)?,
        SampleType::F32 => build::<f32>(&bench.npp, op, filter, size)?,
        SampleType::U8 => return Err(no_peer("copy", sample)),
    };
    let reference = match (peer.peer.compare, filter) {
        (Compare::Different(_), _) => None,
        (_, None) => Some(image.clone()),
        (_, Some(f)) => Some(f.apply_cpu_typed(image)),
    };
    Ok((peer, reference))
}

/// One typed peer's result.
pub struct TypedTiming {
    pub label: String,
    pub ms: f64,
    pub runs: usize,
    pub compare: Compare,
    pub tolerance: Tolerance,
    /// Against the typed CPU reference, where the operation is the same.
    pub check: Option<TypedCheck>,
}

/// Runs and times `peer` on the bench's image, its first output checked against `reference`.
fn time(
    bench: &mut PeerBench,
    peer: &TypedPeer,
    reference: Option<&PixelImage>,
) -> Result<TypedTiming, NppError> {
    let (output, ms, runs) = bench.run_and_time(&peer.peer)?;
    let check = match (&output, reference) {
        (PeerOutput::Pixels(out), Some(r)) => {
            check_typed(out, r, peer.peer.compare, peer.tolerance)
        }
        _ => None,
    };
    Ok(TypedTiming {
        label: peer.peer.label.clone(),
        ms,
        runs,
        compare: peer.peer.compare,
        tolerance: peer.tolerance,
        check,
    })
}

/// A row of the table: a kernel, its median time and its peer's result.
type TypedRow = (KernelRow, f64, Result<TypedTiming, String>);

/// The typed peers of a whole run: NPP with the typed image (or why not) and the rows.
pub struct TypedPeerRun {
    sample: SampleType,
    size: (u32, u32),
    bench: Result<PeerBench, String>,
    rows: Vec<TypedRow>,
}

impl TypedPeerRun {
    /// NPP on `device` with `image` (RGBA of 16-bit or float samples) uploaded; without a
    /// device, NPP or a typed image every row says why.
    pub fn new(device: Option<&CudaDevice>, image: &PixelImage, runs: usize) -> Self {
        let sample = image.sample_type();
        let bench = match device {
            None => Err("NPP peers need the CUDA backend".to_string()),
            Some(_) if sample == SampleType::U8 || image.channels() != 4 => Err(format!(
                "typed peers take RGBA of 16-bit or float samples, not {}",
                image.describe()
            )),
            Some(d) => PeerBench::from_pixels(d, image, runs).map_err(|e| e.to_string()),
        };
        Self {
            sample,
            size: image.dimensions(),
            bench,
            rows: Vec::new(),
        }
    }

    /// Runs the peers of one case, whose kernels took `medians` (stage → ms).
    pub fn add_case(
        &mut self,
        name: &str,
        filters: &[Filter],
        medians: &BTreeMap<String, f64>,
        image: &PixelImage,
    ) {
        let (w, h) = self.size;
        for row in typed_rows(name, filters, w, h, self.sample) {
            let ms = medians.get(row.stage).copied().unwrap_or(f64::NAN);
            let timing = match &mut self.bench {
                Ok(b) => peer_of(b, filters, image)
                    .and_then(|(peer, reference)| time(b, &peer, reference.as_ref()))
                    .map_err(|e| e.to_string()),
                Err(reason) => Err(reason.clone()),
            };
            self.rows.push((row, ms, timing));
        }
    }

    /// Prints the table and returns its JSON (releasing NPP's buffers).
    pub fn finish(self) -> Value {
        typed_table(self.sample, self.size, &self.rows, &self.bench)
    }
}

/// The stage medians of a case from the app's JSON of it (`stages_ms`).
fn case_medians(case: Option<&Value>) -> BTreeMap<String, f64> {
    case.and_then(|c| c.get("stages_ms"))
        .and_then(Value::as_object)
        .map(|m| {
            m.iter()
                .filter_map(|(k, v)| v.as_f64().map(|ms| (k.clone(), ms)))
                .collect()
        })
        .unwrap_or_default()
}

/// The typed peers of every case of `args`, after the app's case loop timed the typed
/// kernels (`measured`: its JSON per case) on `device`; `image` is the bench's RGBA8
/// image, converted here as the app converted it.
pub fn run(
    device: Option<&CudaDevice>,
    args: &BenchArgs,
    image: &image::RgbaImage,
    measured: &serde_json::Map<String, Value>,
) -> Value {
    let sample = bench_sample_type(args.sample_type);
    let typed = PixelImage::from_rgba8(image.clone()).to_type(sample);
    let mut run = TypedPeerRun::new(device, &typed, args.runs);
    for (name, filters) in cases(args) {
        let medians = case_medians(measured.get(&name));
        run.add_case(&name, &filters, &medians, &typed);
    }
    run.finish()
}

/// The check column: the tolerance's verdict, "measured" or "—".
fn verdict(t: &TypedTiming) -> String {
    let tolerance = t.tolerance.describe();
    match (t.compare, t.check.map(|c| c.pass)) {
        (Compare::Different(_), _) => "—".into(),
        (_, None) => "?".into(),
        (_, Some(None)) => "measured".into(),
        (_, Some(Some(true))) => format!("ok ({tolerance})"),
        (_, Some(Some(false))) => format!("FAIL ({tolerance})"),
    }
}

/// A difference for the table: levels for 16-bit samples, three digits for floats.
fn difference_text(sample: SampleType, d: f64) -> String {
    match sample {
        SampleType::F32 if d != 0.0 && d.is_finite() => format!("{d:.2e}"),
        _ => format!("{d}"),
    }
}

/// Prints the kernel-versus-peer table of `sample` and returns its JSON.
fn typed_table(
    sample: SampleType,
    (w, h): (u32, u32),
    rows: &[TypedRow],
    bench: &Result<PeerBench, String>,
) -> Value {
    let fraction = |bytes: f64, ms: f64| bench.as_ref().ok().map(|p| p.fraction_of_copy(bytes, ms));
    let layout = layout_name(sample);
    match bench {
        Ok(p) => println!(
            "NPP {} peers on {w}×{h} {sample} RGBA ({layout}); % copy = effective bandwidth over that of cuMemcpyDtoD of the image's bytes ({:.4} ms); speed-up = NPP ms / cudalens ms",
            p.npp.version(),
            p.copy_ms
        ),
        Err(reason) => println!("{layout} peers: {reason}"),
    }
    println!(
        "{:<26} {:>9} {:>7} | {:>9} {:>7} {:>9} {:>9} {:>22} | NPP call",
        "kernel", "ms", "% copy", "NPP ms", "% copy", "speed-up", "max diff", "check"
    );
    let pct = |f: Option<f64>| f.map_or("—".to_string(), |f| format!("{:.0} %", f * 100.0));
    let mut out = Vec::new();
    for (row, ms, peer) in rows {
        let mine = fraction(row.bytes, *ms);
        let cells = match peer {
            Ok(t) => [
                format!("{:.4}", t.ms),
                pct(fraction(row.bytes, t.ms)),
                format!("{:.2}×", t.ms / ms),
                match (t.compare, t.check) {
                    (Compare::Different(_), _) => "—".to_string(),
                    (_, Some(c)) => difference_text(sample, c.max_difference),
                    (_, None) => "?".to_string(),
                },
                verdict(t),
                match (t.compare, t.tolerance) {
                    (Compare::Different(why), _) | (_, Tolerance::Measured(why)) => {
                        format!("{} ({why}; {} runs)", t.label, t.runs)
                    }
                    _ => format!("{} ({} runs)", t.label, t.runs),
                },
            ],
            Err(e) => [
                "—".into(),
                "—".into(),
                "—".into(),
                "—".into(),
                "—".into(),
                e.clone(),
            ],
        };
        println!(
            "{:<26} {:>9.4} {:>7} | {:>9} {:>7} {:>9} {:>9} {:>22} | {}",
            row.name,
            ms,
            pct(mine),
            cells[0],
            cells[1],
            cells[2],
            cells[3],
            cells[4],
            cells[5]
        );
        let peer_json = match peer {
            Ok(t) => serde_json::json!({
                "call": t.label, "ms": t.ms, "runs": t.runs,
                "fraction_of_copy": fraction(row.bytes, t.ms),
                "speedup": t.ms / ms,
                "same_operation": !matches!(t.compare, Compare::Different(_)),
                "max_difference": t.check.map(|c| c.max_difference),
                "tolerance": match t.compare {
                    Compare::Different(_) => None,
                    _ => Some(t.tolerance.describe()),
                },
                "within_tolerance": t.check.and_then(|c| c.pass),
                "note": match (t.compare, t.tolerance) {
                    (Compare::Different(why), _) | (_, Tolerance::Measured(why)) => Some(why),
                    _ => None,
                },
            }),
            Err(e) => serde_json::json!({ "error": e }),
        };
        out.push(serde_json::json!({
            "kernel": row.name, "stage": row.stage, "bytes": row.bytes, "ms": ms,
            "fraction_of_copy": mine, "npp": peer_json,
        }));
    }
    serde_json::json!({
        "sample_type": match sample { SampleType::U16 => "u16", SampleType::F32 => "f32", SampleType::U8 => "u8" },
        "layout": layout,
        "npp_version": bench.as_ref().ok().map(|p| p.npp.version()),
        "copy_same_bytes_ms": bench.as_ref().ok().map(|p| p.copy_ms),
        "rows": out,
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use cudalens::filters::FILTERS;

    fn f(spec: &str) -> Filter {
        spec.parse().expect("spec")
    }

    #[test]
    fn each_type_lists_its_peers() {
        let with_peer = |sample| -> Vec<&str> {
            let mut names: Vec<&str> = FILTERS
                .iter()
                .map(|d| d.name)
                .filter(|n| typed_op(n, sample).is_some())
                .collect();
            names.sort_unstable(); // registry order is the menu's
            names
        };
        assert_eq!(with_peer(SampleType::U16), ["box", "gaussian", "median"]);
        assert_eq!(
            with_peer(SampleType::F32),
            ["box", "gaussian", "median", "sobel"]
        );
        assert!(with_peer(SampleType::U8).is_empty(), "RGBA8 has peer_for");
        assert!(no_peer("sobel", SampleType::U16)
            .to_string()
            .contains("16s and 32f"));
        assert_eq!(
            no_peer("transpose", SampleType::F32).to_string(),
            "no NPP equivalent of transpose among the 32-bit float peers"
        );
    }

    #[test]
    fn rows_move_the_typed_pixel_bytes() {
        let copy = typed_rows("copy + histogram", &[], 4, 2, SampleType::U16);
        assert_eq!(copy.len(), 1, "the typed frame counts no histogram");
        assert_eq!((copy[0].stage, copy[0].bytes), ("copy", 128.0)); // 8 px × 8 B × 2
        let one = typed_rows(
            "median:radius=2",
            &[f("median:radius=2")],
            4,
            2,
            SampleType::F32,
        );
        assert_eq!((one[0].stage, one[0].bytes), ("median", 256.0)); // 8 px × 16 B × 2
        assert!(typed_rows(
            "chain",
            &[f("sobel"), f("transpose")],
            4,
            2,
            SampleType::F32
        )
        .is_empty());
    }

    #[test]
    fn without_a_device_every_row_says_why() {
        let image = cudalens::ops::random_image(4, 2, 1);
        let typed = PixelImage::from_rgba8(image).to_type(SampleType::F32);
        let mut run = TypedPeerRun::new(None, &typed, 3);
        let medians = BTreeMap::from([("box".to_string(), 0.5)]);
        run.add_case("box:radius=1", &[f("box:radius=1")], &medians, &typed);
        run.add_case("copy + histogram", &[], &BTreeMap::new(), &typed);
        assert!(matches!(&run.rows[0].2, Err(e) if e.contains("CUDA backend")));
        let json = run.finish();
        assert_eq!(json["sample_type"], "f32");
        assert_eq!(json["layout"], "f32x4");
        assert!(json["rows"][0]["npp"]["error"].is_string());
        assert_eq!(json["rows"][1]["stage"], "copy");
        assert!(
            json["rows"][1]["ms"].is_null(),
            "no median: NaN, null in JSON"
        );
    }

    #[test]
    fn the_medians_come_from_the_apps_json_of_each_case() {
        let case = serde_json::json!({ "stages_ms": { "box": 1.25, "total": 2.0, "x": null } });
        let m = case_medians(Some(&case));
        assert_eq!(m.get("box"), Some(&1.25));
        assert_eq!(m.get("x"), None);
        assert!(case_medians(None).is_empty());
    }

    #[test]
    fn verdicts_say_pass_fail_or_measured() {
        let timing = |compare, tolerance, pass| TypedTiming {
            label: "x".into(),
            ms: 1.0,
            runs: 3,
            compare,
            tolerance,
            check: Some(TypedCheck {
                max_difference: 1.0,
                pass,
            }),
        };
        let exact = Tolerance::Levels(0);
        assert_eq!(
            verdict(&timing(Compare::Rgb, exact, Some(true))),
            "ok (exact)"
        );
        assert_eq!(
            verdict(&timing(Compare::Rgb, exact, Some(false))),
            "FAIL (exact)"
        );
        let measured = Tolerance::Measured("why");
        assert_eq!(verdict(&timing(Compare::Rgb, measured, None)), "measured");
        assert_eq!(
            verdict(&timing(Compare::Different("d"), measured, None)),
            "—"
        );
    }
}
