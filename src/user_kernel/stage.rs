//! A user kernel as a stage of the filter stack: `kernel:PATH[,name=value...]`. The stage
//! holds the source read once (and its path, for display and specs), the values of its
//! declared parameters, and compiles on first use through [`super::cache`].

use super::params::{split_spec, ParamBlock, ParamError, ParamValues};
use super::source::{KernelSource, ParamKind};
use super::source_error::SourceError;
use std::fmt;
use std::hash::{Hash, Hasher};
use std::path::{Path, PathBuf};
use std::sync::Arc;

/// The name of user kernel stages in specifications (`kernel:path.cu,a=1`).
pub const KERNEL_STAGE_NAME: &str = "kernel";

/// Why a kernel stage cannot run on the CPU backend.
pub const CPU_REASON: &str = "needs CUDA and NVRTC";

/// The syntax line of `--filter` help.
pub const KERNEL_SPEC_HELP: &str = concat!(
    "kernel:PATH.cu[,name=value...]  your CUDA C++ kernel (CUDA backend only); name=value sets its parameters\n",
    "      per pixel: uchar4 pixel(int x, int y, Image src, Params p) returns pixel (x, y); read(src, x, y) reads a pixel (edges clamped)\n",
    "      full kernel: __global__ void NAME(cudaTextureObject_t src, cudaSurfaceObject_t dst, int width, int height, Params p), with // @block XxY and optionally // @rows N, // @shared BYTES\n",
    "      parameters: // @param float|int NAME MIN..MAX = DEFAULT or // @param bool NAME = true|false, fields of p\n",
    "      examples: assets/kernels/ (installed: /usr/share/cudalens/kernels/); tutorial: docs/tutorial-first-kernel.md",
);

#[derive(Debug, Clone, PartialEq, thiserror::Error)]
pub enum KernelStageError {
    #[error("kernel: no file given (kernel:PATH.cu[,name=value...])")]
    NoPath,
    #[error("kernel {path}: {source}")]
    Source { path: String, source: SourceError },
    #[error("kernel {path}: {source}")]
    Param { path: String, source: ParamError },
}

/// A user kernel stage: its file, its parsed source and its parameter values.
#[derive(Debug, Clone)]
pub struct KernelStage {
    path: PathBuf,
    source: Arc<KernelSource>,
    values: ParamValues,
    /// Hash of the source text: the compile cache's key.
    hash: u64,
}

/// The hash of a source text, for the compile caches.
pub fn source_hash(text: &str) -> u64 {
    let mut h = std::collections::hash_map::DefaultHasher::new();
    text.hash(&mut h);
    h.finish()
}

impl KernelStage {
    /// Parses `PATH[,name=value...]` (the part after `kernel:`), reading the file.
    pub fn from_spec(arg: &str) -> Result<Self, KernelStageError> {
        let (path, assignments) = split_spec(arg.trim());
        let path = path.trim();
        if path.is_empty() {
            return Err(KernelStageError::NoPath);
        }
        Self::load(Path::new(path))?.with_assignments(path, assignments)
    }

    /// The stage with the parameters of `assignments` (`name=value,...`) set.
    fn with_assignments(mut self, path: &str, assignments: &str) -> Result<Self, KernelStageError> {
        self.values =
            ParamValues::from_assignments(&self.source.params, assignments).map_err(|source| {
                KernelStageError::Param {
                    path: path.to_string(),
                    source,
                }
            })?;
        Ok(self)
    }

    /// Parses `PATH[,name=value...]` with the source already at hand (the kernel host's
    /// loaded kernel), not reading the file.
    pub fn from_spec_with_source(
        arg: &str,
        source: KernelSource,
    ) -> Result<Self, KernelStageError> {
        let arg = arg
            .strip_prefix(KERNEL_STAGE_NAME)
            .and_then(|a| a.strip_prefix(':'))
            .unwrap_or(arg);
        let (path, assignments) = split_spec(arg.trim());
        let path = path.trim();
        if path.is_empty() {
            return Err(KernelStageError::NoPath);
        }
        Self::from_source(Path::new(path), source).with_assignments(path, assignments)
    }

    /// Reads and parses the file at `path`; parameters at their defaults.
    pub fn load(path: &Path) -> Result<Self, KernelStageError> {
        let source = KernelSource::load(path).map_err(|source| KernelStageError::Source {
            path: path.display().to_string(),
            source,
        })?;
        Ok(Self::from_source(path, source))
    }

    /// A stage of an already parsed source (the editor's text); parameters at defaults.
    pub fn from_source(path: &Path, source: KernelSource) -> Self {
        let values = ParamValues::defaults(&source.params);
        Self {
            path: path.to_path_buf(),
            hash: source_hash(&source.text),
            source: Arc::new(source),
            values,
        }
    }

    /// The same stage with a new source (an edit that compiled): parameters keep their
    /// values where the new source declares them with the same kind and the value is in
    /// its range, and take the new defaults otherwise.
    pub fn with_source(&self, source: KernelSource) -> Self {
        let mut next = Self::from_source(&self.path, source);
        for (decl, v) in self.source.params.iter().zip(&self.values.values) {
            if let Some((i, d)) = next
                .source
                .params
                .iter()
                .enumerate()
                .find(|(_, d)| d.name == decl.name && d.kind == decl.kind)
            {
                if (d.min..=d.max).contains(v) {
                    next.values.values[i] = *v;
                }
            }
        }
        next
    }

    /// The same stage saved under another path (the editor's "Save as").
    pub fn with_path(&self, path: &Path) -> Self {
        Self {
            path: path.to_path_buf(),
            ..self.clone()
        }
    }

    pub fn path(&self) -> &Path {
        &self.path
    }

    pub fn source(&self) -> &KernelSource {
        &self.source
    }

    pub fn values(&self) -> &ParamValues {
        &self.values
    }

    pub fn hash(&self) -> u64 {
        self.hash
    }

    /// The stage's label: `kernel:` and the file's name.
    pub fn label(&self) -> String {
        let name = self
            .path
            .file_name()
            .map(|n| n.to_string_lossy().into_owned())
            .unwrap_or_else(|| self.path.display().to_string());
        format!("{KERNEL_STAGE_NAME}:{name}")
    }

    /// Sets parameter `index` from a slider, clamped into its range (whole for `int`,
    /// 0 or 1 for `bool`).
    pub fn set_value(&mut self, index: usize, value: f64) {
        let Some(d) = self.source.params.get(index) else {
            return;
        };
        let mut v = value.clamp(d.min, d.max);
        if d.kind != ParamKind::Float {
            v = v.round();
        }
        if let Some(slot) = self.values.values.get_mut(index) {
            *slot = v;
        }
    }

    /// Sets parameter `name` from text (`1.5`, `true`), checked like a spec.
    pub fn set(&mut self, name: &str, text: &str) -> Result<(), ParamError> {
        self.values.set(&self.source.params, name, text)
    }

    /// The `Params` block of the current values.
    pub fn param_block(&self) -> ParamBlock {
        self.values.pack(&self.source.params)
    }
}

/// One value as a spec writes it.
fn value_text(kind: ParamKind, v: f64) -> String {
    match kind {
        ParamKind::Float => format!("{}", v as f32),
        ParamKind::Int => format!("{}", v as i32),
        ParamKind::Bool => (v != 0.0).to_string(),
    }
}

impl fmt::Display for KernelStage {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{KERNEL_STAGE_NAME}:{}", self.path.display())?;
        for (d, &v) in self.source.params.iter().zip(&self.values.values) {
            write!(f, ",{}={}", d.name, value_text(d.kind, v))?;
        }
        Ok(())
    }
}

/// Two stages are equal when they run the same source from the same path with the same
/// values.
impl PartialEq for KernelStage {
    fn eq(&self, other: &Self) -> bool {
        self.path == other.path
            && self.hash == other.hash
            && self.source.text == other.source.text
            && self.values == other.values
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    const SOURCE: &str = "// @param float s 0..2 = 1\n// @param int r -3..8 = 2\n// @param bool inv\nuchar4 pixel(int x, int y, Image i, Params p) { return read(i, x, y); }\n";

    fn file(dir: &Path, name: &str, text: &str) -> PathBuf {
        let path = dir.join(name);
        std::fs::write(&path, text).expect("write");
        path
    }

    #[test]
    fn spec_parses_and_prints_back() {
        let dir = tempfile::tempdir().expect("tempdir");
        let path = file(dir.path(), "k.cu", SOURCE);
        let spec = format!("{},r=-3,inv=true", path.display());
        let stage = KernelStage::from_spec(&spec).expect("spec");
        assert_eq!(stage.values().values, [1.0, -3.0, 1.0]);
        let printed = stage.to_string();
        assert_eq!(
            printed,
            format!("kernel:{},s=1,r=-3,inv=true", path.display())
        );
        let again = KernelStage::from_spec(printed.strip_prefix("kernel:").unwrap()).unwrap();
        assert_eq!(again, stage);
        assert_eq!(stage.label(), "kernel:k.cu");
    }

    #[test]
    fn errors_are_one_line_and_name_the_file() {
        let dir = tempfile::tempdir().expect("tempdir");
        let good = file(dir.path(), "k.cu", SOURCE);
        let bad = file(dir.path(), "bad.cu", "// @param float s 0..2 = 9\nuchar4 pixel(int x, int y, Image i, Params p) { return read(i, x, y); }\n");
        let missing = dir.path().join("missing.cu");
        for (spec, want) in [
            (format!("{}", missing.display()), "missing.cu"),
            (format!("{},s=3", good.display()), "outside"),
            (
                format!("{},q=1", good.display()),
                "unknown kernel parameter `q`",
            ),
            (format!("{}", bad.display()), "line 1"),
            (String::new(), "no file given"),
        ] {
            let e = KernelStage::from_spec(&spec).unwrap_err().to_string();
            assert!(!e.contains('\n'), "{e}");
            assert!(e.contains(want), "{spec}: {e}");
        }
    }

    #[test]
    fn a_new_source_keeps_the_values_it_still_declares() {
        let dir = tempfile::tempdir().expect("tempdir");
        let path = file(dir.path(), "k.cu", SOURCE);
        let mut stage = KernelStage::from_spec(&format!("{},s=1.5,r=7", path.display())).unwrap();
        let edited = KernelSource::parse(
            "// @param float s 0..1 = 0.5\n// @param int r -3..8 = 2\nuchar4 pixel(int x, int y, Image i, Params p) { return read(i, x, y); }\n",
        )
        .unwrap();
        stage = stage.with_source(edited);
        // s is out of the new range: its new default; r keeps 7.
        assert_eq!(stage.values().values, [0.5, 7.0]);
        stage.set_value(1, 3.6);
        assert_eq!(stage.values().values[1], 4.0);
        stage.set_value(0, 9.0);
        assert_eq!(stage.values().values[0], 1.0);
    }
}
