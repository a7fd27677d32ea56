//! Recent files, kept in `$XDG_CONFIG_HOME/cudalens/recent.json` (or `~/.config/...`).

use std::path::{Path, PathBuf};

const MAX_RECENT: usize = 10;

fn store_path() -> Option<PathBuf> {
    let base = std::env::var_os("XDG_CONFIG_HOME")
        .map(PathBuf::from)
        .or_else(|| std::env::var_os("HOME").map(|h| PathBuf::from(h).join(".config")))?;
    Some(base.join("cudalens/recent.json"))
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
            let saved = store
                .parent()
                .map_or(Ok(()), std::fs::create_dir_all)
                .and_then(|_| {
                    std::fs::write(&store, serde_json::to_vec(&self.paths).unwrap_or_default())
                });
            if let Err(e) = saved {
                log::warn!("cannot save recent files to {}: {e}", store.display());
            }
        }
    }
}
