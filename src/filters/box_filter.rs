//! `box:radius=R`: mean over the `(2R+1)²` window per RGB channel (alpha kept), exact, by
//! integer running sums whose cost does not depend on R. CPU reference in
//! `ops/cpu/box_filter.rs`; kernel `kernels/box_filter.cu` (row pass into a `uint4` scratch
//! plane, then the column pass).

use super::param::Default::Required;
use super::{FilterDef, Golden, GpuStage, ParamDef, Params};
use crate::cuda::{blocks, check_scratch, CudaError};
use cudarc::driver::{LaunchConfig, PushKernelArg};
use image::RgbaImage;

pub const BOX_BLOCK: u32 = 128;
pub const BOX_MIN_SEGMENT: u32 = 64;
pub const BOX_ROW_MIN_SEGMENT: u32 = 256;
/// Largest radius accepted.
pub const BOX_RADIUS_MAX: u32 = 255;
/// Bytes of scratch per pixel: one `uint4` of row sums.
const SCRATCH_PER_PIXEL: usize = 16;

pub struct BoxFilter;

const PARAMS: &[ParamDef] = &[ParamDef::int("radius", 1, BOX_RADIUS_MAX, Required)
    .aliases(&["r"])
    .logarithmic()];

/// Segment length of the column pass's running sums: long enough that starting a window
/// (2R+1 reads) costs at most a quarter of the run.
fn column_segment(radius: u32) -> u32 {
    BOX_MIN_SEGMENT.max(4 * (2 * radius + 1))
}

/// Outputs per warp of the row pass (a multiple of the warp width): the 2R+1 apron costs at
/// most a quarter of the work.
fn row_segment(radius: u32) -> u32 {
    BOX_ROW_MIN_SEGMENT
        .max(4 * (2 * radius + 1))
        .next_multiple_of(32)
}

impl FilterDef for BoxFilter {
    fn name(&self) -> &'static str {
        "box"
    }

    fn summary(&self) -> &'static str {
        "box:radius=R  mean of the (2R+1)² window per channel (1 ≤ R ≤ 255), exact"
    }

    fn ui_default(&self) -> &'static str {
        "box:radius=3"
    }

    fn params(&self) -> &'static [ParamDef] {
        PARAMS
    }

    fn cpu(&self, image: &RgbaImage, p: &Params) -> RgbaImage {
        crate::ops::cpu::box_filter(image, p.int(0))
    }

    fn gpu_tolerance(&self) -> u8 {
        0
    }

    fn kernel_modules(&self) -> &'static [&'static str] {
        &["box_filter"]
    }

    fn tile_constants(&self) -> &'static [(&'static str, &'static str, u32)] {
        &[
            ("box_filter", "BOX_BLOCK", BOX_BLOCK),
            ("box_filter", "BOX_MIN_SEGMENT", BOX_MIN_SEGMENT),
            ("box_filter", "BOX_ROW_MIN_SEGMENT", BOX_ROW_MIN_SEGMENT),
        ]
    }

    fn scratch_bytes(&self, width: u32, height: u32, _: &Params) -> usize {
        width as usize * height as usize * SCRATCH_PER_PIXEL
    }

    fn launch(&self, stage: &mut GpuStage<'_>, p: &Params) -> Result<(), CudaError> {
        let (w, h, radius) = (stage.width, stage.height, p.int(0));
        let need = self.scratch_bytes(w, h, p);
        check_scratch("box_rows", stage.scratch.len(), need)?;
        let segment = column_segment(radius);
        let row_seg = row_segment(radius);
        let rows_cfg = LaunchConfig {
            grid_dim: (blocks(w, row_seg), h, 1),
            block_dim: (32, 1, 1),
            // R, G and B prefix sums over the segment and its apron.
            shared_mem_bytes: 3 * 4 * (row_seg + 2 * radius + 1),
        };
        let cols_cfg = LaunchConfig {
            grid_dim: (blocks(w * blocks(h, segment), BOX_BLOCK), 1, 1),
            block_dim: (BOX_BLOCK, 1, 1),
            shared_mem_bytes: 0,
        };
        let rows_fn = stage
            .kernels
            .function("box_filter", "box_rows", &rows_cfg)?;
        let cols_fn = stage
            .kernels
            .function("box_filter", "box_columns", &cols_cfg)?;
        let (s, d) = (stage.input.handle(), stage.output.handle());
        let (wi, hi, r, seg, rseg) = (
            w as i32,
            h as i32,
            radius as i32,
            segment as i32,
            row_seg as i32,
        );
        let mut rows = stage.stream.launch_builder(&rows_fn);
        rows.arg(&s)
            .arg(&mut *stage.scratch)
            .arg(&wi)
            .arg(&hi)
            .arg(&r)
            .arg(&rseg);
        // SAFETY: matches `box_rows(tex, uint4*, int, int, int, int)`; the scratch holds
        // w·h uint4 (checked above).
        unsafe { rows.launch(rows_cfg) }.map_err(CudaError::launch("box_rows"))?;
        let mut cols = stage.stream.launch_builder(&cols_fn);
        cols.arg(&*stage.scratch)
            .arg(&s)
            .arg(&d)
            .arg(&wi)
            .arg(&hi)
            .arg(&r)
            .arg(&seg);
        // SAFETY: matches `box_columns(const uint4*, tex, surf, int, int, int, int)`; the
        // output is w × h.
        unsafe { cols.launch(cols_cfg) }
            .map(|_| ())
            .map_err(CudaError::launch("box_columns"))
    }

    fn bench_specs(&self) -> &'static [&'static str] {
        &["box:radius=5", "box:radius=64"]
    }

    fn test_specs(&self) -> &'static [&'static str] {
        &["box:radius=1", "box:radius=255"]
    }

    fn goldens(&self) -> &'static [Golden] {
        &[Golden {
            photo: "camera.png",
            specs: &["box:radius=7"],
            file: "camera-box7.png",
        }]
    }
}
