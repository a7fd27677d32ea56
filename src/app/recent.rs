//! Recent files, kept in `recent.json` in the configuration folder.

use super::config_dir::{config_dir, write_atomically};
use std::path::{Path, PathBuf};

const MAX_RECENT: usize = 10;

fn store_path() -> Option<PathBuf> {
    Some(config_dir()?.join("recent.json"))
}

/// The list, most recent first.
#[derive(Debug, Default)]
pub struct RecentFiles {
    pub paths: Vec<PathBuf>,
}

impl RecentFiles {
    pub fn load() -> Self {
        let paths = store_path()
            .and_then(|p| std::fs::read(p).ok())
            .and_then(|bytes| serde_json::from_slice::<Vec<PathBuf>>(&bytes).ok())
            .unwrap_or_default();
        Self { paths }
    }

    /// Puts `path` first and saves the list (failures only logged: it is a convenience).
    pub fn push(&mut self, path: &Path) {
        let path = path.canonicalize().unwrap_or_else(|_| path.to_path_buf());
        self.paths.retain(|p| p != &path);
        self.paths.insert(0, path);
        self.paths.truncate(MAX_RECENT);
        if let Some(store) = store_path() {
            let bytes = serde_json::to_vec(&self.paths).unwrap_or_default();
            if let Err(e) = write_atomically(&store, &bytes) {
                log::warn!("cannot save the recent files: {e}");
            }
        }
    }
}
