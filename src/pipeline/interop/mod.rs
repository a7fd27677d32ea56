//! CUDA's access to the GL objects a frame reads and writes, on either interop path: the
//! classic one (registered GL objects mapped and unmapped each frame) and the external one
//! (Vulkan-exported memory imported by both APIs, handed over with a semaphore pair).
//! `mode.rs` chooses the path, `resources.rs` is the one interface the frames use,
//! `shared_targets.rs` and `shared_display.rs` own the external path's image and explorer
//! objects, `external/` its memory and semaphores.

mod external;
mod mode;
mod resources;
mod shared_display;
mod shared_targets;

pub use external::ExternalInterop;
pub use mode::{choose_interop, CudaShare, InteropKind, InteropRequest, InteropStatus};
pub use resources::{
    with_cuda_access, with_views, ClassicResources, InteropResources, InteropViews,
};
pub use shared_display::SharedDisplay;
pub use shared_targets::SharedTargets;
