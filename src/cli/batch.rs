//! `cudalens apply` on several images (or folders of them) into an output folder.
//!
//! One backend for all (one GL and CUDA context on the calling thread); `--jobs` decoder
//! threads feed it through a bounded queue and `--jobs` encoder threads drain it, so
//! decoding and encoding overlap the filtering. A file that fails is reported and the
//! others go on; the exit code is 2 if any failed. Outputs are `DIR/<stem>.<ext>`, never
//! an input, never an existing file without `--force`.

use super::batch_engine::BatchEngine;
use super::{ApplyArgs, CliError, OutputFormat};
use crate::image_io::{check_save_target, load_image, SaveOptions};
use crate::pixels::{PixelImage, SampleType};
use indicatif::{ProgressBar, ProgressStyle};
use std::io::IsTerminal;
use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::{mpsc, Mutex};
use std::time::Instant;

/// Extensions of the files a folder contributes (what the loader decodes).
const IMAGE_EXTENSIONS: [&str; 12] = [
    "png", "jpg", "jpeg", "tif", "tiff", "bmp", "webp", "gif", "exr", "pgm", "ppm", "pnm",
];

/// Whether `apply` runs as a batch: several inputs, a folder as input, or an output that
/// is a folder (a path ending in a separator, or an existing folder whose name has no
/// image extension: `-o out.png` always names a file, and is refused where a folder is).
pub fn is_batch(args: &ApplyArgs) -> bool {
    let output = &args.output;
    let names_folder = output
        .as_os_str()
        .to_string_lossy()
        .ends_with(std::path::is_separator);
    let existing_folder = output.is_dir() && !has_image_extension(output);
    !args.more_inputs.is_empty() || args.input.is_dir() || existing_folder || names_folder
}

fn has_image_extension(path: &Path) -> bool {
    path.extension()
        .and_then(|e| e.to_str())
        .is_some_and(|e| IMAGE_EXTENSIONS.contains(&e.to_ascii_lowercase().as_str()))
}

/// The inputs with folders replaced by their image files (sorted, not recursive).
fn expand_inputs(args: &ApplyArgs) -> Result<Vec<PathBuf>, CliError> {
    let mut files = Vec::new();
    for input in std::iter::once(&args.input).chain(&args.more_inputs) {
        if !input.is_dir() {
            files.push(input.clone());
            continue;
        }
        let entries = std::fs::read_dir(input)
            .map_err(|e| CliError::usage(format!("{}: cannot list: {e}", input.display())))?;
        let mut found: Vec<PathBuf> = entries
            .filter_map(|e| e.ok().map(|e| e.path()))
            .filter(|p| p.is_file() && has_image_extension(p))
            .collect();
        if found.is_empty() {
            return Err(CliError::usage(format!(
                "{}: no image files in this folder ({})",
                input.display(),
                IMAGE_EXTENSIONS.join(", ")
            )));
        }
        found.sort();
        files.extend(found);
    }
    Ok(files)
}

/// One image of the batch.
#[derive(Debug)]
struct Job {
    input: PathBuf,
    output: PathBuf,
}

/// `DIR/<stem>.<ext>` for each input, or why not (no name, no writable format, an output
/// name taken twice, an input or an existing file in the way).
fn plan(
    inputs: Vec<PathBuf>,
    dir: &Path,
    format: Option<OutputFormat>,
    options: &SaveOptions,
) -> (Vec<Job>, Vec<String>) {
    let (mut jobs, mut failures) = (Vec::<Job>::new(), Vec::new());
    for input in inputs {
        let ext = format
            .map(|f| f.extension().to_string())
            .or_else(|| input.extension().map(|e| e.to_string_lossy().into_owned()));
        let (Some(stem), Some(ext)) = (input.file_stem(), ext) else {
            failures.push(format!(
                "{}: no output name (give the file an extension or use --format)",
                input.display()
            ));
            continue;
        };
        let output = dir.join(format!("{}.{ext}", stem.to_string_lossy()));
        if let Some(first) = jobs.iter().find(|j| j.output == output) {
            failures.push(format!(
                "{}: its output {} is already the output of {}",
                input.display(),
                output.display(),
                first.input.display()
            ));
            continue;
        }
        match check_save_target(&output, options) {
            Ok(_) => jobs.push(Job { input, output }),
            Err(e) => failures.push(format!("{}: {e}", input.display())),
        }
    }
    (jobs, failures)
}

/// A progress bar on stderr when it is a terminal, else nothing.
fn progress_bar(len: usize) -> ProgressBar {
    if !std::io::stderr().is_terminal() {
        return ProgressBar::hidden();
    }
    let style = ProgressStyle::with_template(
        "{spinner} [{elapsed_precise}] {bar:40} {pos}/{len} ({per_sec}, ETA {eta}) {wide_msg}",
    )
    .unwrap_or_else(|_| ProgressStyle::default_bar());
    ProgressBar::new(len as u64).with_style(style)
}

/// What the batch did: failures are printed as they happen and counted.
struct Outcome {
    bar: ProgressBar,
    failed: AtomicUsize,
}

impl Outcome {
    fn fail(&self, message: String) {
        self.failed.fetch_add(1, Ordering::Relaxed);
        self.bar.suspend(|| eprintln!("cudalens: {message}"));
        self.bar.inc(1);
    }
}

/// Decodes on `jobs` threads, filters on this one, encodes on `jobs` threads.
fn run_pipeline(
    jobs: &[Job],
    workers: usize,
    engine: &mut BatchEngine,
    args: &ApplyArgs,
    options: &SaveOptions,
    outcome: &Outcome,
) {
    let next = AtomicUsize::new(0);
    let (decoded_tx, decoded_rx) = mpsc::sync_channel(workers);
    let (encode_tx, encode_rx) = mpsc::sync_channel::<(usize, PixelImage)>(workers);
    let encode_rx = Mutex::new(encode_rx);
    std::thread::scope(|scope| {
        for _ in 0..workers {
            let tx = decoded_tx.clone();
            let next = &next;
            scope.spawn(move || loop {
                let i = next.fetch_add(1, Ordering::Relaxed);
                let Some(job) = jobs.get(i) else { break };
                if tx.send((i, load_image(&job.input))).is_err() {
                    break;
                }
            });
        }
        drop(decoded_tx);
        for _ in 0..workers {
            let rx = &encode_rx;
            scope.spawn(move || loop {
                let message = rx
                    .lock()
                    .map_err(|_| ())
                    .and_then(|r| r.recv().map_err(|_| ()));
                let Ok((i, image)) = message else { break };
                match super::apply::save_checked(&image, &jobs[i].output, options) {
                    Ok(()) => outcome.bar.inc(1),
                    Err(e) => outcome.fail(format!("{}: {e}", jobs[i].input.display())),
                }
            });
        }
        for (i, loaded) in decoded_rx {
            // Load errors name the file already; processing errors get its name.
            let result = loaded.map_err(|e| e.to_string()).and_then(|l| {
                let name = jobs[i].input.display();
                if args.edits.is_empty() && args.filters.is_empty() {
                    // A plain conversion keeps the file's own samples.
                    return Ok(l.pixels);
                }
                if l.pixels.sample_type() != SampleType::U8 {
                    return super::apply::process_typed(l.pixels, args)
                        .map(|(image, _)| image)
                        .map_err(|e| format!("{name}: {}", e.message));
                }
                let channels = l.pixels.channels();
                let edited = engine
                    .edit(l.pixels.into_rgba8(), &args.edits)
                    .map_err(|e| format!("{name}: {e}"))?;
                if args.filters.is_empty() {
                    return Ok(PixelImage::from_rgba8_as(edited, channels));
                }
                engine
                    .process(&edited, &args.filters)
                    .map(|out| PixelImage::from_rgba8_as(out, channels))
                    .map_err(|e| format!("{name}: {e}"))
            });
            match result {
                Ok(image) => {
                    if encode_tx.send((i, image)).is_err() {
                        break;
                    }
                }
                Err(e) => outcome.fail(e),
            }
        }
        drop(encode_tx);
    });
}

pub fn run(args: &ApplyArgs) -> Result<(), CliError> {
    let dir = &args.output;
    if args.selection.is_some() {
        return Err(CliError::usage(
            "--selection is for one image: a batch's images have sizes of their own",
        ));
    }
    if (has_image_extension(dir) || crate::video::is_video_path(dir)) && !dir.is_dir() {
        return Err(CliError::usage(format!(
            "-o {}: a batch writes into a folder, and this names a file (give a folder, e.g. -o out/)",
            dir.display()
        )));
    }
    let mut inputs = expand_inputs(args)?;
    if let Some((k, n)) = args.shard {
        inputs = inputs
            .into_iter()
            .enumerate()
            .filter(|(i, _)| i % n == k)
            .map(|(_, p)| p)
            .collect();
        if inputs.is_empty() {
            eprintln!("shard {k}/{n}: no file falls to this shard");
            return Ok(());
        }
    }
    std::fs::create_dir_all(dir).map_err(|e| {
        CliError::usage(format!(
            "{}: cannot create the output folder: {e}",
            dir.display()
        ))
    })?;
    let options = SaveOptions {
        overwrite: args.force,
        protected: inputs.clone(),
        jpeg_quality: Some(args.quality),
        depth: args.depth,
    };
    let total = inputs.len();
    let (jobs, refused) = plan(inputs, dir, args.format, &options);
    let mut engine = BatchEngine::open(args.backend, args.interop)?;
    if let Err(e) = engine.prepare(&args.filters) {
        engine.destroy();
        return Err(e.into());
    }
    let backend = engine.describe();
    let outcome = Outcome {
        bar: progress_bar(total),
        failed: AtomicUsize::new(0),
    };
    refused.into_iter().for_each(|m| outcome.fail(m));
    let workers = args.jobs.map_or_else(
        || std::thread::available_parallelism().map_or(2, |n| n.get()),
        |n| n as usize,
    );
    let start = Instant::now();
    run_pipeline(&jobs, workers, &mut engine, args, &options, &outcome);
    let seconds = start.elapsed().as_secs_f64();
    engine.destroy();
    outcome.bar.finish_and_clear();
    let failed = outcome.failed.load(Ordering::Relaxed);
    let written = total - failed;
    eprintln!(
        "{written} of {total} images written to {} in {seconds:.2} s: {:.2} images/s, {backend}",
        dir.display(),
        written as f64 / seconds.max(1e-9),
    );
    if failed > 0 {
        return Err(CliError::usage(format!(
            "{failed} of {total} images failed"
        )));
    }
    Ok(())
}
