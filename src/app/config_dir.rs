//! The folder of cudalens' settings, presets and recent files: `$CUDALENS_CONFIG_DIR` when
//! set (tests point it at a temporary folder, so they never touch the real one), otherwise
//! the platform's configuration folder (`$XDG_CONFIG_HOME/cudalens` or
//! `~/.config/cudalens` on Linux, `~/Library/Application Support/cudalens` on macOS).

use std::io::Write;
use std::path::{Path, PathBuf};

/// Environment variable that overrides the configuration folder.
pub const CONFIG_DIR_ENV: &str = "CUDALENS_CONFIG_DIR";

/// The configuration folder, if this platform has one (it may not exist yet).
pub fn config_dir() -> Option<PathBuf> {
    match std::env::var_os(CONFIG_DIR_ENV) {
        Some(dir) if !dir.is_empty() => Some(PathBuf::from(dir)),
        _ => directories::ProjectDirs::from("", "", "cudalens").map(|d| d.config_dir().into()),
    }
}

/// Writes `bytes` to `path` through a temporary file in the same folder and a rename
/// (creating the folder), so that a crash never leaves half a file behind.
pub fn write_atomically(path: &Path, bytes: &[u8]) -> std::io::Result<()> {
    let dir = path.parent().unwrap_or(Path::new("."));
    std::fs::create_dir_all(dir)?;
    let mut temp = tempfile::Builder::new()
        .prefix(".cudalens-")
        .suffix(".part")
        .tempfile_in(dir)?;
    temp.write_all(bytes)?;
    temp.as_file().sync_all()?;
    temp.persist(path).map_err(|e| e.error)?;
    Ok(())
}
