//! Presets: named filter stacks saved as `presets/<name>.json` in the configuration
//! folder, made in the window (Presets section of the filter panel) and used by
//! `cudalens apply --preset NAME`. Filters are stored as their specification strings
//! (`gaussian:sigma=2,radius=6`), the command line's syntax, which parse back to the same
//! values; "copy as command line" renders the same stack as a `cudalens apply` call.

use super::config_dir::{config_dir, write_atomically};
use crate::image_io::SaveError;
use crate::pipeline::Stage;
use std::path::{Path, PathBuf};

/// Version of the preset file format.
const PRESET_VERSION: u32 = 1;
/// Longest preset name.
const NAME_MAX: usize = 64;

/// A named, ordered filter stack.
#[derive(Debug, Clone, PartialEq)]
pub struct Preset {
    pub name: String,
    pub filters: Vec<Stage>,
}

#[derive(Debug, serde::Serialize, serde::Deserialize)]
struct PresetFile {
    version: u32,
    name: String,
    filters: Vec<String>,
}

/// Why a preset could not be saved or used.
#[derive(Debug, thiserror::Error)]
pub enum PresetError {
    #[error("'{0}' is not a preset name (1 to 64 letters, digits, spaces, '-', '_' or '.'; not starting with '.')")]
    InvalidName(String),
    #[error("no preset named '{name}' ({})", available_list(available))]
    NotFound {
        name: String,
        available: Vec<String>,
    },
    #[error("this platform has no configuration folder (set CUDALENS_CONFIG_DIR)")]
    NoConfigDir,
    #[error("preset '{name}' has no filters")]
    Empty { name: String },
    #[error("{path}: {reason}")]
    Unreadable { path: PathBuf, reason: String },
    #[error("{path}: cannot delete: {source}")]
    Io {
        path: PathBuf,
        source: std::io::Error,
    },
    #[error(transparent)]
    Write(#[from] SaveError),
}

fn available_list(names: &[String]) -> String {
    if names.is_empty() {
        "no presets are saved".into()
    } else {
        format!("saved: {}", names.join(", "))
    }
}

/// The folder of the presets.
pub fn presets_dir() -> Result<PathBuf, PresetError> {
    Ok(config_dir()
        .ok_or(PresetError::NoConfigDir)?
        .join("presets"))
}

fn check_name(name: &str) -> Result<(), PresetError> {
    let allowed = |c: char| c.is_alphanumeric() || matches!(c, ' ' | '-' | '_' | '.');
    let ok = !name.is_empty()
        && name.chars().count() <= NAME_MAX
        && !name.starts_with('.')
        && name.trim() == name
        && name.chars().all(allowed);
    if ok {
        Ok(())
    } else {
        Err(PresetError::InvalidName(name.into()))
    }
}

fn preset_path(dir: &Path, name: &str) -> Result<PathBuf, PresetError> {
    check_name(name)?;
    Ok(dir.join(format!("{name}.json")))
}

/// Saves (or replaces) `preset` in `dir`; returns the file written.
pub fn save_preset_in(dir: &Path, preset: &Preset) -> Result<PathBuf, PresetError> {
    let path = preset_path(dir, &preset.name)?;
    if preset.filters.is_empty() {
        return Err(PresetError::Empty {
            name: preset.name.clone(),
        });
    }
    let file = PresetFile {
        version: PRESET_VERSION,
        name: preset.name.clone(),
        filters: preset.filters.iter().map(Stage::to_string).collect(),
    };
    let bytes = serde_json::to_vec_pretty(&file).unwrap_or_default();
    write_atomically(&path, &bytes)?;
    Ok(path)
}

/// Loads the preset `name` from `dir`.
pub fn load_preset_in(dir: &Path, name: &str) -> Result<Preset, PresetError> {
    let path = preset_path(dir, name)?;
    let unreadable = |reason: String| PresetError::Unreadable {
        path: path.clone(),
        reason,
    };
    let bytes = match std::fs::read(&path) {
        Ok(b) => b,
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => {
            return Err(PresetError::NotFound {
                name: name.into(),
                available: list_presets_in(dir),
            })
        }
        Err(e) => return Err(unreadable(format!("cannot read: {e}"))),
    };
    let file: PresetFile = serde_json::from_slice(&bytes)
        .map_err(|e| unreadable(format!("not a cudalens preset: {e}")))?;
    if file.version != PRESET_VERSION {
        return Err(unreadable(format!(
            "preset format version {} (this cudalens reads {PRESET_VERSION})",
            file.version
        )));
    }
    let filters = file
        .filters
        .iter()
        .map(|spec| {
            spec.parse::<Stage>()
                .map_err(|e| unreadable(format!("filter '{spec}': {e}")))
        })
        .collect::<Result<Vec<_>, _>>()?;
    if filters.is_empty() {
        return Err(PresetError::Empty { name: name.into() });
    }
    Ok(Preset {
        name: name.into(),
        filters,
    })
}

/// Deletes the preset `name` from `dir`.
pub fn delete_preset_in(dir: &Path, name: &str) -> Result<(), PresetError> {
    let path = preset_path(dir, name)?;
    std::fs::remove_file(&path).map_err(|source| PresetError::Io { path, source })
}

/// The names of the presets in `dir`, sorted.
pub fn list_presets_in(dir: &Path) -> Vec<String> {
    let mut names: Vec<String> = std::fs::read_dir(dir)
        .map(|entries| {
            entries
                .filter_map(|e| e.ok().map(|e| e.path()))
                .filter(|p| p.extension().is_some_and(|e| e == "json"))
                .filter_map(|p| Some(p.file_stem()?.to_str()?.to_string()))
                .filter(|n| check_name(n).is_ok())
                .collect()
        })
        .unwrap_or_default();
    names.sort();
    names
}

/// Loads the preset `name` from the configuration folder (for `apply --preset`).
pub fn load_preset(name: &str) -> Result<Preset, PresetError> {
    load_preset_in(&presets_dir()?, name)
}

/// `text` quoted for a POSIX shell when it needs it.
fn shell_quote(text: &str) -> String {
    let plain = |c: char| c.is_ascii_alphanumeric() || "/._-:=,+@%".contains(c);
    if !text.is_empty() && text.chars().all(plain) {
        text.into()
    } else {
        format!("'{}'", text.replace('\'', r"'\''"))
    }
}

/// The `cudalens apply` call that runs `edits` then `filters` on `input` into `output`.
pub fn command_line(
    edits: &[crate::edit::ImageEdit],
    filters: &[Stage],
    selection: Option<(u32, u32, u32, u32)>,
    input: &Path,
    output: &Path,
) -> String {
    let mut words = vec![
        "cudalens".to_string(),
        "apply".into(),
        shell_quote(&input.to_string_lossy()),
        "-o".into(),
        shell_quote(&output.to_string_lossy()),
    ];
    for e in edits {
        words.push("--edit".into());
        words.push(shell_quote(&e.to_string()));
    }
    for f in filters {
        words.push("--filter".into());
        words.push(shell_quote(&f.to_string()));
    }
    if let Some((x, y, w, h)) = selection {
        words.push("--selection".into());
        words.push(format!("{x},{y},{w},{h}"));
    }
    words.join(" ")
}

#[cfg(test)]
mod tests {
    use super::*;

    fn f(spec: &str) -> Stage {
        spec.parse().expect("spec")
    }

    fn stack() -> Vec<Stage> {
        vec![
            f("gaussian:sigma=1.7"),
            f("sobel:scale=2.5"),
            f("transpose"),
        ]
    }

    #[test]
    fn saved_presets_load_back_equal_and_are_listed() {
        let dir = tempfile::tempdir().expect("temp dir");
        let preset = Preset {
            name: "soft edges 2".into(),
            filters: stack(),
        };
        save_preset_in(dir.path(), &preset).expect("saved");
        assert_eq!(
            load_preset_in(dir.path(), "soft edges 2").expect("loads"),
            preset
        );
        assert_eq!(
            list_presets_in(dir.path()),
            vec!["soft edges 2".to_string()]
        );
        delete_preset_in(dir.path(), "soft edges 2").expect("deleted");
        assert!(list_presets_in(dir.path()).is_empty());
    }

    #[test]
    fn bad_names_missing_and_corrupt_presets_are_clear_errors() {
        let dir = tempfile::tempdir().expect("temp dir");
        for bad in ["", ".hidden", "a/b", "../x", " padded", &"x".repeat(65)] {
            let p = Preset {
                name: bad.into(),
                filters: stack(),
            };
            assert!(matches!(
                save_preset_in(dir.path(), &p),
                Err(PresetError::InvalidName(_))
            ));
        }
        assert!(matches!(
            load_preset_in(dir.path(), "nope"),
            Err(PresetError::NotFound { .. })
        ));
        std::fs::write(dir.path().join("junk.json"), b"{not json").expect("write");
        assert!(matches!(
            load_preset_in(dir.path(), "junk"),
            Err(PresetError::Unreadable { .. })
        ));
        let odd = r#"{"version":1,"name":"odd","filters":["blur:radius=3"]}"#;
        std::fs::write(dir.path().join("odd.json"), odd).expect("write");
        let err = load_preset_in(dir.path(), "odd").expect_err("unknown filter");
        assert!(err.to_string().contains("blur"), "{err}");
    }

    #[test]
    fn kernel_stages_are_saved_by_path_and_read_again() {
        let dir = tempfile::tempdir().expect("temp dir");
        let kernel = dir.path().join("k.cu");
        std::fs::write(
            &kernel,
            "// @param float s 0..2 = 1\nuchar4 pixel(int x, int y, Image i, Params p) { return read(i, x, y); }\n",
        )
        .expect("write");
        let mut filters = stack();
        filters.insert(1, f(&format!("kernel:{},s=1.5", kernel.display())));
        let preset = Preset {
            name: "with kernel".into(),
            filters,
        };
        save_preset_in(dir.path(), &preset).expect("saved");
        assert_eq!(
            load_preset_in(dir.path(), "with kernel").expect("loads"),
            preset
        );
        // The file is read again: an edit shows, a removed file is a one-line error.
        std::fs::write(
            &kernel,
            "// @param float s 0..2 = 1\nuchar4 pixel(int x, int y, Image i, Params p) { return make_uchar4(0, 0, 0, 255); }\n",
        )
        .expect("write");
        let edited = load_preset_in(dir.path(), "with kernel").expect("loads");
        assert_ne!(edited, preset);
        assert_eq!(edited.filters[1].to_string(), preset.filters[1].to_string());
        std::fs::remove_file(&kernel).expect("remove");
        let e = load_preset_in(dir.path(), "with kernel").expect_err("missing kernel");
        assert!(e.to_string().contains("k.cu"), "{e}");
        assert!(!e.to_string().contains('\n'), "{e}");
    }

    #[test]
    fn command_line_parses_back_to_the_same_stack() {
        let edits: Vec<crate::edit::ImageEdit> =
            ["rotate:90", "crop:3,4,50,60", "resize:50%,filter=lanczos3"]
                .iter()
                .map(|e| e.parse().expect("edit"))
                .collect();
        let line = command_line(
            &edits,
            &stack(),
            Some((5, 6, 30, 20)),
            Path::new("my photo.jpg"),
            Path::new("out.png"),
        );
        assert!(
            line.starts_with("cudalens apply 'my photo.jpg' -o out.png --edit rotate:90 --edit "),
            "{line}"
        );
        let words: Vec<String> = line
            .replace("'my photo.jpg'", "my_photo.jpg")
            .split(' ')
            .map(String::from)
            .collect();
        let cli = <crate::cli::Cli as clap::Parser>::try_parse_from(&words).expect("parses");
        match cli.command {
            Some(crate::cli::Command::Apply(a)) => {
                assert_eq!(a.filters, stack());
                assert_eq!(a.edits, edits);
                assert_eq!(a.selection, Some((5, 6, 30, 20)));
            }
            other => panic!("not apply: {other:?}"),
        }
        assert_eq!(shell_quote("it's"), r"'it'\''s'");
    }
}
