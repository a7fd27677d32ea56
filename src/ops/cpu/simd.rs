//! Runtime choice of the vector width for the CPU kernels: the same plain Rust loops, run
//! compiled with AVX2 where the CPU has it (as OpenCV dispatches at run time), else as
//! built for the baseline target. Only the instruction selection changes: Rust never
//! contracts `a * b + c` into a fused multiply-add, so results are bit-identical either way.

/// Runs `kernel` compiled with AVX2 enabled when this CPU has it.
///
/// `kernel` and the helpers it calls should be `#[inline(always)]` so that they are
/// compiled inside the AVX2 function.
#[inline(always)]
pub fn vectorized<R>(kernel: impl FnOnce() -> R) -> R {
    #[cfg(target_arch = "x86_64")]
    {
        if std::arch::is_x86_feature_detected!("avx2") {
            // SAFETY: the CPU supports AVX2 (checked just above), `avx2`'s only requirement.
            return unsafe { avx2(kernel) };
        }
    }
    kernel()
}

/// Calls `kernel` inside a function compiled for AVX2.
///
/// # Safety
/// The CPU must support AVX2.
#[cfg(target_arch = "x86_64")]
#[target_feature(enable = "avx2")]
unsafe fn avx2<R>(kernel: impl FnOnce() -> R) -> R {
    kernel()
}
