//! ImageJ's Brightness/Contrast sliders (`ij.plugin.frame.ContrastAdjuster`): integer
//! positions `0..steps` over the default range, and how each slider moves the window.
//! Minimum and maximum place an end; brightness moves the window's centre, keeping its
//! width; contrast scales the width about the centre (slope 1 at mid-scale: the default
//! width).

/// The sliders of one channel: the default range they span and their step count.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Sliders {
    pub default_min: f64,
    pub default_max: f64,
    /// ImageJ's `sliderRange`: 256..1024 (1706 for narrow windows on wide data).
    pub steps: i32,
}

/// Where the four sliders stand for a window.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Positions {
    pub min: i32,
    pub max: i32,
    pub brightness: i32,
    pub contrast: i32,
}

impl Sliders {
    /// Sliders over `default_min..default_max` for the window `min..max` (ImageJ's
    /// `setupNewImage`: more steps for wider integer data).
    pub fn new(default_min: f64, default_max: f64, min: f64, max: f64) -> Self {
        let default_max = if default_max > default_min {
            default_max
        } else {
            default_min + 1.0
        };
        let value_range = (default_max - default_min) as i32;
        let mut steps = match value_range {
            r if r > 640 && r < 1280 => r / 2,
            r if r >= 1280 => r / 5,
            r => r,
        }
        .clamp(256, 1024);
        if value_range >= 1280 && (max - min) / f64::from(value_range) < 0.25 {
            steps = (f64::from(steps) * 1.6666) as i32;
        }
        Self {
            default_min,
            default_max,
            steps,
        }
    }

    fn span(&self) -> f64 {
        self.default_max - self.default_min
    }

    /// ImageJ's `sliderRange / 2` (integer division).
    fn mid(&self) -> f64 {
        f64::from(self.steps / 2)
    }

    /// The slider positions showing the window `min..max` (ImageJ's `updateScrollBars`).
    pub fn positions(&self, min: f64, max: f64) -> Positions {
        let mid = self.mid();
        let mut c = self.span() / (max - min) * mid;
        if c > mid || !c.is_finite() {
            c = f64::from(self.steps) - (max - min) / self.span() * mid;
        }
        let level = min + (max - min) / 2.0;
        let brightness = (1.0 - (level - self.default_min) / self.span()) * f64::from(self.steps);
        Positions {
            min: self.scale_down(min),
            max: self.scale_down(max),
            brightness: brightness as i32,
            contrast: c as i32,
        }
    }

    fn scale_down(&self, v: f64) -> i32 {
        let v = v.clamp(self.default_min, self.default_max);
        ((v - self.default_min) * (f64::from(self.steps) - 1.0) / self.span()) as i32
    }

    fn scale_up(&self, pos: i32) -> f64 {
        self.default_min + f64::from(pos) * self.span() / (f64::from(self.steps) - 1.0)
    }

    /// The minimum slider at `pos`: a new lower end (the upper one follows if passed).
    pub fn with_min(&self, pos: i32, (_, max): (f64, f64)) -> (f64, f64) {
        let min = self.scale_up(pos);
        let max = max.min(self.default_max);
        (min, max.max(min))
    }

    /// The maximum slider at `pos`: a new upper end (the lower one follows if passed).
    pub fn with_max(&self, pos: i32, (min, _): (f64, f64)) -> (f64, f64) {
        let max = self.scale_up(pos);
        let min = min.max(self.default_min);
        (min.min(max), max)
    }

    /// The brightness slider at `pos`: the window's centre moves, its width stays.
    pub fn with_brightness(&self, pos: i32, (min, max): (f64, f64)) -> (f64, f64) {
        let steps = f64::from(self.steps);
        let centre = self.default_min + self.span() * ((steps - f64::from(pos)) / steps);
        let half = (max - min) / 2.0;
        (centre - half, centre + half)
    }

    /// The contrast slider at `pos`: the width becomes the default width / slope about the
    /// same centre (slope `pos / mid` below mid-scale, `mid / (steps − pos)` above).
    pub fn with_contrast(&self, pos: i32, (min, max): (f64, f64)) -> (f64, f64) {
        let mid = self.mid();
        let p = f64::from(pos);
        let slope = if p <= mid {
            p / mid
        } else {
            mid / (f64::from(self.steps) - p)
        };
        if slope <= 0.0 {
            return (min, max);
        }
        let centre = min + (max - min) / 2.0;
        let half = 0.5 * self.span() / slope;
        (centre - half, centre + half)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn step_counts_follow_the_data_range() {
        assert_eq!(Sliders::new(0.0, 255.0, 0.0, 255.0).steps, 256);
        assert_eq!(Sliders::new(0.0, 1.0, 0.0, 1.0).steps, 256, "float data");
        assert_eq!(Sliders::new(0.0, 1000.0, 0.0, 1000.0).steps, 500);
        assert_eq!(Sliders::new(0.0, 4095.0, 0.0, 4095.0).steps, 819);
        assert_eq!(Sliders::new(0.0, 65535.0, 0.0, 65535.0).steps, 1024);
        // A window under a quarter of wide data: 1024 · 1.6666.
        assert_eq!(Sliders::new(0.0, 65535.0, 100.0, 2000.0).steps, 1706);
    }

    #[test]
    fn the_default_window_sits_mid_scale() {
        let s = Sliders::new(0.0, 255.0, 0.0, 255.0);
        assert_eq!(
            s.positions(0.0, 255.0),
            Positions {
                min: 0,
                max: 255,
                brightness: 128,
                contrast: 128
            }
        );
        // Contrast at mid-scale is slope 1: the default width about the centre.
        assert_eq!(s.with_contrast(128, (0.0, 255.0)), (0.0, 255.0));
    }

    #[test]
    fn sliders_move_the_window_as_imagej() {
        let s = Sliders::new(1000.0, 5000.0, 1000.0, 5000.0);
        assert_eq!(s.steps, 800);
        // Minimum at 399 of 799: 1000 + 399 · 4000 / 799.
        let (min, max) = s.with_min(399, (1000.0, 5000.0));
        assert!((min - (1000.0 + 399.0 * 4000.0 / 799.0)).abs() < 1e-9 && max == 5000.0);
        // Passing the other end drags it along.
        assert_eq!(s.with_min(799, (1000.0, 3000.0)), (5000.0, 5000.0));
        assert_eq!(s.with_max(0, (2000.0, 3000.0)), (1000.0, 1000.0));
        // Brightness: centre = 1000 + 4000 · (800 − 600) / 800 = 2000, width kept (1000).
        assert_eq!(s.with_brightness(600, (3000.0, 4000.0)), (1500.0, 2500.0));
        // Contrast 200 of mid 400: slope 0.5, width 8000 about 3000; 600: slope 2, width 2000.
        assert_eq!(s.with_contrast(200, (2000.0, 4000.0)), (-1000.0, 7000.0));
        assert_eq!(s.with_contrast(600, (0.0, 6000.0)), (2000.0, 4000.0));
        // And the positions read back (ImageJ truncates: 1000 · 799 / 4000 = 199.75).
        let p = s.positions(2000.0, 4000.0);
        assert_eq!((p.contrast, p.brightness), (600, 400));
        assert_eq!((p.min, p.max), (199, 599));
    }

    #[test]
    fn brightness_and_contrast_round_trip_through_their_positions() {
        let s = Sliders::new(0.0, 65535.0, 0.0, 65535.0);
        for pos in [50, 300, 512, 700, 1000] {
            let w = s.with_contrast(pos, (10000.0, 30000.0));
            assert!(
                (s.positions(w.0, w.1).contrast - pos).abs() <= 1,
                "contrast {pos}"
            );
            let w = s.with_brightness(pos, (10000.0, 30000.0));
            assert!(
                (s.positions(w.0, w.1).brightness - pos).abs() <= 1,
                "brightness {pos}"
            );
        }
    }
}
