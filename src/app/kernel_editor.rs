//! The kernel editor: a window over one user kernel stage of the stack. The text is
//! highlighted (`user_kernel::highlight`), compiled after a pause in typing on a worker
//! thread (the result comes back through a channel and asks for a repaint; an idle editor
//! schedules nothing), and a build that compiles replaces the stage's source, so the last
//! good build keeps running while the text has errors. Diagnostics are listed and marked
//! at the user's lines (a click moves the cursor there). Save / Save as, the generated
//! translation unit, and the stage's figures (GPU time, registers, spills, shared memory,
//! occupancy).

use super::config_dir::write_atomically;
use crate::pipeline::FrameReport;
use crate::user_kernel::cache::remember;
use crate::user_kernel::compile::{CompileError, CompileOptions, DEFAULT_ARCH};
use crate::user_kernel::device::LoadedKernel;
use crate::user_kernel::diagnostics::{Diagnostic, Origin, Severity};
use crate::user_kernel::highlight::{highlight, Class};
use crate::user_kernel::sandbox::compiler::compile;
use crate::user_kernel::source::KernelSource;
use crate::user_kernel::stage::source_hash;
use crate::user_kernel::{translation_unit, KernelStage};
use egui::text::{CCursor, CCursorRange, LayoutJob, TextFormat};
use egui::{Color32, FontId, Ui};
use std::path::PathBuf;
use std::sync::mpsc::{channel, Receiver};
use std::sync::Arc;
use std::time::{Duration, Instant};

/// The pause in typing after which the text is compiled.
pub const COMPILE_PAUSE: Duration = Duration::from_millis(400);

/// When to compile: after [`COMPILE_PAUSE`] without an edit. Pure time arithmetic, so the
/// UI asks for exactly one repaint when the pause ends instead of polling.
#[derive(Debug, Clone, Copy, Default)]
pub struct Debounce {
    last_edit: Option<Instant>,
}

impl Debounce {
    /// The text changed at `now`.
    pub fn edited(&mut self, now: Instant) {
        self.last_edit = Some(now);
    }

    /// True once the pause after the last edit is over (then not again until an edit).
    pub fn take_due(&mut self, now: Instant) -> bool {
        match self.last_edit {
            Some(t) if now.duration_since(t) >= COMPILE_PAUSE => {
                self.last_edit = None;
                true
            }
            _ => false,
        }
    }

    /// How long until the pause is over (None: no edit waits).
    pub fn remaining(&self, now: Instant) -> Option<Duration> {
        self.last_edit
            .map(|t| COMPILE_PAUSE.saturating_sub(now.duration_since(t)))
    }
}

/// The parsed source, or the error; a good parse that NVRTC could not compile (none
/// installed) comes with what to say instead of the compile figures.
type Compiled = Result<(KernelSource, Option<&'static str>), String>;

/// What a background compile of one version of the text gave.
struct Outcome {
    generation: u64,
    result: Compiled,
    diagnostics: Vec<Diagnostic>,
    ms: f64,
}

/// Compiles `text` for `arch` (parse, then NVRTC); a good build goes into the PTX cache
/// so that the frame finds it there.
fn compile_text(text: &str, arch: &str) -> (Compiled, Vec<Diagnostic>) {
    let source = match KernelSource::parse(text) {
        Ok(s) => s,
        Err(e) => {
            let d = Diagnostic {
                origin: Origin::User,
                line: e.line,
                column: None,
                severity: Severity::Error,
                message: e.message.clone(),
            };
            return (Err(e.to_string()), vec![d]);
        }
    };
    match compile(&source, &CompileOptions::for_arch(arch)) {
        Ok(compiled) => {
            let diagnostics = compiled.diagnostics.clone();
            remember(source_hash(&source.text), arch, Arc::new(compiled));
            (Ok((source, None)), diagnostics)
        }
        Err(CompileError::NvrtcMissing) => (Ok((source, Some(NOT_COMPILED))), Vec::new()),
        Err(CompileError::Failed {
            summary,
            diagnostics,
            ..
        }) => (Err(summary), diagnostics),
        Err(e) => (Err(e.to_string()), Vec::new()),
    }
}

/// The editor's state (one kernel at a time).
pub struct KernelEditor {
    pub open: bool,
    /// The file of the stage being edited (how the stack's entry is found).
    path: PathBuf,
    /// The Save as field.
    save_as: String,
    text: String,
    /// What the file holds (as loaded or last saved); None when there is no such file.
    saved: Option<String>,
    /// Closing was asked with the text not saved: the Save / Close / Cancel question shows.
    confirm_close: bool,
    /// Per row of the code as last laid out: whether it starts a line (else a soft wrap).
    row_starts: Vec<bool>,
    debounce: Debounce,
    generation: u64,
    results: Option<Receiver<Outcome>>,
    compiling: bool,
    status: String,
    diagnostics: Vec<Diagnostic>,
    show_generated: bool,
    jump_to_line: Option<usize>,
    /// A message for the status bar (text, is an error).
    pub message: Option<(String, bool)>,
}

impl Default for KernelEditor {
    fn default() -> Self {
        Self {
            open: false,
            path: PathBuf::new(),
            save_as: String::new(),
            text: String::new(),
            saved: None,
            confirm_close: false,
            row_starts: Vec::new(),
            debounce: Debounce::default(),
            generation: 0,
            results: None,
            compiling: false,
            status: String::new(),
            diagnostics: Vec::new(),
            show_generated: false,
            jump_to_line: None,
            message: None,
        }
    }
}

/// The figures of the stage shown under the editor.
pub struct StageFigures<'a> {
    pub report: Option<&'a FrameReport>,
    pub loaded: Option<Arc<LoadedKernel>>,
    /// The device's NVRTC architecture (`compute_90`), None on the CPU.
    pub arch: Option<String>,
    /// The device's copy bandwidth (GB/s, read + write), the yardstick of the stage's.
    pub copy_gbps: Option<f64>,
    /// Why kernels do not run here (the CPU backend's reason), None on CUDA.
    pub no_cuda: Option<String>,
}

/// Bytes of each copy of the editor's bandwidth yardstick: small enough to measure on the
/// UI thread once (well under a millisecond a copy on current GPUs), large enough to
/// reach the device's bandwidth.
const YARDSTICK_BYTES: usize = 64 << 20;

/// The device's copy bandwidth in GB/s (read + write), None when it cannot be measured.
pub fn measure_copy_gbps(device: &crate::cuda::CudaDevice) -> Option<f64> {
    let samples = crate::cuda::copy_ms_samples(device, YARDSTICK_BYTES, 10).ok()?;
    let ms = crate::bench_stats::median(samples);
    (ms > 0.0).then(|| crate::cuda::gb_per_s(2.0 * YARDSTICK_BYTES as f64, ms))
}

fn colour(class: Class) -> Color32 {
    match class {
        Class::Plain => Color32::from_gray(220),
        Class::Keyword => Color32::from_rgb(198, 120, 221),
        Class::Type => Color32::from_rgb(86, 182, 194),
        Class::Number => Color32::from_rgb(209, 154, 102),
        Class::Comment => Color32::from_gray(120),
        Class::Directive => Color32::from_rgb(229, 192, 123),
        Class::String => Color32::from_rgb(152, 195, 121),
        Class::Preprocessor => Color32::from_rgb(224, 108, 117),
    }
}

/// The highlighted layout of `text`, with the lines in `error_lines` (1-based) underlined.
pub fn code_layout(text: &str, error_lines: &[usize], font: FontId) -> LayoutJob {
    let mut job = LayoutJob::default();
    let line_starts: Vec<usize> = std::iter::once(0)
        .chain(text.match_indices('\n').map(|(i, _)| i + 1))
        .collect();
    let line_of = |at: usize| line_starts.partition_point(|&s| s <= at);
    for (range, class) in highlight(text) {
        // Split at newlines so each line gets its own underline.
        let mut start = range.start;
        while start < range.end {
            let end = text[start..range.end]
                .find('\n')
                .map_or(range.end, |n| start + n + 1);
            let mut format = TextFormat::simple(font.clone(), colour(class));
            if error_lines.contains(&line_of(start)) {
                format.underline = egui::Stroke::new(1.5, Color32::from_rgb(255, 80, 80));
            }
            job.append(&text[start..end], 0.0, format);
            start = end;
        }
    }
    job
}

/// The char index where 1-based `line` starts in `text`.
fn line_char_index(text: &str, line: usize) -> usize {
    let byte = if line <= 1 {
        0
    } else {
        text.match_indices('\n')
            .nth(line - 2)
            .map_or(text.len(), |(i, _)| i + 1)
    };
    text[..byte].chars().count()
}

impl KernelEditor {
    /// Opens the editor on a user kernel stage of the stack.
    pub fn open_on(&mut self, stage: &KernelStage) {
        *self = Self {
            open: true,
            path: stage.path().to_path_buf(),
            save_as: stage.path().display().to_string(),
            text: stage.source().text.clone(),
            saved: std::fs::read_to_string(stage.path()).ok(),
            status: "as loaded".into(),
            ..Self::default()
        };
    }

    /// Replaces the text as typing would: it compiles after the pause.
    pub fn type_text(&mut self, text: String) {
        self.text = text;
        self.debounce.edited(Instant::now());
    }

    /// Whether the text is not what its file holds (never saved, or changed since).
    pub fn modified(&self) -> bool {
        self.saved.as_deref() != Some(self.text.as_str())
    }

    /// The file and the text, while the editor is open with the text not saved.
    pub fn unsaved(&self) -> Option<(&std::path::Path, &str)> {
        (self.open && self.modified()).then_some((self.path.as_path(), self.text.as_str()))
    }

    /// Saves the text to its file; the stage to put in the stack's entry when written.
    pub fn save(&mut self, stage: &KernelStage) -> Option<KernelStage> {
        self.save_to(self.path.clone(), stage)
    }

    /// The file of the stage being edited, while the editor is open.
    pub fn editing(&self) -> Option<&std::path::Path> {
        self.open.then_some(self.path.as_path())
    }

    /// Starts a compile of the current text on a worker thread.
    fn start_compile(&mut self, ctx: &egui::Context, arch: &str) {
        self.generation += 1;
        let (tx, rx) = channel();
        let (text, arch, generation) = (self.text.clone(), arch.to_string(), self.generation);
        let ctx = ctx.clone();
        let spawned = std::thread::Builder::new()
            .name("kernel-editor-compile".into())
            .spawn(move || {
                let start = Instant::now();
                let (result, diagnostics) = compile_text(&text, &arch);
                let outcome = Outcome {
                    generation,
                    result,
                    diagnostics,
                    ms: start.elapsed().as_secs_f64() * 1e3,
                };
                // The editor may be closed meanwhile: nothing to report then.
                if tx.send(outcome).is_ok() {
                    ctx.request_repaint();
                }
            });
        match spawned {
            Ok(_) => {
                self.results = Some(rx);
                self.compiling = true;
                self.status = "compiling…".into();
            }
            Err(e) => self.status = format!("cannot start the compile: {e}"),
        }
    }

    /// Takes a finished compile; a good one gives the entry's new stage. `runs`: kernels
    /// run here (CUDA), so a failed edit leaves the last good build running.
    fn poll(&mut self, stage: &KernelStage, runs: bool) -> Option<KernelStage> {
        let outcome = self.results.as_ref()?.try_recv().ok()?;
        if outcome.generation != self.generation {
            return None; // an older text's result
        }
        self.compiling = false;
        self.results = None;
        self.diagnostics = outcome.diagnostics;
        match outcome.result {
            Ok((source, Some(note))) => {
                self.status = note.to_string();
                Some(stage.with_source(source))
            }
            Ok((source, None)) => {
                let warnings = self
                    .diagnostics
                    .iter()
                    .filter(|d| d.severity == Severity::Warning)
                    .count();
                self.status = format!("compiled in {:.0} ms, {warnings} warning(s)", outcome.ms);
                Some(stage.with_source(source))
            }
            Err(summary) => {
                self.status = error_status(&summary, runs);
                None
            }
        }
    }

    fn save_to(&mut self, path: PathBuf, stage: &KernelStage) -> Option<KernelStage> {
        match write_atomically(&path, self.text.as_bytes()) {
            Ok(()) => {
                self.saved = Some(self.text.clone());
                self.message = Some((format!("kernel saved: {}", path.display()), false));
                self.path = path.clone();
                Some(stage.with_path(&path))
            }
            Err(e) => {
                self.message = Some((e.to_string(), true));
                None
            }
        }
    }

    /// Draws the editor window for `stage` (the stack's entry of [`Self::editing`]);
    /// returns the entry's new stage (an edit that compiled, or a Save as).
    pub fn window_ui(
        &mut self,
        ctx: &egui::Context,
        stage: &KernelStage,
        figures: &StageFigures<'_>,
    ) -> Option<KernelStage> {
        let mut out = None;
        let arch = figures
            .arch
            .clone()
            .unwrap_or_else(|| DEFAULT_ARCH.to_string());
        if let Some(next) = self.poll(stage, figures.no_cuda.is_none()) {
            out = Some(next);
        }
        let now = Instant::now();
        if self.debounce.take_due(now) {
            self.start_compile(ctx, &arch);
        } else if let Some(wait) = self.debounce.remaining(now) {
            ctx.request_repaint_after(wait);
        }
        let mut open = self.open;
        egui::Window::new(format!("Kernel editor: {}", stage.label()))
            .open(&mut open)
            .default_size([720.0, 560.0])
            .resizable(true)
            .show(ctx, |ui| {
                if let Some(s) = self.toolbar_ui(ui, stage) {
                    out = Some(s);
                }
                figures_ui(ui, stage, figures);
                self.diagnostics_ui(ui);
                ui.separator();
                if self.show_generated {
                    self.generated_ui(ui, stage);
                } else if self.code_ui(ui) {
                    self.debounce.edited(Instant::now());
                    ctx.request_repaint_after(COMPILE_PAUSE);
                }
            });
        if !open && self.modified() {
            // Nothing closes over unsaved text without the user's word.
            self.confirm_close = true;
        } else {
            self.open = open;
        }
        if self.confirm_close {
            if let Some(s) = self.confirm_close_ui(ctx, stage) {
                out = Some(s);
            }
        }
        out
    }

    /// The question asked when the editor closes over unsaved text.
    fn confirm_close_ui(
        &mut self,
        ctx: &egui::Context,
        stage: &KernelStage,
    ) -> Option<KernelStage> {
        let mut out = None;
        let name = self.path.file_name().map_or_else(
            || self.path.display().to_string(),
            |n| n.to_string_lossy().into(),
        );
        let modal = egui::Modal::new(egui::Id::unique("kernel editor close")).show(ctx, |ui| {
            ui.heading(format!("Save the changes to {name}?"));
            ui.label(format!(
                "{} does not hold the text you typed. Closed without saving, the stack keeps \
                 its last good build, and the session keeps its source until you save it.",
                self.path.display()
            ));
            ui.horizontal(|ui| {
                if ui.button("Save").clicked() {
                    out = self.save(stage);
                    if !self.modified() {
                        self.open = false;
                    }
                    self.confirm_close = false;
                }
                if ui.button("Close Without Saving").clicked() {
                    (self.open, self.confirm_close) = (false, false);
                }
                if ui.button("Cancel").clicked() {
                    self.confirm_close = false;
                }
            });
        });
        if modal.should_close() {
            self.confirm_close = false; // Esc or a click outside: Cancel
        }
        out
    }

    fn toolbar_ui(&mut self, ui: &mut Ui, stage: &KernelStage) -> Option<KernelStage> {
        let mut replaced = None;
        ui.horizontal(|ui| {
            let dirty = self.modified();
            ui.label(format!(
                "{}{}",
                self.path.display(),
                if dirty { " (modified)" } else { "" }
            ));
            if ui.add_enabled(dirty, egui::Button::new("Save")).clicked() {
                replaced = self.save(stage);
            }
            ui.checkbox(&mut self.show_generated, "Generated source");
        });
        ui.horizontal(|ui| {
            ui.add(egui::TextEdit::singleline(&mut self.save_as).desired_width(360.0));
            let target = PathBuf::from(self.save_as.trim());
            let usable = !self.save_as.trim().is_empty() && target != self.path;
            if ui
                .add_enabled(usable, egui::Button::new("Save as"))
                .on_hover_text("write the text there (an existing file is not replaced)")
                .clicked()
            {
                if target.exists() {
                    self.message = Some((
                        format!("{}: already exists; not replaced", target.display()),
                        true,
                    ));
                } else {
                    replaced = self.save_to(target, stage);
                }
            }
        });
        let colour = if self.status.starts_with("error") {
            Color32::from_rgb(255, 120, 120)
        } else {
            ui.visuals().weak_text_color()
        };
        ui.colored_label(colour, &self.status);
        replaced
    }

    fn diagnostics_ui(&mut self, ui: &mut Ui) {
        if self.diagnostics.is_empty() {
            return;
        }
        egui::ScrollArea::vertical()
            .id_salt("kernel diagnostics")
            .max_height(90.0)
            .show(ui, |ui| {
                for d in &self.diagnostics {
                    let colour = match d.severity {
                        Severity::Error => Color32::from_rgb(255, 120, 120),
                        _ => Color32::from_rgb(229, 192, 123),
                    };
                    let text = egui::RichText::new(d.to_string()).color(colour);
                    let clicked = ui.add(egui::Label::new(text).sense(egui::Sense::click()));
                    if clicked.clicked() && d.origin == Origin::User {
                        self.jump_to_line = d.line;
                    }
                }
            });
    }

    fn generated_ui(&self, ui: &mut Ui, stage: &KernelStage) {
        let mut unit = translation_unit(stage.source());
        egui::ScrollArea::both()
            .id_salt("kernel generated")
            .show(ui, |ui| {
                ui.add(
                    egui::TextEdit::multiline(&mut unit)
                        .font(egui::TextStyle::Monospace)
                        .interactive(false)
                        .desired_width(f32::INFINITY),
                );
            });
    }

    /// The code with line numbers; true when the text changed.
    fn code_ui(&mut self, ui: &mut Ui) -> bool {
        let error_lines: Vec<usize> = self
            .diagnostics
            .iter()
            .filter(|d| d.origin == Origin::User && d.severity == Severity::Error)
            .filter_map(|d| d.line)
            .collect();
        let font = egui::TextStyle::Monospace.resolve(ui.style());
        let mut layouter = |ui: &Ui, text: &dyn egui::TextBuffer, wrap: f32| {
            let mut job = code_layout(text.as_str(), &error_lines, font.clone());
            job.wrap.max_width = wrap;
            ui.fonts_mut(|f| f.layout_job(job))
        };
        let id = ui.make_persistent_id("kernel code");
        if let Some(line) = self.jump_to_line.take() {
            if let Some(mut state) = egui::TextEdit::load_state(ui.ctx(), id) {
                let at = CCursor::new(line_char_index(&self.text, line));
                state.cursor.set_char_range(Some(CCursorRange::one(at)));
                state.store(ui.ctx(), id);
            }
            ui.ctx().memory_mut(|m| m.request_focus(id));
        }
        let lines = self.text.lines().count().max(1) + usize::from(self.text.ends_with('\n'));
        // The rows as last laid out (soft wraps included), while they still match the text.
        let starts = Some(&self.row_starts)
            .filter(|s| s.iter().filter(|&&b| b).count() == lines)
            .cloned()
            .unwrap_or_else(|| vec![true; lines]);
        let mut changed = false;
        egui::ScrollArea::vertical()
            .id_salt("kernel code scroll")
            .show(ui, |ui| {
                ui.horizontal_top(|ui| {
                    let numbers = line_numbers(&starts, &error_lines);
                    ui.label(
                        egui::RichText::new(numbers)
                            .font(font.clone())
                            .color(ui.visuals().weak_text_color()),
                    );
                    let output = egui::TextEdit::multiline(&mut self.text)
                        .id(id)
                        .code_editor()
                        .desired_width(f32::INFINITY)
                        .desired_rows(24)
                        .layouter(&mut layouter)
                        .show(ui);
                    changed = output.response.changed();
                    let rows = &output.galley.rows;
                    self.row_starts = (0..rows.len())
                        .map(|i| i == 0 || rows[i - 1].ends_with_newline)
                        .collect();
                });
            });
        changed
    }
}

/// The line-number column: a number on each row that starts a line (`!` before a line
/// with an error), nothing on the rows a long line wraps onto.
fn line_numbers(row_starts: &[bool], error_lines: &[usize]) -> String {
    let mut n = 0;
    row_starts
        .iter()
        .map(|&start| {
            if !start {
                return "\n".to_string();
            }
            n += 1;
            let mark = if error_lines.contains(&n) { "!" } else { " " };
            format!("{mark}{n:>4}\n")
        })
        .collect()
}

/// The editor's status after a failed compile: where kernels run (`runs`), the last good
/// build goes on running; elsewhere none ever ran.
fn error_status(summary: &str, runs: bool) -> String {
    if runs {
        format!("error (the last good build keeps running): {summary}")
    } else {
        format!("error: {summary}")
    }
}

/// The status of a text that parses where NVRTC is missing.
const NOT_COMPILED: &str = "the source parses; not compiled: NVRTC, which comes with the CUDA toolkit, is not installed here";

/// What the editor says where kernels cannot run: why, in the backend's words.
fn no_cuda_line(reason: &str) -> String {
    format!(
        "kernels run on an NVIDIA GPU with CUDA, which this machine does not offer ({reason}): here the editor checks and compiles only"
    )
}

/// The stage's figures: the kernel's GPU time (CUDA events around its launch, in the
/// kernel host's context where it ran there) and effective bandwidth, the hand-over to
/// the kernel host, and the driver's attributes and occupancy of the loaded kernel.
fn figures_ui(ui: &mut Ui, stage: &KernelStage, figures: &StageFigures<'_>) {
    let label = stage.label();
    let stage_ms = |name: &str| {
        figures
            .report
            .and_then(|r| r.stages.iter().find(|s| s.name == name).map(|s| (r, s.ms)))
    };
    let time = stage_ms(&label);
    // A stage run in the kernel host has a hand-over of its own; a frame run there, one.
    let hand_over = stage_ms(&crate::pipeline::hand_over_stage(&label))
        .or_else(|| stage_ms(crate::pipeline::KERNEL_HOST_STAGE));
    let mut parts = Vec::new();
    if let Some((report, ms)) = time {
        let bytes = crate::cuda::rgba_pass_bytes(report.width, report.height);
        let gbps = crate::cuda::gb_per_s(bytes, ms);
        let of_copy = figures
            .copy_gbps
            .map(|c| format!(" = {:.0}% of copy", 100.0 * gbps / c))
            .unwrap_or_default();
        parts.push(format!(
            "GPU {ms:.3} ms ({gbps:.0} GB/s read + write{of_copy})"
        ));
        if let Some((_, ms)) = hand_over {
            parts.push(format!("+ {ms:.3} ms handing over to the kernel host"));
        }
    } else if let Some(reason) = &figures.no_cuda {
        parts.push(no_cuda_line(reason));
    } else {
        parts.push("GPU time: not run on CUDA yet".into());
    }
    if let Some(k) = &figures.loaded {
        let a = &k.attributes;
        parts.push(format!(
            "{} registers, {} B spills/local, shared {} B static + {} B dynamic",
            a.registers,
            a.local_bytes,
            a.static_shared_bytes,
            stage.source().shared_bytes
        ));
        if let Some(o) = k.occupancy {
            parts.push(format!(
                "occupancy {:.0}% theoretical ({} blocks/SM)",
                o.theoretical() * 100.0,
                o.blocks_per_sm
            ));
        }
        let size = figures.report.map(|r| (r.width, r.height));
        if let Some(((w, h), at)) = size.and_then(|(w, h)| Some(((w, h), k.occupancy_at(w, h)?))) {
            parts.push(format!("{:.0}% over the {w}×{h} grid's waves", at * 100.0));
        }
    }
    ui.weak(parts.join(" · "));
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn line_numbers_skip_the_rows_of_soft_wraps() {
        let column = line_numbers(&[true, false, false, true, true, false], &[2]);
        assert_eq!(column, "    1\n\n\n!   2\n    3\n\n");
    }

    #[test]
    fn an_example_copy_is_unsaved_until_written_and_then_readable_by_all() {
        let dir = tempfile::tempdir().expect("tempdir");
        let path = dir.path().join("my_invert.cu");
        let text = "uchar4 pixel(int x, int y, Image i, Params p) { return read(i, x, y); }\n";
        let stage = KernelStage::from_source(&path, KernelSource::parse(text).expect("parses"));
        let mut editor = KernelEditor::default();
        editor.open_on(&stage);
        assert!(editor.modified(), "no file holds it yet");
        assert_eq!(editor.unsaved(), Some((path.as_path(), text)));
        let saved = editor.save(&stage).expect("written");
        assert_eq!(saved.path(), path.as_path());
        assert!(!editor.modified());
        assert_eq!(std::fs::read_to_string(&path).expect("read"), text);
        #[cfg(unix)]
        {
            use std::os::unix::fs::PermissionsExt;
            let mode = std::fs::metadata(&path).expect("meta").permissions().mode();
            assert_eq!(mode & 0o777, 0o644, "a saved kernel is not private");
        }
        editor.type_text(format!("{text}// more\n"));
        assert!(editor.modified());
        editor.open = false;
        assert_eq!(editor.unsaved(), None, "a closed editor holds nothing");
    }

    #[test]
    fn compiles_once_after_the_pause() {
        let t0 = Instant::now();
        let mut d = Debounce::default();
        assert!(!d.take_due(t0));
        assert_eq!(d.remaining(t0), None, "idle: nothing scheduled");
        d.edited(t0);
        let ms = Duration::from_millis;
        assert!(!d.take_due(t0 + ms(100)));
        d.edited(t0 + ms(300)); // typing goes on
        assert_eq!(d.remaining(t0 + ms(400)), Some(ms(300)));
        assert!(!d.take_due(t0 + ms(650)));
        assert!(d.take_due(t0 + ms(700)));
        assert!(!d.take_due(t0 + ms(2000)), "once");
        assert_eq!(d.remaining(t0 + ms(2000)), None);
    }

    #[test]
    fn layout_underlines_error_lines_and_keeps_the_text() {
        let text = "int a;\nfloat b\nreturn;\n";
        let job = code_layout(text, &[2], FontId::monospace(12.0));
        assert_eq!(job.text, text);
        for s in &job.sections {
            let line = text[..s.byte_range.start.0].matches('\n').count() + 1;
            assert_eq!(s.format.underline.width > 0.0, line == 2, "{s:?}");
        }
        assert_eq!(line_char_index("ab\ncd\né\nx", 4), 8);
        assert_eq!(line_char_index("ab", 1), 0);
    }

    #[test]
    fn without_cuda_the_editor_says_why_and_promises_no_running_build() {
        assert!(error_status("x", true).contains("last good build"));
        let off = error_status("line 3: expected ';'", false);
        assert!(!off.contains("last good build"), "{off}");
        assert!(off.ends_with("line 3: expected ';'"));
        let line = no_cuda_line("no CUDA driver: libcuda.so.1 not found");
        assert!(
            line.contains("NVIDIA GPU") && line.contains("libcuda.so.1"),
            "{line}"
        );
        assert!(!line.to_lowercase().contains("install"), "{line}");
    }

    #[test]
    fn a_compile_gives_the_source_or_diagnostics_at_the_line() {
        let (r, d) = compile_text(
            "// @frob\nuchar4 pixel(int x, int y, Image s, Params p) { return read(s, x, y); }\n",
            DEFAULT_ARCH,
        );
        assert!(r.is_err());
        assert_eq!(d[0].line, Some(1));
        if !crate::user_kernel::nvrtc_available() {
            // A good text parses and says, plainly, that it could not be compiled here.
            let (r, d) = compile_text(
                "uchar4 pixel(int x, int y, Image s, Params p) { return read(s, x, y); }\n",
                DEFAULT_ARCH,
            );
            let (_, note) = r.expect("parses");
            assert_eq!(note, Some(NOT_COMPILED));
            assert!(d.is_empty());
            return;
        }
        let (r, d) = compile_text(
            "uchar4 pixel(int x, int y, Image s, Params p)\n{\n    return read(s, x, y)\n}\n",
            DEFAULT_ARCH,
        );
        assert!(r.is_err());
        assert!(
            d.iter()
                .any(|d| d.line == Some(4) && d.severity == Severity::Error),
            "{d:?}"
        );
        let (r, _) = compile_text(
            "uchar4 pixel(int x, int y, Image s, Params p) { return read(s, x, y); }\n",
            DEFAULT_ARCH,
        );
        assert_eq!(r.map(|(_, note)| note), Ok(None));
    }
}

#[cfg(test)]
mod window_tests {
    use super::*;
    use egui::{Pos2, Rect};

    /// Draws the editor over a shipped example `frames` times without GL; the last
    /// frame's requested repaint delay.
    fn draw(editor: &mut KernelEditor, stage: &KernelStage, frames: usize) -> Duration {
        let ctx = egui::Context::default();
        let figures = StageFigures {
            report: None,
            loaded: None,
            arch: None,
            copy_gbps: None,
            no_cuda: None,
        };
        let mut delay = Duration::MAX;
        for _ in 0..frames {
            let input = egui::RawInput {
                screen_rect: Some(Rect::from_min_size(Pos2::ZERO, egui::vec2(1200.0, 800.0))),
                ..Default::default()
            };
            let mut out = ctx.run_ui(input, |ui| {
                let replaced = editor.window_ui(&ui.ctx().clone(), stage, &figures);
                assert!(replaced.is_none(), "nothing was edited");
            });
            delay = out
                .viewport_output
                .values()
                .map(|v| v.repaint_delay)
                .min()
                .unwrap_or(Duration::MAX);
            out.textures_delta.clear();
        }
        delay
    }

    #[test]
    fn an_idle_editor_schedules_no_frame() {
        let path = concat!(env!("CARGO_MANIFEST_DIR"), "/assets/kernels/vignette.cu");
        let stage = KernelStage::load(std::path::Path::new(path)).expect("example");
        let mut editor = KernelEditor::default();
        editor.open_on(&stage);
        assert_eq!(editor.editing(), Some(stage.path()));
        // egui asks for frames while the window settles (sizing passes); then nothing.
        let delay = draw(&mut editor, &stage, 40);
        assert_eq!(delay, Duration::MAX, "an idle editor repaints");
        editor.show_generated = true;
        draw(&mut editor, &stage, 2);
        assert!(!editor.compiling, "nothing compiles without an edit");
    }
}
