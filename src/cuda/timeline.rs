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
    marks: Vec<Mark>,
    cpu: Vec<(String, f64)>,
}

/// The end of a stage, and the part of it measured elsewhere (another context's events),
/// with the name of the rest.
struct Mark {
    name: String,
    event: CudaEvent,
    part: Option<(f64, String)>,
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
        self.push(name.into(), None, stream)
    }

    /// Marks the end of a span made of stage `name`, which took `part_ms` (measured
    /// elsewhere, within the span), and the stage `rest` (the span's remainder).
    pub fn mark_part(
        &mut self,
        name: impl Into<String>,
        part_ms: f64,
        rest: impl Into<String>,
        stream: &CudaStream,
    ) -> Result<(), CudaError> {
        self.push(name.into(), Some((part_ms, rest.into())), stream)
    }

    fn push(
        &mut self,
        name: String,
        part: Option<(f64, String)>,
        stream: &CudaStream,
    ) -> Result<(), CudaError> {
        let event = timing_event(&self.ctx)?;
        event
            .record(stream)
            .map_err(CudaError::driver("cuEventRecord"))?;
        self.marks.push(Mark { name, event, part });
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
        for mark in &self.marks {
            let ms = f64::from(
                previous
                    .elapsed_ms(&mark.event)
                    .map_err(CudaError::driver("cuEventElapsedTime"))?,
            );
            match &mark.part {
                None => out.push((mark.name.clone(), ms)),
                Some((part, rest)) => {
                    let (part, rest_ms) = split_span(ms, *part);
                    out.push((mark.name.clone(), part));
                    out.push((rest.clone(), rest_ms));
                }
            }
            previous = &mark.event;
        }
        out.extend(self.cpu.iter().cloned());
        Ok(out)
    }
}

/// A span of `span_ms` cut into a part of `part_ms` (at most the span: the two clocks
/// differ) and the remainder.
fn split_span(span_ms: f64, part_ms: f64) -> (f64, f64) {
    let part = part_ms.clamp(0.0, span_ms.max(0.0));
    (part, span_ms - part)
}

fn timing_event(ctx: &Arc<CudaContext>) -> Result<CudaEvent, CudaError> {
    ctx.new_event(Some(CUevent_flags::CU_EVENT_DEFAULT))
        .map_err(CudaError::driver("cuEventCreate"))
}

#[cfg(test)]
mod tests {
    use super::split_span;

    #[test]
    fn a_span_splits_into_its_part_and_the_rest() {
        assert_eq!(split_span(0.5, 0.125), (0.125, 0.375));
        // A part measured longer than the span (another clock) takes the whole span.
        assert_eq!(split_span(0.1, 0.25), (0.1, 0.0));
        assert_eq!(split_span(0.1, -1.0), (0.0, 0.1));
    }
}
