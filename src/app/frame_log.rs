//! `CUDALENS_FRAME_LOG=PATH`: one line appended to `PATH` per painted frame, for scripted
//! sessions that measure the UI's frame rate and follow its state without reading pixels:
//! `SECONDS TAB BUSY FILTERS WxH FRACTAL SELECTION STACK UNDO DISPLAY VIDEO`: seconds since the app
//! started (3 decimals), `image` or `mandelbrot`, 1 while the tab's work runs (the
//! explorer's render, the CPU filter stack), the number of enabled filters, the image's
//! size, the explorer's fractal (`mandelbrot` or `julia`), the selection (`WxH+X+Y`, or
//! `none`), the filter stack (`gaussian,-sobel`: names in order, `-` before those off;
//! `none`), the name of the image tab's next undo step (`Add_gaussian`, or `none`), and
//! a typed image's display window (`MIN..MAX` of the first channel, or `none`), and the
//! index of a video's frame shown (`none` for a still), and what holds the user's attention
//! (`,`-joined: `quit-question`, `dialog:open` and the other dialogs, `drag:NAME` while a
//! stack entry is dragged, `selecting` during a selecting drag, `menu`,
//! `brightness-contrast` and `kernel-editor` windows open; `none`), so that a script waits
//! for the state its next input needs instead of guessing how long the app takes.

use super::file_dialog::DialogPurpose;
use super::filter_stack::dragged_entry;
use super::state::AppState;
use std::fs::File;
use std::io::Write;
use std::time::Instant;

/// The environment variable naming the log.
pub const FRAME_LOG_VAR: &str = "CUDALENS_FRAME_LOG";

/// What one frame showed.
pub struct FrameLine<'a> {
    pub tab: &'a str,
    pub busy: bool,
    pub filters: usize,
    pub image: (u32, u32),
    pub fractal: &'a str,
    /// The selection: x, y, width, height.
    pub selection: Option<(u32, u32, u32, u32)>,
    /// The stack's entries: name and whether it is on.
    pub stack: Vec<(String, bool)>,
    pub undo: Option<String>,
    /// A typed image's display window (min, max).
    pub display: Option<(f64, f64)>,
    /// The index of the video frame shown.
    pub video: Option<u64>,
    /// What holds the user's attention (see the module's note), `none` when nothing.
    pub attention: String,
}

/// `text` as one word of the log: `none` when empty, spaces as `_`.
fn word(text: &str) -> String {
    if text.is_empty() {
        "none".into()
    } else {
        text.replace(char::is_whitespace, "_")
    }
}

/// What holds the user's attention this frame, as the log names it: its items joined by
/// `,` (empty: nothing).
pub fn attention_of(state: &AppState, ctx: &egui::Context) -> String {
    let mut items: Vec<String> = Vec::new();
    if state.quit_prompt {
        items.push("quit-question".into());
    }
    if let Some(browser) = &state.browser {
        let purpose = match browser.purpose {
            DialogPurpose::Open => "open",
            DialogPurpose::SaveResult => "save-result",
            DialogPurpose::SaveMandelbrot => "save-view",
            DialogPurpose::ImportPalette => "import-palette",
        };
        items.push(format!("dialog:{purpose}"));
    }
    if let Some(entry) = dragged_entry(ctx).and_then(|i| state.stack.entries.get(i)) {
        items.push(format!("drag:{}", entry.filter.label()));
    }
    if state.view.drag_anchor.is_some() {
        items.push("selecting".into());
    }
    if egui::Popup::is_any_open(ctx) {
        items.push("menu".into());
    }
    if state.typed.as_ref().is_some_and(|t| t.panel_open) {
        items.push("brightness-contrast".into());
    }
    if state.kernel_editor.open {
        items.push("kernel-editor".into());
    }
    items.join(",")
}

/// The open log; writes that fail are reported once and end the log, never the app.
pub struct FrameLog {
    file: Option<File>,
    start: Instant,
}

impl FrameLog {
    /// The log named by [`FRAME_LOG_VAR`], appended to; inert when it is unset or cannot
    /// be opened (logged).
    pub fn from_env() -> Self {
        let file = std::env::var_os(FRAME_LOG_VAR).and_then(|path| {
            File::options()
                .create(true)
                .append(true)
                .open(&path)
                .map_err(|e| log::warn!("{FRAME_LOG_VAR}={}: {e}", path.to_string_lossy()))
                .ok()
        });
        Self {
            file,
            start: Instant::now(),
        }
    }

    /// Appends the line of a painted frame.
    pub fn frame(&mut self, line: FrameLine<'_>) {
        let Some(file) = self.file.as_mut() else {
            return;
        };
        let selection = line
            .selection
            .map_or_else(|| "none".into(), |(x, y, w, h)| format!("{w}x{h}+{x}+{y}"));
        let stack: Vec<String> = line
            .stack
            .iter()
            .map(|(name, on)| format!("{}{name}", if *on { "" } else { "-" }))
            .collect();
        let (stack, undo) = (
            word(&stack.join(",")),
            word(line.undo.as_deref().unwrap_or("")),
        );
        let display = line
            .display
            .map_or_else(|| "none".into(), |(lo, hi)| format!("{lo}..{hi}"));
        let video = line.video.map_or_else(|| "none".into(), |i| i.to_string());
        let text = format!(
            "{:.3} {} {} {} {}x{} {} {selection} {stack} {undo} {display} {video} {}\n",
            self.start.elapsed().as_secs_f64(),
            line.tab,
            u8::from(line.busy),
            line.filters,
            line.image.0,
            line.image.1,
            line.fractal,
            word(&line.attention)
        );
        if let Err(e) = file.write_all(text.as_bytes()) {
            log::warn!("{FRAME_LOG_VAR}: {e}; no more frames logged");
            self.file = None;
        }
    }
}
