//! The threshold's methods: the words of `method=` and the indices the kernel knows.

use crate::kernel_constants::{
    THRESHOLD_ISODATA, THRESHOLD_MANUAL, THRESHOLD_MEAN, THRESHOLD_OTSU, THRESHOLD_TRIANGLE,
};
use crate::filters::param::choice_enum;

choice_enum! {
    /// How the level is found.
    pub enum Method {
        Manual = "manual",
        Otsu = "otsu",
        Isodata = "isodata",
        Mean = "mean",
        Triangle = "triangle",
    }
}

// The kernel knows the methods by these indices.
const _: () = assert!(
    Method::Manual as u32 == THRESHOLD_MANUAL
        && Method::Otsu as u32 == THRESHOLD_OTSU
        && Method::Isodata as u32 == THRESHOLD_ISODATA
        && Method::Mean as u32 == THRESHOLD_MEAN
        && Method::Triangle as u32 == THRESHOLD_TRIANGLE
        && Method::ALL.len() == 5
);
