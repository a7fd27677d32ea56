//! Long CPU work off the UI thread: one job at a time per worker; starting a new job
//! cancels the one running (its results are dropped, and it stops at its next check).
//! A job sends results (a coarse preview, then the final one) and its progress; each
//! result wakes the UI through egui's repaint request.
//!
//! Jobs run their parallel loops in one background thread pool that leaves a core to the UI
//! thread and runs at a lower scheduling priority, so the window keeps its frame rate while
//! a long frame renders.

use std::sync::atomic::{AtomicBool, AtomicU32, Ordering};
use std::sync::mpsc::{channel, Receiver, Sender};
use std::sync::{Arc, OnceLock};

/// The nice value of background threads (the UI thread keeps 0).
const BACKGROUND_NICE: libc::c_int = 10;

/// Lowers the calling thread's scheduling priority to [`BACKGROUND_NICE`] (best effort).
fn lower_this_threads_priority() {
    // SAFETY: gettid and setpriority take and return plain integers; on Linux
    // PRIO_PROCESS with a thread id changes that thread only.
    let failed = unsafe {
        let tid = libc::gettid();
        libc::setpriority(libc::PRIO_PROCESS, tid as libc::id_t, BACKGROUND_NICE) != 0
    };
    if failed {
        log::debug!("background thread keeps its priority");
    }
}

/// The pool background jobs run their parallel loops in: one thread fewer than the cores
/// (at least one), each at background priority.
fn background_pool() -> Option<&'static rayon::ThreadPool> {
    static POOL: OnceLock<Option<rayon::ThreadPool>> = OnceLock::new();
    POOL.get_or_init(|| {
        let cores = std::thread::available_parallelism().map_or(1, |n| n.get());
        rayon::ThreadPoolBuilder::new()
            .num_threads(cores.saturating_sub(1).max(1))
            .thread_name(|i| format!("cudalens background {i}"))
            .start_handler(|_| lower_this_threads_priority())
            .build()
            .map_err(|e| log::warn!("no background pool, jobs share the global one: {e}"))
            .ok()
    })
    .as_ref()
}

/// What a running job sees: whether it was cancelled, where to report progress and
/// results.
pub struct JobContext<T> {
    cancelled: Arc<AtomicBool>,
    progress: Arc<AtomicU32>,
    results: Sender<T>,
    wake: Box<dyn Fn() + Send + Sync>,
}

impl<T> JobContext<T> {
    /// Whether the job should stop (a newer job replaced it, or the user cancelled).
    pub fn cancelled(&self) -> bool {
        self.cancelled.load(Ordering::Relaxed)
    }

    /// The flag behind [`JobContext::cancelled`], for compute loops that poll it.
    pub fn cancel_flag(&self) -> &AtomicBool {
        &self.cancelled
    }

    /// Progress in 0..=1.
    pub fn set_progress(&self, fraction: f32) {
        let permille = (fraction.clamp(0.0, 1.0) * 1000.0) as u32;
        self.progress.store(permille, Ordering::Relaxed);
        (self.wake)();
    }

    /// Hands a result to the UI (dropped if the job was cancelled meanwhile).
    pub fn send(&self, result: T) {
        if !self.cancelled() && self.results.send(result).is_ok() {
            (self.wake)();
        }
    }
}

struct Running<T> {
    cancelled: Arc<AtomicBool>,
    progress: Arc<AtomicU32>,
    results: Receiver<T>,
    finished: Arc<AtomicBool>,
}

/// One kind of background work (the image's filter stack, the explorer's frames).
pub struct Worker<T> {
    running: Option<Running<T>>,
    name: &'static str,
}

impl<T: Send + 'static> Worker<T> {
    pub fn new(name: &'static str) -> Self {
        Self {
            running: None,
            name,
        }
    }

    /// Starts `job` on a new thread, cancelling the one running; `wake` is called after
    /// each result, progress step and at the end (the UI's repaint request).
    pub fn start(
        &mut self,
        wake: impl Fn() + Send + Sync + Clone + 'static,
        job: impl FnOnce(&JobContext<T>) + Send + 'static,
    ) {
        self.cancel();
        let cancelled = Arc::new(AtomicBool::new(false));
        let progress = Arc::new(AtomicU32::new(0));
        let finished = Arc::new(AtomicBool::new(false));
        let (tx, rx) = channel();
        let ctx = JobContext {
            cancelled: cancelled.clone(),
            progress: progress.clone(),
            results: tx,
            wake: Box::new(wake.clone()),
        };
        let done = finished.clone();
        let spawned = std::thread::Builder::new()
            .name(format!("cudalens {}", self.name))
            .spawn(move || {
                lower_this_threads_priority();
                let run = || match background_pool() {
                    Some(pool) => pool.install(|| job(&ctx)),
                    None => job(&ctx),
                };
                // A panic in the work must not take the app down; the job just ends.
                let _ = std::panic::catch_unwind(std::panic::AssertUnwindSafe(run));
                done.store(true, Ordering::Release);
                wake();
            });
        if let Err(e) = spawned {
            log::error!("cannot start the {} worker: {e}", self.name);
            finished.store(true, Ordering::Release);
        }
        self.running = Some(Running {
            cancelled,
            progress,
            results: rx,
            finished,
        });
    }

    /// The newest result that arrived, if any (older ones are skipped).
    pub fn poll(&mut self) -> Option<T> {
        let running = self.running.as_ref()?;
        let latest = running.results.try_iter().last();
        if running.finished.load(Ordering::Acquire) {
            // Results sent just before the end are still in the channel.
            let last = latest.or_else(|| running.results.try_iter().last());
            self.running = None;
            return last;
        }
        latest
    }

    /// Whether a job is running.
    pub fn busy(&self) -> bool {
        self.running.is_some()
    }

    /// The running job's progress in 0..=1.
    pub fn progress(&self) -> Option<f32> {
        self.running
            .as_ref()
            .map(|r| r.progress.load(Ordering::Relaxed) as f32 / 1000.0)
    }

    /// Cancels the running job (its results are dropped).
    pub fn cancel(&mut self) {
        if let Some(r) = self.running.take() {
            r.cancelled.store(true, Ordering::Relaxed);
        }
    }
}

impl<T> Drop for Worker<T> {
    fn drop(&mut self) {
        if let Some(r) = self.running.take() {
            r.cancelled.store(true, Ordering::Relaxed);
        }
    }
}

/// A spinner, what runs and for how long, its progress and a Cancel button, over the top
/// left of `ui`'s area. Returns true when Cancel was clicked.
pub fn progress_ui(
    ui: &mut egui::Ui,
    what: &str,
    progress: Option<f32>,
    elapsed: std::time::Duration,
) -> bool {
    let area = egui::Rect::from_min_size(
        ui.max_rect().left_top() + egui::vec2(8.0, 8.0),
        egui::vec2(340.0, 32.0),
    );
    let mut cancel = false;
    ui.scope_builder(egui::UiBuilder::new().max_rect(area), |ui| {
        egui::Frame::popup(ui.style()).show(ui, |ui| {
            ui.horizontal(|ui| {
                ui.spinner();
                ui.label(format!("{what} {:.1} s", elapsed.as_secs_f32()));
                if let Some(p) = progress {
                    ui.add(egui::ProgressBar::new(p).desired_width(80.0));
                }
                cancel = ui.button("Cancel").clicked();
            });
        });
    });
    cancel
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::time::{Duration, Instant};

    fn wait_for<T: Send + 'static>(w: &mut Worker<T>) -> Vec<T> {
        let start = Instant::now();
        let mut out = Vec::new();
        while w.busy() && start.elapsed() < Duration::from_secs(10) {
            out.extend(w.poll());
            std::thread::sleep(Duration::from_millis(2));
        }
        out
    }

    #[test]
    fn a_job_delivers_its_last_result_and_ends() {
        let mut w = Worker::new("test");
        w.start(
            || {},
            |ctx: &JobContext<u32>| {
                ctx.send(1);
                ctx.set_progress(0.5);
                ctx.send(2);
            },
        );
        let got = wait_for(&mut w);
        assert_eq!(got.last(), Some(&2));
        assert!(!w.busy());
        assert_eq!(w.poll(), None);
    }

    #[test]
    fn a_new_job_cancels_the_running_one() {
        let mut w = Worker::new("test");
        let saw_cancel = Arc::new(AtomicBool::new(false));
        let flag = saw_cancel.clone();
        w.start(
            || {},
            move |ctx: &JobContext<&'static str>| {
                let start = Instant::now();
                while !ctx.cancelled() && start.elapsed() < Duration::from_secs(10) {
                    std::thread::sleep(Duration::from_millis(1));
                }
                flag.store(ctx.cancelled(), Ordering::Relaxed);
                ctx.send("stale");
            },
        );
        w.start(|| {}, |ctx: &JobContext<&'static str>| ctx.send("fresh"));
        assert_eq!(wait_for(&mut w), ["fresh"]);
        let start = Instant::now();
        while !saw_cancel.load(Ordering::Relaxed) && start.elapsed() < Duration::from_secs(10) {
            std::thread::sleep(Duration::from_millis(2));
        }
        assert!(
            saw_cancel.load(Ordering::Relaxed),
            "the old job saw its cancel"
        );
    }

    #[test]
    fn a_panicking_job_ends_without_a_result() {
        let mut w = Worker::new("test");
        w.start(|| {}, |_: &JobContext<u8>| panic!("bug in a job"));
        assert!(wait_for(&mut w).is_empty());
        assert!(!w.busy());
    }
}
