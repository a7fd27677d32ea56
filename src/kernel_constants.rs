// Constants shared by the Rust launchers and their CUDA kernels (the filters, the frame's
// histogram and copy, the Mandelbrot and perturbation kernels: launch layouts, markers,
// limits): the one source of both. build.rs `include!`s this file and writes each entry as a `#define` into
// `$OUT_DIR/cudalens_constants.h`, which the kernels include (nvcc gets `-I$OUT_DIR`; NVRTC
// gets the header's text in place of the `#include`). Plain `//` comments: an `include!`d
// file takes no inner attributes.

/// Defines each `NAME = value;` as a `pub const NAME: u32` and lists them all in
/// [`SHARED_CONSTANTS`].
macro_rules! shared_constants {
    ($($(#[$attr:meta])* $name:ident = $value:expr;)*) => {
        $($(#[$attr])* pub const $name: u32 = $value;)*

        /// Every shared constant as (name, value), in the order of this file.
        pub const SHARED_CONSTANTS: &[(&str, u32)] = &[$((stringify!($name), $name)),*];
    };
}

shared_constants! {
    // gaussian and unsharp: kernels/filters/convolution.cu.
    /// Largest Gaussian radius accepted.
    CONV_MAX_RADIUS = 96;
    /// Largest radius of the fused f32 pass; above it the tensor cores. The fused pass costs
    /// about 0.027 ms more per tap at 8K on the H200 (0.40 ms at 13 taps, 0.72 at 25), the
    /// tensor-core passes 0.60–0.62 ms up to 3 steps (kernel sweep): they cross near 19 taps.
    CONV_FUSED_MAX_RADIUS = 9;
    CONV_BLOCK = 256;
    CONV_TILE_W = 64;
    CONV_RUN = 8;
    /// Warps (rows) of a typed Gaussian row-pass block (`gauss_rows_<format>`).
    GAUSS_ROWS_WARPS = 4;
    /// Row stride (floats) of `conv_rows`' output staging: a tile row and one, odd.
    CONV_ROWS_OUT_STRIDE = CONV_TILE_W + 1;

    // gaussian on the tensor cores: kernels/filters/convolution_mma.cu.
    /// Largest radius the kernels are built for (their `c_weights` holds 2R + 1 taps).
    CONV_MMA_MAX_RADIUS = 96;
    CONV_MMA_BLOCK = 256;
    /// Output columns of a row pass tile.
    CONV_MMA_ROWS_TW = 128;
    /// Columns of a column pass tile.
    CONV_MMA_COLS_TW = 32;

    // unsharp's column pass: kernels/filters/unsharp.cu.
    UNSHARP_BLOCK_X = 32;
    UNSHARP_BLOCK_Y = 8;

    // sobel: kernels/filters/sobel.cu.
    SOBEL_WARPS = 4;
    /// Rows a block slides down: short segments spread the work over more blocks (kernel
    /// sweep on the H200, 8K: 16 rows 0.103 ms, 32 rows 0.108, 64 rows 0.111).
    SOBEL_SEGMENT = 16;
    SOBEL_STEP = 4;
    /// Output columns of a warp's strip: 32 lanes less the apron lane at each side.
    SOBEL_OUT = 30;

    // box: kernels/filters/box_filter.cu.
    BOX_COLUMNS_PER_THREAD = 4;
    BOX_MIN_SEGMENT = 16;
    /// Largest radius `box_small_R` is compiled for (its 16-bit channel sums hold
    /// (2R+1)² · 255).
    BOX_SMALL_MAX_RADIUS = 7;
    BOX_SMALL_WARPS = 4;
    BOX_SMALL_SEGMENT = 64;
    BOX_SMALL_STEP = 8;
    /// Radii up to this one run `box_small_R` in [`BOX_TINY_SEGMENT`]-row segments reading
    /// [`BOX_TINY_STEP`] rows ahead: fewer registers and more blocks. Kernel sweep on the
    /// H200 (8K): radius 1 0.098 ms against 0.119 with 64 rows and 8 ahead, radius 2 0.109
    /// against 0.111; from radius 3 the longer segments are as fast or faster.
    BOX_TINY_MAX_RADIUS = 2;
    BOX_TINY_SEGMENT = 16;
    BOX_TINY_STEP = 4;

    // median: kernels/filters/median.cu.
    MEDIAN_BLOCK = 16;
    MEDIAN_MAX_RADIUS = 7;
    MEDIAN3_WARPS = 4;
    MEDIAN3_SEGMENT = 16;
    MEDIAN3_STEP = 4;
    /// Output columns of a `median3` warp: 32 lanes less one apron lane at each side.
    MEDIAN3_OUT = 30;
    MEDIAN5_WARPS = 4;
    MEDIAN5_SEGMENT = 16;
    MEDIAN5_STEP = 4;
    /// Output columns of a `median5` warp: 30 lanes of two columns each (lanes 0 and 31 are
    /// the apron).
    MEDIAN5_OUT = 60;

    // equalize: kernels/filters/equalize.cu.
    EQUALIZE_BLOCK_X = 32;
    EQUALIZE_BLOCK_Y = 8;
    /// Rows an `equalize_apply` thread maps, `EQUALIZE_BLOCK_Y` apart, all read before any
    /// is written.
    EQUALIZE_ROWS = 4;
    /// Bins a channel has, and threads an `equalize_lut` block has (one bin each).
    EQUALIZE_BINS = 256;

    // threshold: kernels/filters/threshold.cu.
    /// Threads of `threshold_level`'s one block: one per luma bin.
    THRESHOLD_BINS = 256;
    THRESHOLD_BLOCK_X = 32;
    THRESHOLD_BLOCK_Y = 8;
    /// The methods' indices: their order in `threshold::Method`, which checks it.
    THRESHOLD_MANUAL = 0;
    THRESHOLD_OTSU = 1;
    THRESHOLD_ISODATA = 2;
    THRESHOLD_MEAN = 3;
    THRESHOLD_TRIANGLE = 4;

    // transpose: kernels/filters/transpose.cu.
    TRANSPOSE_TILE = 32;
    TRANSPOSE_ROWS = 8;

    // the frame's histogram: kernels/histogram.cu.
    HIST_BINS = 256;
    HIST_WARPS = 8;
    HIST_ROWS = 8;
    // ranged histograms of typed images: kernels/histogram_ranged.cu.
    /// Threads per block (warps share sub-histograms when shared memory allows).
    HIST_RANGED_WARPS = 8;
    /// Shared-memory bytes below which a block keeps one sub-histogram per warp.
    HIST_RANGED_COPIES_BYTES = 49152;

    // the frame's copy (no filter): kernels/copy.cu.
    COPY_BLOCK_X = 32;
    COPY_BLOCK_Y = 8;
    COPY_ROWS = 4;

    // the typed kernels (every stored format but RGBA8): kernels/typed.cuh.
    /// One thread a pixel in blocks of TYPED_BLOCK_X × TYPED_BLOCK_Y.
    TYPED_BLOCK_X = 32;
    TYPED_BLOCK_Y = 8;
    /// Widest texel (bytes) whose Sobel and 3×3 median slide strips (`slide_window_strip`);
    /// wider ones (RGBA f32) run one thread a pixel. H200, 4K, same lease: strips took
    /// u16 Sobel 0.099 → 0.062 ms and its median 0.112 → 0.061, but f32 0.152 → 0.164
    /// and 0.105 → 0.137.
    TYPED_STRIP_MAX_TEXEL_BYTES = 8;
    /// Rows (box columns) or columns (box rows) one thread slides its window over.
    TYPED_BOX_RUN = 32;
    /// Largest box radius of the one-pass tile kernel (`box_tile_<format>`); above it
    /// two passes through a plane of row sums.
    TYPED_BOX_TILE_RADIUS = 16;
    /// Output rows of a box tile (a multiple of TYPED_BLOCK_Y).
    TYPED_BOX_TILE_ROWS = 64;
    /// Bins of a typed luma or channel histogram (U16 and F32; U8 uses 256).
    TYPED_HIST_BINS = 65536;
    /// Rows (TYPED_BLOCK_Y apart) a thread of a float range kernel folds.
    TYPED_RANGE_ROWS = 32;
    /// Threads of an `equalize_tables` block (one block a channel; a power of two that
    /// divides TYPED_HIST_BINS, at most 1024).
    EQUALIZE_TABLE_THREADS = 1024;

    // the Mandelbrot kernels: kernels/mandelbrot.cu.
    /// Steps between two periodicity checks of an orbit (a power of two): z is compared with
    /// the z saved at the last power-of-two step; equal, the orbit repeats and never escapes.
    MANDEL_PERIOD_STRIDE = 32;
    MANDEL_BLOCK_X = 32;
    MANDEL_BLOCK_Y = 8;
    MS_BLOCK = 256;
    MS_LINES_BLOCK = 256;
    MS_CELLS = 256;
    MS_ITEMS = 528;
    /// Deepest refinement level (the tuning's limit and the kernels' level arrays).
    MS_MAX_LEVELS = 12;
    MS_COUNTERS = 9;
    MS_FUSED_CELL = 16;
    MS_KIND_FILL = 0;
    MS_KIND_SPLIT = 1;
    MS_KIND_LEAF = 2;
    MS_COUNT_RECORDS = 0;
    MS_COUNT_FAILURES = 1;
    MS_COUNT_GRIDS = 2;
    MS_COUNT_DEPTH = 3;
    MS_COUNT_EVALUATED = 7;
    MS_COUNT_TILES = 8;
    /// The dwell that marks a pixel a pan exposed (`mandel_shift`), for the fill kernels to
    /// compute: above any max dwell.
    MANDEL_PAN_UNSET = 0x7FFF_FFFE;

    // deep zoom by perturbation: kernels/perturbation.cu.
    PT_BLOCK_X = 32;
    PT_BLOCK_Y = 8;
    /// BLA tables hold for |δc| up to this many times the view's half diagonal, so that a
    /// pan's exposed pixels (perturb_fill) keep taking BLA steps: measured with
    /// `cudalens-bench --bla-stats`, 3 instead of 1 changes no bookmark's step counts
    /// (the period-8007 minibrot's by under 0.6 %).
    BLA_REACH = 3;
}

/// The text of `cudalens_constants.h`: every shared constant as a `#define`, in an include
/// guard (NVRTC's embedded sources may paste it more than once).
pub fn c_header() -> String {
    let mut text = String::from(
        "// Generated by build.rs from src/kernel_constants.rs: edit that file, not this one.\n\
         #ifndef CUDALENS_CONSTANTS_H\n#define CUDALENS_CONSTANTS_H\n",
    );
    for (name, value) in SHARED_CONSTANTS {
        text.push_str(&format!("#define {name} {value}\n"));
    }
    text.push_str("#endif\n");
    text
}
