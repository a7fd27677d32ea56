//! `cudalens-bench`: the research benchmarks of cudalens, kept out of the app. It takes
//! every option of `cudalens bench` (the filter cases, `--mandelbrot`, `--json`, ...) and
//! adds the modes below, which print tables for tuning the kernels, not for users.

mod bla_stats;
mod deep;
mod handover;
mod mandelbrot;
mod npp;
mod peer_bench;
mod peer_for;
mod peers;
mod typed_peers;
mod video_peer;

use clap::Parser;
use cudalens::cli::bench::{bench_frame, check_bench, headless_gl, measure_cases, Measured};
use cudalens::cli::{BenchArgs, CliError};
use cudalens::pixels::SampleType;
use std::process::ExitCode;

/// Shown at the end of `cudalens-bench --help`.
const MODES: &str = "\
Modes (each adds to the filter table of `cudalens bench` unless said otherwise):
  --peers            NPP's nearest equivalent of each filter case, same process and image,
                     checked against the CPU reference (needs libnpp* on the library path);
                     with --type u16|f32, NPP's 16u or 32f RGBA calls beside the typed kernels
  --mandelbrot       Mariani–Silver against per-pixel: the four goal points, the bookmarks at
                     window sizes, the nesting presets, one pixel's latency, the explorer frame
  --ms-sweep         a grid of Mariani–Silver tunings per size class (implies --mandelbrot;
                     --ms-sweep-sizes all|window|large|compare)
  --deep             a 1920×1080 view 1e-100 wide by perturbation, BLA on and off (GPU, CPU);
                     with --ms-sweep, the deep tunings swept too
  --handover-probe   instead of the cases: filter and explorer frames in turn in one process,
                     each phase's GL–CUDA hand-over (CUDA backend only)
  --bla-stats        instead of the cases, on the CPU: the deep bookmarks' perturbation and
                     BLA steps per pixel for several ε and reaches, and the dwells that change
                     (--bla-view NAME: the bookmarks whose name contains it)
  --video-peer CLIP  instead of the cases: the NV12 → RGBA conversion of NVDEC's first
                     frame of CLIP against NPP's NV12 → RGB (CUDA, needs libnppicc)

Examples:
  cudalens-bench --backend cuda --peers --size 3840x2160 --json peers.json
  cudalens-bench --backend cuda --peers --type f32 --size 3840x2160 --runs 20
  cudalens-bench --backend cuda --mandelbrot --runs 15
  cudalens-bench --backend cuda --mandelbrot --ms-sweep --ms-sweep-sizes large
  cudalens-bench --backend cuda --deep --size 1920x1080 --runs 20
  cudalens-bench --backend cuda --interop external --handover-probe --size 7680x4320
  cudalens-bench --bla-stats --size 480x270 --bla-view period-137
  cudalens-bench --video-peer .carry/video/hevc_4k.mp4 --json nv12.json";

/// cudalens's research benchmarks: NPP peers, Mariani–Silver sweeps and goal points, deep
/// sweeps, the GL–CUDA hand-over probe.
#[derive(Debug, Parser)]
#[command(name = "cudalens-bench", version, after_help = MODES)]
pub struct BenchCli {
    #[command(flatten)]
    pub common: BenchArgs,
    /// Also run NPP's nearest equivalent of each filter case (when NPP is installed).
    #[arg(long)]
    pub peers: bool,
    /// Time Mariani–Silver over a grid of refinement parameters (implies --mandelbrot).
    #[arg(long)]
    pub ms_sweep: bool,
    /// What --ms-sweep times: both size classes and the full table (all), one class, or
    /// the finalists side by side (compare).
    #[arg(long, value_enum, default_value_t)]
    pub ms_sweep_sizes: SweepSizes,
    /// Also time a deep view (perturbation, 1920×1080 at span 1e-100, on CUDA).
    #[arg(long)]
    pub deep: bool,
    /// Instead of the cases: filter frames and Mandelbrot explorer frames in turn in one
    /// process, printing each phase's GPU-side hand-over.
    #[arg(long)]
    pub handover_probe: bool,
    /// Instead of the cases, on the CPU: where deep views' iterations go with BLA.
    #[arg(long)]
    pub bla_stats: bool,
    /// With --bla-stats: only the deep bookmarks whose name contains this.
    #[arg(long, value_name = "NAME", requires = "bla_stats")]
    pub bla_view: Option<String>,
    /// Instead of the cases: the conversion of this clip's first NVDEC frame against NPP's.
    #[arg(long, value_name = "CLIP")]
    pub video_peer: Option<std::path::PathBuf>,
}

/// The size classes of `--ms-sweep`.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, clap::ValueEnum)]
pub enum SweepSizes {
    /// Window sizes and 4096² / 16384², then the full table with the measured tunings.
    #[default]
    All,
    /// The window bookmarks only.
    Window,
    /// The goal points at 4096² and 16384² only.
    Large,
    /// No sweep: the finalists of both side by side over sizes 1920×1080 … 16384².
    Compare,
}

/// The filter cases (with NPP's peers on `--peers`), then the deep and Mandelbrot modes.
fn run(cli: &BenchCli) -> Result<(), CliError> {
    let args = &cli.common;
    cudalens::image_io::budget::configure_max_memory(args.memory.max_memory);
    if cli.bla_stats {
        let stats = bla_stats::run(args.size, cli.bla_view.as_deref())?;
        if let Some(path) = &args.json {
            let doc = serde_json::json!({ "bla_stats": stats });
            cudalens::image_io::write_bytes_atomically(path, doc.to_string().as_bytes())?;
        }
        return Ok(());
    }
    if let Some(clip) = &cli.video_peer {
        let peer = video_peer::run(clip)?;
        if let Some(path) = &args.json {
            let doc = serde_json::json!({ "video_peer": peer });
            cudalens::image_io::write_bytes_atomically(path, doc.to_string().as_bytes())?;
        }
        return Ok(());
    }
    let gpu_only = cli.peers || cli.ms_sweep || cli.deep || cli.handover_probe;
    if args.backend == cudalens::pipeline::BackendRequest::Cpu && gpu_only {
        return Err(CliError::usage(if cli.handover_probe {
            handover::NEEDS_CUDA
        } else {
            "--peers, --ms-sweep and --deep are GPU benchmarks: they need the CUDA backend"
        }));
    }
    if args.backend == cudalens::pipeline::BackendRequest::Cpu {
        return cudalens::cli::run_bench(args);
    }
    let (w, h) = args.size;
    let gl = headless_gl()?;
    let gl = &gl.gl;
    check_bench(gl, args)?;
    if cli.handover_probe {
        let probe = handover::run(gl, args)?;
        if let Some(path) = &args.json {
            let doc = serde_json::json!({ "size": [w, h], "handover_probe": probe });
            cudalens::image_io::write_bytes_atomically(path, doc.to_string().as_bytes())?;
        }
        return Ok(());
    }
    let (image, source, mut runner) = bench_frame(gl, args)?;
    let backend = runner.status.kind;
    println!("backend: {} — {}", backend, runner.status.reason);
    let interop = runner.interop.clone();
    if let Some(i) = &interop {
        println!("interop: {i}");
    }
    // RGBA8 peers run after each case (the app's hook); typed ones after the last case,
    // since the app runs no hook on typed images.
    let typed = cudalens::cli::bench::bench_sample_type(args.sample_type) != SampleType::U8;
    let mut peer_run = peers::PeerRun::default();
    let hook: Option<&mut dyn cudalens::cli::bench::CaseHook> =
        (cli.peers && !typed).then_some(&mut peer_run as _);
    let measured = measure_cases(gl, args, &mut runner, &source, &image, hook);
    let typed_peer_json = match &measured {
        Ok(m) if cli.peers && typed => Some(typed_peers::run(
            runner.cuda_device(),
            args,
            &image,
            &m.json,
        )),
        _ => None,
    };
    runner.destroy(gl);
    source.destroy(gl);
    let Measured {
        mut json,
        peers: peer_json,
        copy_gbps,
    } = measured?;
    let peer_json = peer_json.or(typed_peer_json);
    if cli.deep {
        json.insert(
            "deep".into(),
            deep::bench_deep(gl, args.runs, cli.ms_sweep)?,
        );
    }
    if args.mandelbrot || (cli.ms_sweep && !cli.deep) {
        json.insert("mandelbrot".into(), mandelbrot::run(gl, cli)?);
    }
    if let Some(path) = &args.json {
        let interop = interop.map(|i| i.kind.to_string());
        let doc = serde_json::json!({ "backend": backend.to_string(), "interop": interop, "size": [w, h], "copy_gbps": copy_gbps, "cases": json, "peers": peer_json });
        cudalens::image_io::write_bytes_atomically(path, doc.to_string().as_bytes())?;
    }
    Ok(())
}

fn main() -> ExitCode {
    env_logger::Builder::from_env(env_logger::Env::default().default_filter_or("warn")).init();
    let cli = match BenchCli::try_parse() {
        Ok(cli) => cli,
        Err(e) => {
            use clap::error::ErrorKind;
            return match e.kind() {
                ErrorKind::DisplayHelp | ErrorKind::DisplayVersion => {
                    let _ = e.print();
                    ExitCode::SUCCESS
                }
                _ => {
                    eprintln!("cudalens-bench: {}", cudalens::cli::clap_error_line(&e));
                    ExitCode::from(cudalens::cli::EXIT_USAGE)
                }
            };
        }
    };
    match run(&cli) {
        Ok(()) => ExitCode::SUCCESS,
        Err(e) => {
            eprintln!("cudalens-bench: {}", e.message);
            ExitCode::from(e.code)
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use clap::CommandFactory;

    fn parse(args: &[&str]) -> Result<BenchCli, clap::Error> {
        BenchCli::try_parse_from(std::iter::once("cudalens-bench").chain(args.iter().copied()))
    }

    #[test]
    fn peers_take_the_apps_sample_type() {
        use cudalens::cli::bench::bench_sample_type;
        let cli = parse(&["--peers", "--size", "64x32"]).expect("parses");
        assert_eq!(bench_sample_type(cli.common.sample_type), SampleType::U8);
        for (name, sample) in [("u16", SampleType::U16), ("f32", SampleType::F32)] {
            let cli = parse(&[
                "--peers",
                "--type",
                name,
                "--size",
                "3840x2160",
                "--runs",
                "20",
            ])
            .expect("parses");
            assert!(cli.peers);
            assert_eq!(bench_sample_type(cli.common.sample_type), sample);
            assert_eq!((cli.common.size, cli.common.runs), ((3840, 2160), 20));
        }
        assert!(parse(&["--peers", "--type", "u32"]).is_err());
    }

    #[test]
    fn every_argument_has_help() {
        let command = BenchCli::command();
        command.clone().debug_assert();
        for arg in command.get_arguments() {
            let id = arg.get_id().as_str();
            if !matches!(id, "help" | "version") {
                assert!(arg.get_help().is_some(), "argument {id} has no help");
            }
        }
    }
}
