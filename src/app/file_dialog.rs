//! File dialogs: the desktop's (portal or zenity, through rfd) where one answers, else a
//! built-in browser drawn with egui: path field, entries (folders first), an extension
//! filter, Up, OK and Cancel.

use std::path::{Path, PathBuf};
use std::time::{Duration, Instant};

/// A native dialog that returns nothing this quickly did not open (no portal, no zenity):
/// nobody cancels a dialog in a quarter of a second.
const NATIVE_FAILED_WITHIN: Duration = Duration::from_millis(250);

/// What the dialog is for.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum DialogPurpose {
    /// Open an image.
    Open,
    /// Save the filtered image.
    SaveResult,
    /// Save the explorer's picture.
    SaveMandelbrot,
    /// Import a palette map into the explorer.
    ImportPalette,
}

impl DialogPurpose {
    pub fn is_save(self) -> bool {
        !matches!(self, DialogPurpose::Open | DialogPurpose::ImportPalette)
    }

    /// The desktop dialog's name for the files it lists.
    pub fn filter_name(self) -> &'static str {
        match self {
            DialogPurpose::Open => "Images and videos",
            DialogPurpose::ImportPalette => "Palettes",
            _ => "Images",
        }
    }

    fn title(self) -> &'static str {
        match self {
            DialogPurpose::Open => "Open image or video",
            DialogPurpose::SaveResult => "Save result as",
            DialogPurpose::SaveMandelbrot => "Save view as PNG (or .exr: raw dwells)",
            DialogPurpose::ImportPalette => "Import palette (.map)",
        }
    }
}

/// Whether a desktop file dialog may answer here: an xdg portal needs a D-Bus session,
/// rfd's fallback needs `zenity` on the PATH.
pub fn native_dialogs_possible() -> bool {
    let dbus = std::env::var_os("DBUS_SESSION_BUS_ADDRESS").is_some_and(|v| !v.is_empty());
    let zenity = std::env::var_os("PATH")
        .is_some_and(|paths| std::env::split_paths(&paths).any(|d| d.join("zenity").is_file()));
    dbus || zenity
}

/// The answer of a native dialog.
#[derive(Debug, PartialEq)]
pub enum NativeAnswer {
    Chosen(PathBuf),
    Cancelled,
    /// No dialog came up: use the built-in one.
    Unavailable,
}

/// Runs `dialog` (a blocking rfd call) and tells a quick empty answer from a cancel.
pub fn run_native(dialog: impl FnOnce() -> Option<PathBuf>) -> NativeAnswer {
    if !native_dialogs_possible() {
        return NativeAnswer::Unavailable;
    }
    let start = Instant::now();
    match dialog() {
        Some(p) => NativeAnswer::Chosen(p),
        None if start.elapsed() < NATIVE_FAILED_WITHIN => NativeAnswer::Unavailable,
        None => NativeAnswer::Cancelled,
    }
}

/// One row of the browser.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct BrowserEntry {
    pub name: String,
    pub is_dir: bool,
}

/// The entries of `dir`: folders first, then files (only those with one of `extensions`
/// when given), each group sorted by name; hidden entries left out.
pub fn list_dir(dir: &Path, extensions: Option<&[&str]>) -> std::io::Result<Vec<BrowserEntry>> {
    let mut out = Vec::new();
    for e in std::fs::read_dir(dir)? {
        let Ok(e) = e else { continue };
        let name = e.file_name().to_string_lossy().into_owned();
        if name.starts_with('.') {
            continue;
        }
        // Follows links: a link to a folder is a folder.
        let is_dir = e.path().is_dir();
        if !is_dir {
            if let Some(exts) = extensions {
                let ext = Path::new(&name)
                    .extension()
                    .map(|x| x.to_string_lossy().to_ascii_lowercase());
                if !ext.is_some_and(|x| exts.contains(&x.as_str())) {
                    continue;
                }
            }
        }
        out.push(BrowserEntry { name, is_dir });
    }
    out.sort_by_key(|e| (!e.is_dir, e.name.to_lowercase()));
    Ok(out)
}

/// The built-in dialog's state.
#[derive(Debug)]
pub struct FileBrowser {
    pub purpose: DialogPurpose,
    pub dir: PathBuf,
    /// The path field: a folder to go to, or the file to open or save.
    pub field: String,
    pub extensions: &'static [&'static str],
    pub filter: bool,
    entries: Vec<BrowserEntry>,
    pub error: Option<String>,
    listed: Option<(PathBuf, bool)>,
    /// The existing file a second OK replaces.
    replace: Option<PathBuf>,
    /// The name field takes the keyboard at the next frame (set when the dialog opens).
    focus_field: bool,
}

/// What the dialog did this frame.
#[derive(Debug, PartialEq)]
pub enum BrowserOutcome {
    Open,
    Cancelled,
    Chosen(PathBuf),
}

impl FileBrowser {
    /// A dialog in `dir` (the current folder if it does not exist), with `name` in the
    /// field (the suggested name when saving).
    pub fn new(
        purpose: DialogPurpose,
        dir: PathBuf,
        name: &str,
        extensions: &'static [&'static str],
    ) -> Self {
        let dir = if dir.is_dir() {
            dir
        } else {
            std::env::current_dir().unwrap_or_else(|_| PathBuf::from("/"))
        };
        Self {
            purpose,
            dir,
            field: name.to_string(),
            extensions,
            filter: true,
            entries: Vec::new(),
            error: None,
            listed: None,
            replace: None,
            focus_field: true,
        }
    }

    fn refresh(&mut self) {
        let key = (self.dir.clone(), self.filter);
        if self.listed.as_ref() == Some(&key) {
            return;
        }
        let exts = self.filter.then_some(self.extensions);
        match list_dir(&self.dir, exts) {
            Ok(entries) => {
                self.entries = entries;
                self.error = None;
            }
            Err(e) => {
                self.entries.clear();
                self.error = Some(format!("{}: {e}", self.dir.display()));
            }
        }
        self.listed = Some(key);
    }

    /// Goes into `dir`.
    pub fn enter(&mut self, dir: PathBuf) {
        self.dir = dir;
        if !self.purpose.is_save() {
            self.field.clear();
        }
    }

    pub fn up(&mut self) {
        if let Some(parent) = self.dir.parent() {
            self.enter(parent.to_path_buf());
        }
    }

    /// OK: the field as a path (relative to the folder shown); a folder is entered, a
    /// file is the answer (to open it must exist).
    pub fn accept(&mut self) -> Option<PathBuf> {
        let text = self.field.trim();
        if text.is_empty() {
            self.error = Some(if self.purpose.is_save() {
                "type a file name".into()
            } else {
                "choose a file".into()
            });
            return None;
        }
        let path = self.dir.join(text);
        if path.is_dir() {
            self.enter(path);
            return None;
        }
        if !self.purpose.is_save() && !path.is_file() {
            self.error = Some(format!("{}: no such file", path.display()));
            return None;
        }
        // Replacing a file takes a second OK on the same name.
        if self.purpose.is_save() && path.exists() && self.replace.as_ref() != Some(&path) {
            self.error = Some(format!("{} exists: OK again replaces it", path.display()));
            self.replace = Some(path);
            return None;
        }
        Some(path)
    }
}

/// Draws the dialog as a window over the app.
pub fn file_browser_ui(ctx: &egui::Context, b: &mut FileBrowser) -> BrowserOutcome {
    b.refresh();
    let mut outcome = BrowserOutcome::Open;
    let mut open = true;
    egui::Window::new(b.purpose.title())
        .open(&mut open)
        .collapsible(false)
        .default_size([520.0, 420.0])
        .anchor(egui::Align2::CENTER_CENTER, [0.0, 0.0])
        .show(ctx, |ui| {
            ui.horizontal(|ui| {
                if ui.button("Up").on_hover_text("parent folder").clicked() {
                    b.up();
                }
                ui.add(egui::Label::new(b.dir.display().to_string()).truncate());
            });
            let mut go = None;
            egui::ScrollArea::vertical()
                .max_height(260.0)
                .auto_shrink([false, false])
                .show(ui, |ui| {
                    for e in &b.entries {
                        let label = if e.is_dir {
                            format!("{}/", e.name)
                        } else {
                            e.name.clone()
                        };
                        let selected = !e.is_dir && b.field == e.name;
                        let r = ui.selectable_label(selected, label);
                        if r.clicked() {
                            go = Some((e.clone(), false));
                        }
                        if r.double_clicked() {
                            go = Some((e.clone(), true));
                        }
                    }
                    if b.entries.is_empty() {
                        ui.weak("(empty)");
                    }
                });
            if let Some((e, double)) = go {
                if e.is_dir {
                    b.enter(b.dir.join(&e.name));
                } else {
                    b.field = e.name;
                    if double {
                        if let Some(p) = b.accept() {
                            outcome = BrowserOutcome::Chosen(p);
                        }
                    }
                }
            }
            ui.horizontal(|ui| {
                ui.label(if b.purpose.is_save() { "name" } else { "file" });
                let r = ui.add(egui::TextEdit::singleline(&mut b.field).desired_width(360.0));
                // The field has the keys when the dialog opens: a name can be typed at once.
                if std::mem::take(&mut b.focus_field) {
                    r.request_focus();
                }
                if r.lost_focus() && ui.input(|i| i.key_pressed(egui::Key::Enter)) {
                    if let Some(p) = b.accept() {
                        outcome = BrowserOutcome::Chosen(p);
                    }
                }
            });
            ui.checkbox(&mut b.filter, format!("only {}", b.extensions.join(", ")));
            if let Some(e) = &b.error {
                ui.colored_label(egui::Color32::LIGHT_RED, e);
            }
            ui.horizontal(|ui| {
                if ui.button("OK").clicked() {
                    if let Some(p) = b.accept() {
                        outcome = BrowserOutcome::Chosen(p);
                    }
                }
                if ui.button("Cancel").clicked() {
                    outcome = BrowserOutcome::Cancelled;
                }
            });
        });
    if !open || ctx.input(|i| i.key_pressed(egui::Key::Escape)) {
        outcome = BrowserOutcome::Cancelled;
    }
    outcome
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn folders_come_first_and_the_filter_keeps_images() {
        let dir = tempfile::tempdir().expect("tempdir");
        for name in ["b.PNG", "a.txt", "c.jpg", ".hidden.png"] {
            std::fs::write(dir.path().join(name), b"x").expect("write");
        }
        std::fs::create_dir(dir.path().join("z-folder")).expect("mkdir");
        let names = |v: Vec<BrowserEntry>| v.into_iter().map(|e| e.name).collect::<Vec<_>>();
        let all = list_dir(dir.path(), None).expect("list");
        assert_eq!(names(all), ["z-folder", "a.txt", "b.PNG", "c.jpg"]);
        let images = list_dir(dir.path(), Some(&["png", "jpg"])).expect("list");
        assert_eq!(names(images), ["z-folder", "b.PNG", "c.jpg"]);
        assert!(list_dir(&dir.path().join("missing"), None).is_err());
    }

    #[test]
    fn ok_enters_folders_and_opens_only_existing_files() {
        let dir = tempfile::tempdir().expect("tempdir");
        std::fs::create_dir(dir.path().join("sub")).expect("mkdir");
        std::fs::write(dir.path().join("sub/x.png"), b"x").expect("write");
        let mut b = FileBrowser::new(DialogPurpose::Open, dir.path().into(), "", &["png"]);
        assert_eq!(b.accept(), None);
        assert!(b.error.is_some());
        b.field = "sub".into();
        assert_eq!(b.accept(), None);
        assert_eq!(b.dir, dir.path().join("sub"));
        b.field = "y.png".into();
        assert_eq!(b.accept(), None, "missing file");
        b.field = "x.png".into();
        assert_eq!(b.accept(), Some(dir.path().join("sub/x.png")));
        b.up();
        assert_eq!(b.dir, dir.path());
        let mut s = FileBrowser::new(
            DialogPurpose::SaveResult,
            dir.path().into(),
            "new.png",
            &["png"],
        );
        assert_eq!(
            s.accept(),
            Some(dir.path().join("new.png")),
            "a new name saves"
        );
        s.field = "sub/x.png".into();
        assert_eq!(s.accept(), None, "an existing file asks first");
        assert!(s.error.as_deref().is_some_and(|e| e.contains("exists")));
        assert_eq!(
            s.accept(),
            Some(dir.path().join("sub/x.png")),
            "second OK replaces"
        );
    }

    #[test]
    fn a_quick_empty_native_answer_means_no_dialog() {
        if !native_dialogs_possible() {
            assert_eq!(run_native(|| None), NativeAnswer::Unavailable);
            return;
        }
        assert_eq!(run_native(|| None), NativeAnswer::Unavailable);
        let slow = run_native(|| {
            std::thread::sleep(NATIVE_FAILED_WITHIN + Duration::from_millis(50));
            None
        });
        assert_eq!(slow, NativeAnswer::Cancelled);
    }
}
