//! Separable filters without full-size planes: the image is cut into vertical stripes
//! (one rayon task each); a task walks down its stripe, runs the row pass into a ring of
//! the few row results the column pass needs, and writes finished output rows. A task
//! holds (rows in the ring) × (stripe width) accumulators, so the whole filter needs the
//! output image and a few MiB, never a float copy of the image. The arithmetic is the
//! same as a row pass over the whole image followed by a column pass (same taps, same
//! order), so results are bit for bit those of the plane-based formulation.

use image::RgbaImage;
use rayon::prelude::*;
use std::ops::Range;

/// Columns per stripe.
const STRIPE: usize = 128;

/// Row-pass results of the rows a stripe needs, indexed by source row modulo its size.
pub(super) struct Ring<T> {
    rows: usize,
    width: usize,
    data: Vec<[T; 3]>,
}

impl<T: Copy + Default> Ring<T> {
    fn new(rows: usize, width: usize) -> Self {
        Self {
            rows,
            width,
            data: vec![[T::default(); 3]; rows * width],
        }
    }

    /// The row-pass result of source row `y` (which must be in the ring).
    pub(super) fn row(&self, y: usize) -> &[[T; 3]] {
        let start = (y % self.rows) * self.width;
        &self.data[start..start + self.width]
    }

    fn row_mut(&mut self, y: usize) -> &mut [[T; 3]] {
        let start = (y % self.rows) * self.width;
        &mut self.data[start..start + self.width]
    }
}

/// The output pixels, shared by stripe tasks that each write only their own columns.
struct DisjointColumns {
    ptr: *mut u8,
    row_bytes: usize,
}

// SAFETY: tasks write disjoint column ranges of distinct rows' segments (see `segment`);
// the pointer stays valid while `for_each_stripe` borrows the buffer mutably.
unsafe impl Sync for DisjointColumns {}

impl DisjointColumns {
    /// The RGBA bytes of row `y`, columns `columns`.
    ///
    /// # Safety
    /// No two live slices may overlap: each caller uses only its own stripe's columns, and
    /// `y`/`columns` lie inside the image.
    #[allow(clippy::mut_from_ref)]
    unsafe fn segment(&self, y: usize, columns: &Range<usize>) -> &mut [u8] {
        // SAFETY: in bounds by the caller's contract; disjoint from every other live slice.
        unsafe {
            std::slice::from_raw_parts_mut(
                self.ptr.add(y * self.row_bytes + columns.start * 4),
                columns.len() * 4,
            )
        }
    }
}

/// What a separable filter supplies: the row pass of one stripe row and a per-stripe
/// column pass (which may keep running state from one output row to the next).
pub(super) struct Passes<RowPass, MakeColumn> {
    /// Source rows above the output row that the column pass reads.
    pub behind: usize,
    /// Source rows below the output row that must be ready before it is written.
    pub ahead: usize,
    /// `row_pass(rgba_row, columns, out)`: row-pass results of `columns` of one source row.
    pub row_pass: RowPass,
    /// `make_column(width)` gives the stripe's column pass `(y, ring, out_rgb_per_pixel)`.
    pub make_column: MakeColumn,
}

/// Runs a separable filter on the RGB of `image`, keeping alpha; see the module comment.
pub(super) fn for_each_stripe<T, RowPass, MakeColumn, Column>(
    image: &RgbaImage,
    passes: Passes<RowPass, MakeColumn>,
) -> RgbaImage
where
    T: Copy + Default + Send + Sync,
    RowPass: Fn(&[u8], &Range<usize>, &mut [[T; 3]]) + Sync,
    MakeColumn: Fn(usize) -> Column + Sync,
    Column: FnMut(usize, &Ring<T>, &mut [u8]),
{
    let (w, h) = (image.width() as usize, image.height() as usize);
    let mut out = image.clone();
    if w == 0 || h == 0 {
        return out;
    }
    let target = DisjointColumns {
        ptr: out.as_mut_ptr(),
        row_bytes: 4 * w,
    };
    let src = image.as_raw();
    let stripes: Vec<Range<usize>> = (0..w)
        .step_by(STRIPE)
        .map(|x0| x0..(x0 + STRIPE).min(w))
        .collect();
    stripes.par_iter().for_each(|columns| {
        let mut ring = Ring::new(passes.behind + passes.ahead + 1, columns.len());
        let mut column = (passes.make_column)(columns.len());
        let mut next = 0; // next source row to run the row pass on
        for y in 0..h {
            while next < h && next <= y + passes.ahead {
                (passes.row_pass)(
                    &src[next * 4 * w..(next + 1) * 4 * w],
                    columns,
                    ring.row_mut(next),
                );
                next += 1;
            }
            // SAFETY: this task alone writes `columns`; y < h and columns ⊂ 0..w.
            let segment = unsafe { target.segment(y, columns) };
            column(y, &ring, segment);
        }
    });
    out
}
