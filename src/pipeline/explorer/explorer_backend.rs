//! What the renderer asks of an explorer backend, CUDA or the CPU reference.

use super::mandelbrot_frame::MandelbrotFrame;
use crate::gl::GlTexture;
use crate::mandelbrot::{Dwells, MandelbrotSettings};
use crate::pipeline::{PipelineError, StageTime};

/// One backend of the explorer: `MandelbrotRenderer` holds the chosen one (CUDA or
/// [`CpuExplorer`](super::cpu_mandelbrot::CpuExplorer)) and falls back to the CPU after a
/// CUDA error.
pub trait ExplorerBackend {
    /// Renders the view into `texture` (already the view's size), or into the backend's
    /// own display texture where it has one.
    fn render(
        &mut self,
        gl: &glow::Context,
        texture: &mut GlTexture,
        s: &MandelbrotSettings,
    ) -> Result<MandelbrotFrame, PipelineError>;

    /// The dwells (and continuous values) of the view on the host.
    fn dwells(
        &mut self,
        s: &MandelbrotSettings,
    ) -> Result<(Dwells, MandelbrotFrame), PipelineError>;

    /// Times the dwell computation alone (benchmarks).
    fn time_dwells(&mut self, s: &MandelbrotSettings) -> Result<Vec<StageTime>, PipelineError>;

    /// Frees what grew with the views drawn so far.
    fn trim(&mut self, gl: &glow::Context) -> Result<(), PipelineError>;

    /// Releases the backend's GL objects.
    fn destroy(self, gl: &glow::Context);
}
