//! NPP errors: the library missing, no equivalent call, a failed call with its status, or the
//! CUDA call under it.

use cudalens::cuda::CudaError;
use std::borrow::Cow;

/// What went wrong with an NPP peer.
#[derive(Debug, thiserror::Error)]
pub enum NppError {
    #[error("NPP not found: {0}")]
    NotFound(String),
    /// The filter's descriptor names no NPP call that does the same work.
    #[error("no NPP equivalent of {0}")]
    NoEquivalent(String),
    /// An NPP call known to misbehave for these arguments, not run.
    #[error("not run: {0}")]
    Refused(String),
    #[error("{call} returned NPP status {code}")]
    Status { call: Cow<'static, str>, code: i32 },
    #[error("NPP image of {width}×{height}: {reason}")]
    Size {
        width: u32,
        height: u32,
        reason: String,
    },
    #[error(transparent)]
    Cuda(#[from] CudaError),
}

/// Turns an `NppStatus` into a `Result`: errors are negative; warnings (positive) pass.
pub fn check(call: &'static str, code: i32) -> Result<(), NppError> {
    if code < 0 {
        Err(NppError::Status {
            call: Cow::Borrowed(call),
            code,
        })
    } else {
        Ok(())
    }
}

/// [`check`] for an entry point whose name is built at run time (the typed peers': one
/// name per sample type); the name is copied only for an error.
pub fn check_named(call: &str, code: i32) -> Result<(), NppError> {
    if code < 0 {
        Err(NppError::Status {
            call: Cow::Owned(call.to_string()),
            code,
        })
    } else {
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn negative_statuses_are_errors_and_warnings_pass() {
        assert!(check("x", 0).is_ok());
        assert!(check("x", 1).is_ok());
        let e = check("nppiTranspose_8u_C4R_Ctx", -4).unwrap_err();
        assert_eq!(
            e.to_string(),
            "nppiTranspose_8u_C4R_Ctx returned NPP status -4"
        );
        assert!(check_named("nppiCopy_32f_C4R_Ctx", 2).is_ok());
        let e = check_named("nppiCopy_32f_C4R_Ctx", -6).unwrap_err();
        assert_eq!(e.to_string(), "nppiCopy_32f_C4R_Ctx returned NPP status -6");
    }
}
