//! Rectangles of the Mariani–Silver refinement and the order in which their pixels are
//! enumerated; `kernels/mandelbrot_rect.cuh` enumerates the same pixels in the same order.
//!
//! A rectangle is given by its border lines: columns `x0`, `x1` and rows `y0`, `y1`
//! (inclusive). Neighbouring rectangles share a border line, so their interiors are
//! disjoint and every border pixel is computed once. A rectangle at level k is a cell of
//! the grid of spacing S_k aligned to the image origin: `[a·S_k, min((a+1)·S_k, W−1)]`.

/// A rectangle by its border lines (inclusive); its interior lies strictly inside.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct Rect {
    pub x0: u32,
    pub y0: u32,
    pub x1: u32,
    pub y1: u32,
}

impl Rect {
    /// The whole image: its border is the image's outermost rows and columns.
    pub fn image(width: u32, height: u32) -> Self {
        Self {
            x0: 0,
            y0: 0,
            x1: width.saturating_sub(1),
            y1: height.saturating_sub(1),
        }
    }

    pub fn interior_width(&self) -> u32 {
        (self.x1 - self.x0).saturating_sub(1)
    }

    pub fn interior_height(&self) -> u32 {
        (self.y1 - self.y0).saturating_sub(1)
    }

    /// Pixels strictly inside the border.
    pub fn interior_pixels(&self) -> u64 {
        u64::from(self.interior_width()) * u64::from(self.interior_height())
    }

    /// The extent that decides between a child grid and in-block work: (x1−x0)·(y1−y0),
    /// S² for a whole cell of spacing S.
    pub fn extent(&self) -> u64 {
        u64::from(self.x1 - self.x0) * u64::from(self.y1 - self.y0)
    }

    /// The `i`-th interior pixel, row by row.
    pub fn interior_pixel(&self, i: u64) -> (u32, u32) {
        let w = u64::from(self.interior_width());
        (self.x0 + 1 + (i % w) as u32, self.y0 + 1 + (i / w) as u32)
    }

    /// Numbers of cells of spacing `s` across and down (the rectangle is aligned to `s`).
    pub fn cell_counts(&self, s: u32) -> (u32, u32) {
        (
            (self.x1 - self.x0).div_ceil(s),
            (self.y1 - self.y0).div_ceil(s),
        )
    }

    /// Cell (i, j) of spacing `s`.
    pub fn cell(&self, s: u32, i: u32, j: u32) -> Rect {
        Rect {
            x0: self.x0 + i * s,
            y0: self.y0 + j * s,
            x1: (self.x0 + (i + 1) * s).min(self.x1),
            y1: (self.y0 + (j + 1) * s).min(self.y1),
        }
    }

    /// The cells of spacing `s`, row by row.
    pub fn cells(&self, s: u32) -> impl Iterator<Item = Rect> + '_ {
        let (nx, ny) = self.cell_counts(s);
        (0..ny).flat_map(move |j| (0..nx).map(move |i| self.cell(s, i, j)))
    }

    /// Each border pixel once: the top and bottom rows, then the inner parts of the left
    /// and right columns.
    pub fn border(&self) -> impl Iterator<Item = (u32, u32)> + '_ {
        let rows = if self.y1 > self.y0 {
            vec![self.y0, self.y1]
        } else {
            vec![self.y0]
        };
        let cols = if self.x1 > self.x0 {
            vec![self.x0, self.x1]
        } else {
            vec![self.x0]
        };
        let horizontal = rows
            .into_iter()
            .flat_map(move |y| (self.x0..=self.x1).map(move |x| (x, y)));
        let vertical = cols
            .into_iter()
            .flat_map(move |x| (self.y0 + 1..self.y1).map(move |y| (x, y)));
        horizontal.chain(vertical)
    }

    /// Interior lines of spacing `s`: (vertical lines, horizontal lines). Lines lie at
    /// multiples of `s` from the rectangle's corner, strictly inside.
    fn line_counts(&self, s: u32) -> (u32, u32) {
        (self.interior_width() / s, self.interior_height() / s)
    }

    /// Pixels on the interior lines of spacing `s` (each once, none on the border).
    pub fn line_pixel_count(&self, s: u32) -> u64 {
        let (nv, nh) = self.line_counts(s);
        let (wi, hi) = (self.interior_width(), self.interior_height());
        u64::from(nv) * u64::from(hi) + u64::from(nh) * u64::from(wi - nv)
    }

    /// The `i`-th pixel on the interior lines of spacing `s`: the vertical lines top to
    /// bottom one after the other, then the horizontal lines without the crossings.
    pub fn line_pixel(&self, s: u32, i: u64) -> (u32, u32) {
        let (nv, _) = self.line_counts(s);
        let (wi, hi) = (
            u64::from(self.interior_width()),
            u64::from(self.interior_height()),
        );
        let vertical = u64::from(nv) * hi;
        if i < vertical {
            let line = (i / hi) as u32;
            return (self.x0 + (line + 1) * s, self.y0 + 1 + (i % hi) as u32);
        }
        let t = i - vertical;
        let per_line = wi - u64::from(nv);
        let line = (t / per_line) as u32;
        let p = (t % per_line) as u32;
        (self.x0 + 1 + p + p / (s - 1), self.y0 + (line + 1) * s)
    }
}

/// The first pass over the image: its border and every line of spacing `s` (each pixel
/// once): the rows at multiples of `s` and the last row, then the columns at multiples of
/// `s` and the last column without the crossings.
pub struct GridLines {
    pub width: u32,
    pub height: u32,
    pub s: u32,
}

impl GridLines {
    /// Lines along one axis of `len` pixels: multiples of s, and len − 1.
    fn lines(len: u32, s: u32) -> u32 {
        (len - 1) / s + 1 + u32::from(!(len - 1).is_multiple_of(s))
    }

    /// The columns and rows of lines (the fused kernel's units: one per crossing).
    pub fn counts(&self) -> (u32, u32) {
        (
            Self::lines(self.width, self.s),
            Self::lines(self.height, self.s),
        )
    }

    pub fn pixel_count(&self) -> u64 {
        let (cols, rows) = self.counts();
        u64::from(rows) * u64::from(self.width) + u64::from(cols) * u64::from(self.height - rows)
    }

    /// The `i`-th pixel.
    pub fn pixel(&self, i: u64) -> (u32, u32) {
        let rows = Self::lines(self.height, self.s);
        let w = u64::from(self.width);
        let on_rows = u64::from(rows) * w;
        if i < on_rows {
            let r = (i / w) as u32;
            return ((i % w) as u32, (r * self.s).min(self.height - 1));
        }
        let t = i - on_rows;
        let per_col = u64::from(self.height - rows);
        let c = (t / per_col) as u32;
        let q = (t % per_col) as u32;
        ((c * self.s).min(self.width - 1), 1 + q + q / (self.s - 1))
    }
}

/// The Coons patch of a rectangle's border values at interior pixel (x, y): the blend of
/// the left/right and top/bottom values minus the corners' bilinear part, equal to the
/// border on the border. In f32 with the operation order of the kernel's `coons`.
pub fn coons(r: &Rect, (x, y): (u32, u32), value: impl Fn(u32, u32) -> f32) -> f32 {
    let u = (x - r.x0) as f32 / (r.x1 - r.x0) as f32;
    let t = (y - r.y0) as f32 / (r.y1 - r.y0) as f32;
    let (iu, it) = (1.0 - u, 1.0 - t);
    let sides = iu * value(r.x0, y) + u * value(r.x1, y);
    let ends = it * value(x, r.y0) + t * value(x, r.y1);
    let top = iu * value(r.x0, r.y0) + u * value(r.x1, r.y0);
    let bottom = iu * value(r.x0, r.y1) + u * value(r.x1, r.y1);
    sides + ends - (it * top + t * bottom)
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::collections::HashSet;

    fn rects() -> Vec<Rect> {
        let mut out = Vec::new();
        for (x0, y0) in [(0, 0), (16, 32)] {
            for (w, h) in [(1, 1), (2, 2), (3, 9), (16, 16), (17, 5), (40, 33)] {
                out.push(Rect {
                    x0,
                    y0,
                    x1: x0 + w,
                    y1: y0 + h,
                });
            }
        }
        out
    }

    #[test]
    fn line_pixels_are_the_interior_lines_each_once() {
        for r in rects() {
            for s in [2, 4, 8, 16] {
                let n = r.line_pixel_count(s);
                let got: Vec<_> = (0..n).map(|i| r.line_pixel(s, i)).collect();
                let set: HashSet<_> = got.iter().copied().collect();
                assert_eq!(set.len() as u64, n, "{r:?} s={s}: duplicates");
                let want: HashSet<_> = (r.y0 + 1..r.y1)
                    .flat_map(|y| (r.x0 + 1..r.x1).map(move |x| (x, y)))
                    .filter(|&(x, y)| (x - r.x0) % s == 0 || (y - r.y0) % s == 0)
                    .collect();
                assert_eq!(set, want, "{r:?} s={s}");
            }
        }
    }

    #[test]
    fn grid_lines_are_the_border_and_the_lines_each_once() {
        for (w, h) in [
            (1, 1),
            (1, 7),
            (7, 1),
            (2, 2),
            (33, 17),
            (64, 65),
            (100, 37),
        ] {
            for s in [2, 8, 16, 32] {
                let g = GridLines {
                    width: w,
                    height: h,
                    s,
                };
                let n = g.pixel_count();
                let set: HashSet<_> = (0..n).map(|i| g.pixel(i)).collect();
                assert_eq!(set.len() as u64, n, "{w}x{h} s={s}: duplicates");
                let on = |v: u32, len: u32| v.is_multiple_of(s) || v == len - 1;
                let want: HashSet<_> = (0..h)
                    .flat_map(|y| (0..w).map(move |x| (x, y)))
                    .filter(|&(x, y)| on(x, w) || on(y, h))
                    .collect();
                assert_eq!(set, want, "{w}x{h} s={s}");
            }
        }
    }

    #[test]
    fn cells_tile_the_interior_with_shared_borders() {
        for r in rects() {
            for s in [2, 4, 8] {
                let mut covered = HashSet::new();
                for c in r.cells(s) {
                    assert!(c.x0 >= r.x0 && c.x1 <= r.x1 && c.y0 >= r.y0 && c.y1 <= r.y1);
                    let lines: HashSet<_> = (0..r.line_pixel_count(s))
                        .map(|i| r.line_pixel(s, i))
                        .collect();
                    for p in c.border() {
                        let on_parent = p.0 == r.x0 || p.0 == r.x1 || p.1 == r.y0 || p.1 == r.y1;
                        assert!(on_parent || lines.contains(&p), "{r:?} {c:?} {p:?}");
                    }
                    for i in 0..c.interior_pixels() {
                        assert!(covered.insert(c.interior_pixel(i)), "{c:?} overlaps");
                    }
                }
                let lines = r.line_pixel_count(s);
                assert_eq!(
                    covered.len() as u64 + lines,
                    r.interior_pixels(),
                    "{r:?} s={s}"
                );
            }
        }
    }

    #[test]
    fn coons_reproduces_bilinear_functions() {
        let r = Rect {
            x0: 4,
            y0: 8,
            x1: 20,
            y1: 16,
        };
        let f = |x: u32, y: u32| 2.0 + 0.5 * x as f32 - 0.25 * y as f32 + 0.01 * (x * y) as f32;
        for i in 0..r.interior_pixels() {
            let (x, y) = r.interior_pixel(i);
            assert!((coons(&r, (x, y), f) - f(x, y)).abs() < 1e-4, "({x}, {y})");
        }
    }

    #[test]
    fn border_visits_each_pixel_once() {
        for r in rects() {
            let v: Vec<_> = r.border().collect();
            let set: HashSet<_> = v.iter().copied().collect();
            assert_eq!(v.len(), set.len(), "{r:?}");
            let area = u64::from(r.x1 - r.x0 + 1) * u64::from(r.y1 - r.y0 + 1);
            assert_eq!(set.len() as u64 + r.interior_pixels(), area, "{r:?}");
        }
    }
}
