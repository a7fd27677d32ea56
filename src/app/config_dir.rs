//! The folder of cudalens' settings, presets and recent files: `$CUDALENS_CONFIG_DIR` when
//! set (tests point it at a temporary folder, so they never touch the real one), otherwise
//! the platform's configuration folder (`$XDG_CONFIG_HOME/cudalens` or
//! `~/.config/cudalens` on Linux, `~/Library/Application Support/cudalens` on macOS).

use crate::image_io::{write_bytes_atomically, SaveError};
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

/// Writes `bytes` to `path` (creating its folder) as every file cudalens writes: through
/// a temporary file in the same folder and a rename, so that a crash or Ctrl-C never
/// leaves half a file behind (see `image_io::write_bytes_atomically`).
pub fn write_atomically(path: &Path, bytes: &[u8]) -> Result<(), SaveError> {
    if let Some(dir) = path.parent().filter(|d| !d.as_os_str().is_empty()) {
        std::fs::create_dir_all(dir).map_err(|e| SaveError::Target {
            path: path.to_path_buf(),
            reason: e.to_string(),
        })?;
    }
    write_bytes_atomically(path, bytes)
}
