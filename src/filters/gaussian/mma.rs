//! The Gaussian's two passes on the tensor cores (`kernels/filters/convolution_mma.cu`): a row pass
//! from the input texture into a linear scratch plane and a column pass from it to the
//! output surface, each a product with the banded matrix of the weights (f16 in, f32
//! accumulated; weights and intermediate values split into high and low f16 parts, so the
//! results are as close to the f32 reference as f32 arithmetic).

use crate::kernel_constants::{
    CONV_MMA_BLOCK, CONV_MMA_COLS_TW, CONV_MMA_MAX_RADIUS, CONV_MMA_ROWS_TW,
};
use crate::filters::GpuStage;
use crate::cuda::{blocks, check_scratch, tile_height, CudaError};
use cudarc::driver::{LaunchConfig, PushKernelArg};

/// Tile heights (rows of the row pass, output rows of the column pass) where shared memory
/// allows, halved down to 16 where it does not: the fastest in the kernel sweep on the H200
/// (4K and 8K, σ = 2, 4, 16, 32): rows of 64; columns
/// of 128 up to 7 steps (σ ≤ 16), 256 above, where the 16(J − 1) rows of halo weigh more.
const ROWS_TH: u32 = 64;
const COLS_TH_FEW_STEPS: u32 = 128;
const COLS_TH: u32 = 256;
/// Step counts up to which the shorter column tile is used.
const FEW_STEPS: u32 = 7;
/// Tile heights are whole 16-row units.
const UNIT: u32 = 16;
/// Bytes of a scratch pixel: R, G, B as high and low f16 parts, and alpha.
const SCRATCH_PIXEL_BYTES: usize = 16;
/// Bytes of a staged f16 value.
const HALF: u32 = 2;

/// The kernels, by step count J = 2..=13 (index J - 2).
const ROWS: [&str; 12] = [
    "conv_rows_mma_2",
    "conv_rows_mma_3",
    "conv_rows_mma_4",
    "conv_rows_mma_5",
    "conv_rows_mma_6",
    "conv_rows_mma_7",
    "conv_rows_mma_8",
    "conv_rows_mma_9",
    "conv_rows_mma_10",
    "conv_rows_mma_11",
    "conv_rows_mma_12",
    "conv_rows_mma_13",
];
const COLUMNS: [&str; 12] = [
    "conv_columns_mma_2",
    "conv_columns_mma_3",
    "conv_columns_mma_4",
    "conv_columns_mma_5",
    "conv_columns_mma_6",
    "conv_columns_mma_7",
    "conv_columns_mma_8",
    "conv_columns_mma_9",
    "conv_columns_mma_10",
    "conv_columns_mma_11",
    "conv_columns_mma_12",
    "conv_columns_mma_13",
];

/// Steps of 16 inputs that 16 consecutive outputs of radius `radius` span: ⌈2R / 16⌉ + 1.
pub fn mma_steps(radius: u32) -> u32 {
    (2 * radius).div_ceil(16) + 1
}

/// Scratch bytes for a `width × height` image.
pub fn scratch_bytes(width: u32, height: u32) -> usize {
    width as usize * height as usize * SCRATCH_PIXEL_BYTES
}

/// Shared bytes of the row pass: three f16 planes of `th` rows, `TW + 16(J - 1) + 8` apart.
fn rows_shared(steps: u32, th: u32) -> u32 {
    3 * th * (CONV_MMA_ROWS_TW + 16 * (steps - 1) + 8) * HALF
}

/// Shared bytes of the column pass: six f16 planes (high and low parts) of `th + 16(J - 1)`
/// rows, `TW + 8` apart.
fn columns_shared(steps: u32, th: u32) -> u32 {
    6 * (th + 16 * (steps - 1)) * (CONV_MMA_COLS_TW + 8) * HALF
}

/// The launch of one pass over `w × h`: tiles `tile_w` columns wide and as tall as
/// `tallest` where `shared(th)` bytes fit the device (halved down to one unit where not).
fn pass_config(
    stage: &GpuStage<'_>,
    tile_w: u32,
    tallest: u32,
    shared: impl Fn(u32) -> u32,
) -> (LaunchConfig, i32) {
    let th = tile_height(tallest, UNIT, stage.kernels.max_shared, &shared);
    let cfg = LaunchConfig {
        grid_dim: (blocks(stage.width, tile_w), blocks(stage.height, th), 1),
        block_dim: (CONV_MMA_BLOCK, 1, 1),
        shared_mem_bytes: shared(th),
    };
    (cfg, th as i32)
}

/// Both passes of radius `radius` (the weights already in the `convolution_mma` module).
pub fn launch(stage: &mut GpuStage<'_>, radius: u32) -> Result<(), CudaError> {
    if radius == 0 || radius > CONV_MMA_MAX_RADIUS {
        return Err(CudaError::Launch {
            kernel: "conv_rows_mma",
            reason: format!("radius {radius} outside 1..={CONV_MMA_MAX_RADIUS}"),
        });
    }
    check_scratch(
        "conv_rows_mma",
        stage.scratch.len(),
        scratch_bytes(stage.width, stage.height),
    )?;
    let steps = mma_steps(radius);
    rows_pass(stage, radius, steps)?;
    columns_pass(stage, radius, steps)
}

/// The row pass: input texture → scratch (J = `steps`, checked by [`launch`]).
fn rows_pass(stage: &mut GpuStage<'_>, radius: u32, steps: u32) -> Result<(), CudaError> {
    let name = ROWS[steps as usize - 2];
    let (cfg, th) = pass_config(stage, CONV_MMA_ROWS_TW, ROWS_TH, |t| rows_shared(steps, t));
    let f = stage.kernels.function("convolution_mma", name, &cfg)?;
    let s = stage.input.handle();
    let (w, h, r) = (stage.width as i32, stage.height as i32, radius as i32);
    let mut b = stage.stream.launch_builder(&f);
    b.arg(&s)
        .arg(&mut *stage.scratch)
        .arg(&w)
        .arg(&h)
        .arg(&r)
        .arg(&th);
    // SAFETY: matches `conv_rows_mma_J(tex, uint4*, int, int, int, int)` for
    // J = mma_steps(R); the scratch holds w · h 16-byte pixels (checked by `launch`), th is
    // a multiple of 16 and the shared size is the kernel's layout for (J, th).
    unsafe { b.launch(cfg) }
        .map(|_| ())
        .map_err(CudaError::launch(name))
}

/// The column pass: scratch → output surface.
fn columns_pass(stage: &mut GpuStage<'_>, radius: u32, steps: u32) -> Result<(), CudaError> {
    let name = COLUMNS[steps as usize - 2];
    let tallest = if steps <= FEW_STEPS {
        COLS_TH_FEW_STEPS
    } else {
        COLS_TH
    };
    let (cfg, th) = pass_config(stage, CONV_MMA_COLS_TW, tallest, |t| {
        columns_shared(steps, t)
    });
    let f = stage.kernels.function("convolution_mma", name, &cfg)?;
    let d = stage.output.handle();
    let (w, h, r) = (stage.width as i32, stage.height as i32, radius as i32);
    let mut b = stage.stream.launch_builder(&f);
    b.arg(&*stage.scratch)
        .arg(&d)
        .arg(&w)
        .arg(&h)
        .arg(&r)
        .arg(&th);
    // SAFETY: matches `conv_columns_mma_J(const uint4*, surf, int, int, int, int)`; the
    // scratch holds the row pass's w · h results, the output is w × h, th is a multiple of
    // 16 and the shared size is the kernel's layout for (J, th).
    unsafe { b.launch(cfg) }
        .map(|_| ())
        .map_err(CudaError::launch(name))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_radius_has_its_kernels_and_they_cover_its_taps() {
        for radius in 1..=CONV_MMA_MAX_RADIUS {
            let steps = mma_steps(radius);
            assert!((2..=13).contains(&steps), "radius {radius}");
            // 16 outputs need 16 + 2R inputs; J steps read 16 J.
            assert!(16 * steps >= 16 + 2 * radius, "radius {radius}");
            assert!(
                16 * (steps - 1) < 16 + 2 * radius,
                "radius {radius}: a step too many"
            );
            assert!(ROWS[steps as usize - 2].ends_with(&format!("_{steps}")));
            assert!(COLUMNS[steps as usize - 2].ends_with(&format!("_{steps}")));
        }
    }

    #[test]
    fn tiles_fit_where_the_device_allows_99_kib() {
        // 99, 163 and 227 KiB of shared memory per block on sm_86/89, sm_80 and sm_90: every
        // radius fits. On sm_75 (64 KiB) the column pass of the largest radii does not (its
        // launch is refused with a message, as before the tensor cores).
        for limit in [64 << 10, 99 << 10, 163 << 10, 227 << 10] {
            for radius in 1..=CONV_MMA_MAX_RADIUS {
                let steps = mma_steps(radius);
                let rows = |t| rows_shared(steps, t);
                let columns = |t| columns_shared(steps, t);
                let (tr, tc) = (
                    tile_height(ROWS_TH, UNIT, limit, rows),
                    tile_height(COLS_TH, UNIT, limit, columns),
                );
                assert!(tr % UNIT == 0 && tc % UNIT == 0, "radius {radius}");
                assert!(rows(tr) <= limit, "radius {radius}, {limit} B");
                let fits = columns(tc) <= limit;
                assert!(
                    fits || (limit < 99 << 10 && tc == UNIT),
                    "radius {radius}, {limit} B"
                );
            }
        }
        assert_eq!(scratch_bytes(3, 2), 3 * 2 * 16);
    }
}
