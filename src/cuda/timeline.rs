//! Per-stage GPU times from CUDA events recorded on the stream.

use super::CudaError;
use cudarc::driver::sys::CUevent_flags;
use cudarc::driver::{CudaContext, CudaEvent, CudaStream};
use std::sync::Arc;

/// A start event and one event per named stage, read after the stream completes; and
/// durations taken on the CPU beside it (driver calls), reported after the stages.
pub struct GpuTimeline {
    ctx: Arc<CudaContext>,
    start: CudaEvent,
    marks: Vec<(String, CudaEvent)>,
    cpu: Vec<(String, f64)>,
}

impl GpuTimeline {
    /// Records the start on `stream`.
    pub fn start(ctx: &Arc<CudaContext>, stream: &CudaStream) -> Result<Self, CudaError> {
        let start = timing_event(ctx)?;
        start
            .record(stream)
            .map_err(CudaError::driver("cuEventRecord"))?;
        Ok(Self {
            ctx: ctx.clone(),
            start,
            marks: Vec::new(),
            cpu: Vec::new(),
        })
    }

    /// Marks the end of stage `name` (the work queued since the previous mark).
    pub fn mark(&mut self, name: impl Into<String>, stream: &CudaStream) -> Result<(), CudaError> {
        let event = timing_event(&self.ctx)?;
        event
            .record(stream)
            .map_err(CudaError::driver("cuEventRecord"))?;
        self.marks.push((name.into(), event));
        Ok(())
    }

    /// Adds a duration measured on the CPU (`name` should say so: the pipeline's stages end
    /// such names with " (CPU)").
    pub fn note_cpu(&mut self, name: impl Into<String>, ms: f64) {
        self.cpu.push((name.into(), ms));
    }

    /// Waits for the last mark and returns each stage's milliseconds, then the CPU notes.
    pub fn stage_times(&self) -> Result<Vec<(String, f64)>, CudaError> {
        let mut previous = &self.start;
        let mut out = Vec::with_capacity(self.marks.len());
        for (name, event) in &self.marks {
            let ms = previous
                .elapsed_ms(event)
                .map_err(CudaError::driver("cuEventElapsedTime"))?;
            out.push((name.clone(), f64::from(ms)));
            previous = event;
        }
        out.extend(self.cpu.iter().cloned());
        Ok(out)
    }
}

fn timing_event(ctx: &Arc<CudaContext>) -> Result<CudaEvent, CudaError> {
    ctx.new_event(Some(CUevent_flags::CU_EVENT_DEFAULT))
        .map_err(CudaError::driver("cuEventCreate"))
}
