//! NPP (NVIDIA Performance Primitives) as a benchmark peer: loaded at run time when its
//! libraries are on the machine, never linked. `ffi.rs` is the only raw FFI (the entry
//! points and the C structs); `context.rs` fills the stream context from the device;
//! `image.rs` owns pitched linear device images; `peers.rs` says, per operation, which NPP
//! call is the nearest equivalent and whether its output is the same operation; `typed.rs`
//! does the same for RGBA of 16-bit and float samples (`--peers --type u16|f32`).

mod context;
mod error;
pub mod ffi;
mod image;
pub mod peers;
pub mod typed;

pub use context::Npp;
pub use error::{check, NppError};
pub use image::NppImage;
pub use peers::{max_difference, Compare, Peer, PeerOutput};
