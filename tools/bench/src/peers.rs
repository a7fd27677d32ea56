//! `cudalens-bench --peers`: NPP's nearest equivalent of each case, run in the same
//! process on the same image right after cudalens's own kernel, timed with CUDA events and
//! checked against the cudalens CPU reference where it is the same operation. Every time is
//! also given as a fraction of a linear device-to-device copy of the same bytes, measured
//! in the same run.

use crate::npp::{peers, Compare, NppError, Peer, PeerOutput};
use crate::peer_bench::{PeerBench, PeerTiming};
use crate::peer_for::peer_for;
use cudalens::cli::bench::CaseHook;
use cudalens::cuda::CudaDevice;
use cudalens::filters::{apply_cpu, Filter};
use cudalens::ops::cpu;
use image::RgbaImage;
use std::collections::BTreeMap;

/// One kernel of a case, held against its peer: the stage it is timed as, and the bytes it
/// must move at least (read + write; the histogram only reads).
pub(crate) struct KernelRow {
    pub(crate) name: String,
    pub(crate) stage: &'static str,
    pub(crate) bytes: f64,
}

/// The rows of one case: the copy and the histogram without filters, the filter alone, and
/// none for a chain (NPP has no one call for it).
fn kernel_rows(name: &str, filters: &[Filter], w: u32, h: u32) -> Vec<KernelRow> {
    let image_bytes = 4.0 * f64::from(w) * f64::from(h);
    match filters {
        [] => vec![
            KernelRow {
                name: "copy (no filter)".into(),
                stage: "copy",
                bytes: 2.0 * image_bytes,
            },
            KernelRow {
                name: "histogram".into(),
                stage: "histogram",
                bytes: image_bytes,
            },
        ],
        [f] => vec![KernelRow {
            name: name.into(),
            stage: f.name(),
            bytes: 2.0 * image_bytes,
        }],
        _ => Vec::new(),
    }
}

/// NPP's peer of a row and the CPU reference its output is checked against.
fn peer_of(
    bench: &PeerBench,
    row: &KernelRow,
    filters: &[Filter],
    image: &RgbaImage,
) -> Result<(Peer, Option<PeerOutput>), NppError> {
    let npp = &bench.npp;
    let (w, h) = image.dimensions();
    let (peer, compare_with) = match (row.stage, filters.first()) {
        ("histogram", _) => (peers::histogram(npp, w, h)?, None),
        (_, None) => (peers::copy(), None),
        (_, Some(f)) => match peer_for(npp, f.name(), f.params(), w, h) {
            Some(peer) => (peer?, Some(filters)),
            None => return Err(NppError::NoEquivalent(f.to_string())),
        },
    };
    let reference = match (peer.compare, compare_with) {
        (Compare::Different(_), _) => None,
        (Compare::HistogramRgb, _) => Some(PeerOutput::Histogram(cpu::histogram(image).flat())),
        (_, None) => Some(PeerOutput::Image(image.clone())),
        (_, Some(filters)) => Some(PeerOutput::Image(apply_cpu(image, filters))),
    };
    Ok((peer, reference))
}

/// Prints the kernel-versus-peer table and returns its JSON.
fn peer_table(rows: &[PeerRow], peers: &Result<PeerBench, String>) -> serde_json::Value {
    let fraction = |bytes: f64, ms: f64| peers.as_ref().ok().map(|p| p.fraction_of_copy(bytes, ms));
    match peers {
        Ok(p) => println!(
            "NPP {} peers; % copy = effective bandwidth over that of cuMemcpyDtoD of the image's bytes ({:.4} ms)",
            p.npp.version(),
            p.copy_ms
        ),
        Err(reason) => println!("peers: {reason}"),
    }
    println!(
        "{:<26} {:>9} {:>7} | {:>9} {:>7} {:>9} {:>8} | NPP call",
        "kernel", "ms", "% copy", "NPP ms", "% copy", "speed-up", "max diff"
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
                match (t.compare, t.max_difference) {
                    (Compare::Different(_), _) => "—".to_string(),
                    (_, Some(d)) => d.to_string(),
                    (_, None) => "?".to_string(),
                },
                match t.compare {
                    Compare::Different(why) => format!("{} ({why}; {} runs)", t.label, t.runs),
                    _ => format!("{} ({} runs)", t.label, t.runs),
                },
            ],
            Err(e) => ["—".into(), "—".into(), "—".into(), "—".into(), e.clone()],
        };
        println!(
            "{:<26} {:>9.4} {:>7} | {:>9} {:>7} {:>9} {:>8} | {}",
            row.name,
            ms,
            pct(mine),
            cells[0],
            cells[1],
            cells[2],
            cells[3],
            cells[4]
        );
        let peer_json = match peer {
            Ok(t) => serde_json::json!({
                "call": t.label, "ms": t.ms, "runs": t.runs,
                "fraction_of_copy": fraction(row.bytes, t.ms),
                "speedup": t.ms / ms,
                "same_operation": !matches!(t.compare, Compare::Different(_)),
                "max_difference": t.max_difference,
            }),
            Err(e) => serde_json::json!({ "error": e }),
        };
        out.push(serde_json::json!({
            "kernel": row.name, "stage": row.stage, "bytes": row.bytes, "ms": ms,
            "fraction_of_copy": mine, "npp": peer_json,
        }));
    }
    serde_json::json!({
        "npp_version": peers.as_ref().ok().map(|p| p.npp.version()),
        "copy_same_bytes_ms": peers.as_ref().ok().map(|p| p.copy_ms),
        "rows": out,
    })
}

/// A row of the table: a kernel, its median time and its peer's result.
type PeerRow = (KernelRow, f64, Result<PeerTiming, String>);

/// The peers of a whole `bench` run: NPP (or why not) and the rows so far.
pub struct PeerRun {
    bench: Result<PeerBench, String>,
    rows: Vec<PeerRow>,
}

impl PeerRun {
    /// NPP on `device` with `image` uploaded; without a device or NPP every row says why.
    pub fn new(device: Option<&CudaDevice>, image: &RgbaImage, runs: usize) -> Self {
        let bench = match device {
            None => Err("NPP peers need the CUDA backend".to_string()),
            Some(d) => PeerBench::new(d, image, runs).map_err(|e| e.to_string()),
        };
        Self {
            bench,
            rows: Vec::new(),
        }
    }

    /// Runs the peers of one case right after its kernels were timed (`medians`).
    pub fn add_case(
        &mut self,
        name: &str,
        filters: &[Filter],
        medians: &BTreeMap<String, f64>,
        image: &RgbaImage,
    ) {
        let (w, h) = image.dimensions();
        for row in kernel_rows(name, filters, w, h) {
            let ms = medians.get(row.stage).copied().unwrap_or(f64::NAN);
            let timing = match &mut self.bench {
                Ok(b) => peer_of(b, &row, filters, image)
                    .and_then(|(peer, reference)| b.time(&peer, reference.as_ref()))
                    .map_err(|e| e.to_string()),
                Err(reason) => Err(reason.clone()),
            };
            self.rows.push((row, ms, timing));
        }
    }
}

/// Not started: NPP is loaded by [`CaseHook::start`], once the bench's device exists.
impl Default for PeerRun {
    fn default() -> Self {
        Self {
            bench: Err("NPP peers were not started".to_string()),
            rows: Vec::new(),
        }
    }
}

impl CaseHook for PeerRun {
    fn start(&mut self, device: Option<&CudaDevice>, image: &RgbaImage, runs: usize) {
        *self = Self::new(device, image, runs);
    }

    fn case(
        &mut self,
        name: &str,
        filters: &[Filter],
        medians: &BTreeMap<String, f64>,
        image: &RgbaImage,
    ) {
        self.add_case(name, filters, medians, image);
    }

    /// Prints the table and returns its JSON (releasing NPP's buffers).
    fn finish(&mut self) -> serde_json::Value {
        let done = std::mem::take(self);
        peer_table(&done.rows, &done.bench)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn stages(rows: &[KernelRow]) -> Vec<&'static str> {
        rows.iter().map(|r| r.stage).collect()
    }

    #[test]
    fn each_case_holds_its_own_kernels_against_peers() {
        let f = |s: &str| s.parse::<Filter>().expect("spec");
        let copy = kernel_rows("copy + histogram", &[], 4, 2);
        assert_eq!(stages(&copy), ["copy", "histogram"]);
        assert_eq!(copy[0].bytes, 64.0); // read + write of 8 pixels
        assert_eq!(copy[1].bytes, 32.0); // the histogram only reads
        let one = kernel_rows("box:radius=5", &[f("box:radius=5")], 4, 2);
        assert_eq!(stages(&one), ["box"]);
        let chain = kernel_rows("chain", &[f("sobel"), f("transpose")], 4, 2);
        assert!(chain.is_empty(), "NPP has no single call for a chain");
    }

    #[test]
    fn without_a_device_every_row_says_why() {
        let image = cudalens::ops::random_image(4, 2, 1);
        let mut run = PeerRun::new(None, &image, 3);
        let medians = BTreeMap::from([("sobel".to_string(), 0.5)]);
        run.add_case("sobel", &["sobel".parse().expect("spec")], &medians, &image);
        assert!(matches!(&run.rows[0].2, Err(e) if e.contains("CUDA backend")));
        assert!(run.finish()["rows"][0]["npp"]["error"].is_string());
    }
}
