//! The session kept between runs, as eframe apps do: the filter stack (order, parameters,
//! on/off), the split position, histogram options, window size and position, the
//! explorer's view, palette, the user's palettes, max dwell and mode, the user's bookmarks,
//! and the sources of user kernels not saved to their files (the editor's text too).
//! Saved as JSON (`settings.json` in the configuration folder) on exit and every 30 s when
//! it changed, restored on start. A corrupt file, or one of another format version, is
//! reported and ignored, never fatal; unknown fields are ignored and missing ones take
//! their defaults. Filters are stored as specification strings (`box:radius=5`), the
//! command line's syntax, so the file does not depend on how filters are represented in
//! the code.

use super::config_dir::write_atomically;
use crate::image_io::SaveError;
use crate::mandelbrot::deep::{DeepError, DeepLocation};
use crate::mandelbrot::{MandelbrotSettings, Place};
use serde::{Deserialize, Serialize};
use std::path::{Path, PathBuf};
use std::time::{Duration, Instant};

/// Version of the settings format; a file of another version is ignored.
pub const SETTINGS_VERSION: u32 = 1;
/// How often changed settings are saved while the app runs.
pub const SAVE_INTERVAL: Duration = Duration::from_secs(30);
const FILE_NAME: &str = "settings.json";

/// One entry of the filter stack.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct SavedFilter {
    /// The filter as `apply --filter` takes it.
    pub spec: String,
    pub enabled: bool,
    /// Gaussian radius follows ceil(3σ).
    #[serde(default)]
    pub auto_radius: bool,
    /// A user kernel's source when its file does not hold it (never saved, or changed
    /// since): restored as it was, still to be saved.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub source: Option<String>,
}

/// The kernel editor's text when it was not saved (it may not compile yet).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct SavedEditor {
    /// The file of the stack's kernel entry it edits.
    pub path: PathBuf,
    pub text: String,
}

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(default)]
pub struct SavedHistogram {
    pub log_scale: bool,
    pub channels: [bool; 4],
}

impl Default for SavedHistogram {
    fn default() -> Self {
        Self {
            log_scale: false,
            channels: [true; 4],
        }
    }
}

/// Outer position and inner size, in physical pixels.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
#[serde(default)]
pub struct SavedWindow {
    pub size: Option<[u32; 2]>,
    pub position: Option<[i32; 2]>,
}

/// The explorer: palette, mode and precision by their command-line names.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(default)]
pub struct SavedExplorer {
    pub center: [f64; 2],
    pub span: f64,
    pub max_dwell: u32,
    pub palette: String,
    pub mode: String,
    pub refinement: String,
    pub precision: String,
    pub overlay: bool,
    pub interior: [u8; 4],
    pub smooth: bool,
    /// Distance shading's width in pixels (None: off).
    pub distance: Option<f32>,
    pub density: f32,
    pub offset: f32,
    /// Zoom factor per second of a held button.
    pub zoom_per_second: f64,
    /// The exact centre "RE,IM" and span of a view past f64 (None: `center` and `span`).
    pub deep_center: Option<String>,
    pub deep_span: Option<String>,
    /// The fractal shown: "mandelbrot", or "julia RE,IM" (c exact).
    pub fractal: String,
    /// The user's palettes; `palette` names a built-in one or one of these.
    pub user_palettes: Vec<SavedPalette>,
    /// Deep views skip steps by bivariate linear approximation.
    pub bla: bool,
}

/// A user palette: its name and its stops.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct SavedPalette {
    pub name: String,
    pub stops: Vec<SavedStop>,
}

/// A stop of a user palette: position along the cycle (0..1) and colour.
#[derive(Debug, Clone, Copy, PartialEq, Serialize, Deserialize)]
pub struct SavedStop {
    pub position: f32,
    pub rgb: [u8; 3],
}

impl Default for SavedExplorer {
    fn default() -> Self {
        Self {
            center: [-0.5, 0.0],
            span: 3.0,
            max_dwell: 1024,
            palette: "classic".into(),
            mode: "mariani-silver".into(),
            refinement: "measured".into(),
            precision: "auto".into(),
            overlay: false,
            interior: [0, 0, 0, 255],
            smooth: false,
            distance: None,
            density: 1.0,
            offset: 0.0,
            zoom_per_second: 3.0,
            deep_center: None,
            deep_span: None,
            fractal: "mandelbrot".into(),
            user_palettes: Vec::new(),
            bla: true,
        }
    }
}

/// A place in the explorer the user named.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct UserBookmark {
    pub name: String,
    pub center: [f64; 2],
    pub span: f64,
    pub max_dwell: u32,
    /// A place of the Julia set of c = "RE,IM" (exact decimals); None: of the Mandelbrot set.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub julia: Option<String>,
    /// The exact centre ("RE,IM") and span, which `center` and `span` round (absent in
    /// bookmarks saved before they were kept: those go to the f64 place).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub deep_center: Option<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub deep_span: Option<String>,
}

/// Everything restored on start.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(default)]
pub struct Settings {
    pub version: u32,
    /// "image" or "mandelbrot".
    pub tab: String,
    pub filters: Vec<SavedFilter>,
    /// Before/after split position (0..1 of the view's width) when the split is on.
    pub split: Option<f32>,
    pub histogram: SavedHistogram,
    pub window: SavedWindow,
    pub explorer: SavedExplorer,
    pub bookmarks: Vec<UserBookmark>,
    /// The folder results were last saved in (the save dialogs start there).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub save_dir: Option<PathBuf>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub kernel_editor: Option<SavedEditor>,
    /// The JPEG quality of saved results (1..=100).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub jpeg_quality: Option<u8>,
}

impl Default for Settings {
    fn default() -> Self {
        Self {
            version: SETTINGS_VERSION,
            tab: "image".into(),
            filters: Vec::new(),
            split: None,
            histogram: SavedHistogram::default(),
            window: SavedWindow::default(),
            explorer: SavedExplorer::default(),
            bookmarks: Vec::new(),
            save_dir: None,
            kernel_editor: None,
            jpeg_quality: None,
        }
    }
}

/// Why the saved settings were not used (or not saved).
#[derive(Debug, thiserror::Error)]
pub enum SettingsError {
    #[error("{path}: cannot read the saved settings ({source}); starting with defaults")]
    Read {
        path: PathBuf,
        source: std::io::Error,
    },
    #[error("{path}: the saved settings are corrupt ({reason}); starting with defaults")]
    Corrupt { path: PathBuf, reason: String },
    #[error("{path}: the saved settings are format version {found}, this cudalens reads version {SETTINGS_VERSION}; starting with defaults")]
    Version { path: PathBuf, found: u64 },
    #[error("cannot save the settings: {0}")]
    Write(SaveError),
}

/// Parses a settings file's text.
pub fn parse_settings(path: &Path, text: &[u8]) -> Result<Settings, SettingsError> {
    let corrupt = |reason: String| SettingsError::Corrupt {
        path: path.into(),
        reason,
    };
    let value: serde_json::Value =
        serde_json::from_slice(text).map_err(|e| corrupt(e.to_string()))?;
    let found = value
        .get("version")
        .and_then(serde_json::Value::as_u64)
        .ok_or_else(|| corrupt("no format version".into()))?;
    if found != u64::from(SETTINGS_VERSION) {
        return Err(SettingsError::Version {
            path: path.into(),
            found,
        });
    }
    serde_json::from_value(value).map_err(|e| corrupt(e.to_string()))
}

/// Where the settings live, and what was last written there.
pub struct SettingsStore {
    path: Option<PathBuf>,
    last_written: Option<Vec<u8>>,
    last_attempt: Instant,
}

impl SettingsStore {
    /// The store in the configuration folder `dir` (None: nothing is saved).
    pub fn in_dir(dir: Option<&Path>) -> Self {
        Self {
            path: dir.map(|d| d.join(FILE_NAME)),
            last_written: None,
            last_attempt: Instant::now(),
        }
    }

    /// The saved settings; `Ok(None)` when there are none yet.
    pub fn load(&mut self) -> Result<Option<Settings>, SettingsError> {
        let Some(path) = &self.path else {
            return Ok(None);
        };
        let text = match std::fs::read(path) {
            Ok(t) => t,
            Err(e) if e.kind() == std::io::ErrorKind::NotFound => return Ok(None),
            Err(source) => {
                return Err(SettingsError::Read {
                    path: path.clone(),
                    source,
                })
            }
        };
        let settings = parse_settings(path, &text)?;
        self.last_written = Some(text);
        Ok(Some(settings))
    }

    /// Writes `settings` unless they equal what was last written.
    pub fn save(&mut self, settings: &Settings) -> Result<(), SettingsError> {
        self.last_attempt = Instant::now();
        let Some(path) = &self.path else {
            return Ok(());
        };
        let bytes = serde_json::to_vec_pretty(settings).unwrap_or_default();
        if self.last_written.as_ref() == Some(&bytes) {
            return Ok(());
        }
        write_atomically(path, &bytes).map_err(SettingsError::Write)?;
        self.last_written = Some(bytes);
        Ok(())
    }

    /// Whether the periodic save is due.
    pub fn save_due(&self) -> bool {
        self.last_attempt.elapsed() >= SAVE_INTERVAL
    }
}

/// The place a saved view names: its exact centre ("RE,IM") and span where kept, else its
/// f64 centre and span; the max dwell checked.
pub fn saved_place(
    center: [f64; 2],
    span: f64,
    exact: (Option<&str>, Option<&str>),
    max_dwell: u32,
) -> Result<Place, DeepError> {
    let location = match exact {
        (Some(center), Some(span)) => DeepLocation::parse(center, span)?,
        _ => DeepLocation::from_f64((center[0], center[1]), span)?,
    };
    Place::new(location, max_dwell)
}

/// The exact centre ("RE,IM") and span a saved view keeps beside its f64 ones: None where
/// f64 holds the view's location.
pub fn exact_texts(s: &MandelbrotSettings) -> Option<(String, String)> {
    let exact = s.location().ok()?;
    (DeepLocation::from_view(&s.view).ok() != Some(exact)).then(|| {
        (
            format!("{},{}", exact.re.scientific(), exact.im.scientific()),
            exact.span.scientific(),
        )
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    fn sample() -> Settings {
        Settings {
            tab: "mandelbrot".into(),
            filters: vec![
                SavedFilter {
                    spec: "sobel:scale=2.5".into(),
                    enabled: true,
                    auto_radius: false,
                    source: None,
                },
                SavedFilter {
                    spec: "gaussian:sigma=1.5,radius=5".into(),
                    enabled: false,
                    auto_radius: true,
                    source: None,
                },
            ],
            split: Some(0.25),
            histogram: SavedHistogram {
                log_scale: true,
                channels: [true, false, true, false],
            },
            window: SavedWindow {
                size: Some([1200, 700]),
                position: Some([-20, 40]),
            },
            explorer: SavedExplorer {
                center: [-0.743_643_887_037_151, 0.131_825_904_205_330],
                span: 1.5e-9,
                max_dwell: 4096,
                palette: "fire".into(),
                mode: "per-pixel".into(),
                refinement: "child-grids".into(),
                precision: "f64".into(),
                overlay: true,
                interior: [10, 20, 30, 255],
                smooth: true,
                distance: Some(1.5),
                density: 2.5,
                offset: 0.25,
                zoom_per_second: 6.0,
                deep_center: Some("-1.5e-60,2.25e-61".into()),
                deep_span: Some("3e-70".into()),
                fractal: "julia -0.123,0.745".into(),
                user_palettes: vec![SavedPalette {
                    name: "sunset".into(),
                    stops: vec![
                        SavedStop {
                            position: 0.0,
                            rgb: [255, 80, 0],
                        },
                        SavedStop {
                            position: 0.6,
                            rgb: [20, 0, 90],
                        },
                    ],
                }],
                bla: false,
            },
            bookmarks: vec![
                UserBookmark {
                    name: "my spiral".into(),
                    center: [-0.088, 0.654],
                    span: 0.004,
                    max_dwell: 2048,
                    julia: None,
                    deep_center: None,
                    deep_span: None,
                },
                UserBookmark {
                    name: "rabbit's ear".into(),
                    center: [0.1, 0.2],
                    span: 0.5,
                    max_dwell: 500,
                    julia: Some("-0.123,0.745".into()),
                    deep_center: Some("1.00000000000000000000000000000000000001e-1,2e-1".into()),
                    deep_span: Some("5e-40".into()),
                },
            ],
            save_dir: Some(PathBuf::from("/home/me/results")),
            ..Settings::default()
        }
    }

    #[test]
    fn a_file_from_before_the_refinement_choice_loads_with_the_measured_one() {
        let text = br#"{"version": 1, "explorer": {"mode": "mariani-silver", "span": 2.0}}"#;
        let s = parse_settings(Path::new("settings.json"), text).expect("loads");
        assert_eq!(s.explorer.refinement, "measured");
        assert_eq!(s.explorer.span, 2.0);
        assert!(
            s.explorer.user_palettes.is_empty(),
            "from before user palettes"
        );
    }

    #[test]
    fn round_trips_through_the_file() {
        let dir = tempfile::tempdir().expect("temp dir");
        let mut store = SettingsStore::in_dir(Some(dir.path()));
        assert!(store.load().expect("no file is fine").is_none());
        store.save(&sample()).expect("saved");
        let mut again = SettingsStore::in_dir(Some(dir.path()));
        assert_eq!(again.load().expect("loads"), Some(sample()));
    }

    #[test]
    fn corrupt_and_other_version_files_are_errors_not_panics() {
        let dir = tempfile::tempdir().expect("temp dir");
        let path = dir.path().join(FILE_NAME);
        let mut store = SettingsStore::in_dir(Some(dir.path()));
        for text in [
            &b"{\"version\": 1, \"filters\": [tru"[..],
            b"\xff\xfe",
            b"[]",
            b"{}",
        ] {
            std::fs::write(&path, text).expect("write");
            assert!(
                matches!(store.load(), Err(SettingsError::Corrupt { .. })),
                "{text:?}"
            );
        }
        std::fs::write(&path, br#"{"version": 1, "split": "wide"}"#).expect("write");
        assert!(matches!(store.load(), Err(SettingsError::Corrupt { .. })));
        std::fs::write(&path, br#"{"version": 0, "tab": "image"}"#).expect("write");
        let err = store.load().expect_err("old version");
        assert!(matches!(err, SettingsError::Version { found: 0, .. }));
        assert!(err.to_string().contains("starting with defaults"), "{err}");
    }

    #[test]
    fn unknown_fields_are_ignored_and_missing_ones_default() {
        let text = br#"{"version": 1, "split": 0.75, "from_the_future": {"x": 1},
            "explorer": {"palette": "ocean", "new_knob": true}}"#;
        let s = parse_settings(Path::new("s.json"), text).expect("parses");
        assert_eq!(s.split, Some(0.75));
        assert_eq!(s.explorer.palette, "ocean");
        assert_eq!(s.explorer.max_dwell, SavedExplorer::default().max_dwell);
        assert_eq!(s.histogram, SavedHistogram::default());
        assert!(s.filters.is_empty());
        assert_eq!(
            s.save_dir, None,
            "a file from before the save folder was kept"
        );
    }

    #[test]
    fn unchanged_settings_are_not_rewritten() {
        let dir = tempfile::tempdir().expect("temp dir");
        let mut store = SettingsStore::in_dir(Some(dir.path()));
        store.save(&sample()).expect("saved");
        let path = dir.path().join(FILE_NAME);
        std::fs::remove_file(&path).expect("remove");
        store.save(&sample()).expect("no-op");
        assert!(!path.exists());
        assert!(!store.save_due());
    }
}
