//! The Brightness/Contrast state, free of egui: the image's statistics, the display
//! settings, and the edits the panel makes (sliders, Auto, Reset, Set, gamma, channels,
//! LUT), as ImageJ's `ContrastAdjuster` makes them.

use super::mapping::{DisplayRange, DisplaySettings, Lut};
use super::sliders::{Positions, Sliders};
use super::stats::{auto_adjust, AutoOutcome, DisplayHistogram};
use super::DisplayError;
use crate::pixels::{PixelImage, SampleType};

/// Which colour channels the panel edits.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum ChannelChoice {
    All,
    Red,
    Green,
    Blue,
}

impl ChannelChoice {
    pub const ALL: [ChannelChoice; 4] = [
        ChannelChoice::All,
        ChannelChoice::Red,
        ChannelChoice::Green,
        ChannelChoice::Blue,
    ];

    pub fn name(self) -> &'static str {
        match self {
            ChannelChoice::All => "all",
            ChannelChoice::Red => "R",
            ChannelChoice::Green => "G",
            ChannelChoice::Blue => "B",
        }
    }

    fn index(self) -> Option<usize> {
        match self {
            ChannelChoice::All => None,
            ChannelChoice::Red => Some(0),
            ChannelChoice::Green => Some(1),
            ChannelChoice::Blue => Some(2),
        }
    }
}

/// One of the four sliders.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Slider {
    Min,
    Max,
    Brightness,
    Contrast,
}

/// Index of the statistics of all colour channels together.
const COMBINED: usize = 3;

/// Brightness/Contrast of one image.
///
/// Linked: one window for every colour channel, from the statistics of all of them.
/// Unlinked: R, G or B edits that channel from its own statistics; "all" edits each
/// channel from its own (Auto and Reset per channel; a slider puts every channel at the
/// same position of its own scale; Set gives them the same window).
#[derive(Debug, Clone)]
pub struct BrightnessContrast {
    settings: DisplaySettings,
    channel: ChannelChoice,
    sample_type: SampleType,
    grey: bool,
    /// Per colour channel (grey: the first), then all colour channels together.
    histograms: Vec<DisplayHistogram>,
    sliders: Vec<Sliders>,
    auto_state: u32,
}

impl BrightnessContrast {
    /// The statistics of `image` and its default display (ImageJ's: 8-bit 0..255, 16-bit
    /// and float the data's min..max), linked.
    pub fn for_image(image: &PixelImage) -> Self {
        let grey = image.channels() == 1;
        let colour: &[usize] = if grey { &[0] } else { &[0, 1, 2] };
        let mut histograms: Vec<DisplayHistogram> = colour
            .iter()
            .map(|&c| DisplayHistogram::of(image, &[c]))
            .collect();
        let combined = if grey {
            histograms[0].clone()
        } else {
            DisplayHistogram::of(image, colour)
        };
        histograms.resize(COMBINED, combined.clone());
        histograms.push(combined);
        let sample_type = image.sample_type();
        let sliders = histograms
            .iter()
            .map(|h| {
                let (lo, hi) = default_range(sample_type, h);
                Sliders::new(lo, hi, lo, hi)
            })
            .collect();
        let mut bc = Self {
            settings: DisplaySettings::linked(DisplayRange::new(0.0, 255.0)),
            channel: ChannelChoice::All,
            sample_type,
            grey,
            histograms,
            sliders,
            auto_state: 0,
        };
        bc.reset();
        bc
    }

    pub fn settings(&self) -> &DisplaySettings {
        &self.settings
    }
    pub fn channel(&self) -> ChannelChoice {
        self.channel
    }
    pub fn is_grey(&self) -> bool {
        self.grey
    }
    pub fn sample_type(&self) -> SampleType {
        self.sample_type
    }

    /// The channels an edit changes.
    fn targets(&self) -> Vec<usize> {
        match self.channel.index() {
            Some(c) if !self.grey && !self.settings.linked => vec![c],
            _ if self.grey => vec![0],
            _ => vec![0, 1, 2],
        }
    }

    /// The statistics channel `c` is edited from.
    fn stats_index(&self, c: usize) -> usize {
        if self.settings.linked {
            COMBINED
        } else {
            c
        }
    }

    /// The histogram the panel shows (all colour channels together unless one is chosen).
    pub fn histogram(&self) -> &DisplayHistogram {
        let i = match self.channel.index() {
            Some(c) if !self.grey && !self.settings.linked => c,
            _ => COMBINED,
        };
        &self.histograms[i]
    }

    /// The edited window and gamma (the first edited channel's).
    pub fn range(&self) -> DisplayRange {
        self.settings.ranges[self.targets()[0]]
    }

    /// The first edited channel's sliders and their positions.
    pub fn positions(&self) -> (Sliders, Positions) {
        let c = self.targets()[0];
        let s = self.sliders[self.stats_index(c)];
        let r = self.settings.ranges[c];
        (s, s.positions(r.min, r.max))
    }

    /// Moves `slider` to `pos` (ImageJ's relations, per edited channel).
    pub fn slide(&mut self, slider: Slider, pos: i32) {
        for c in self.targets() {
            let s = self.sliders[self.stats_index(c)];
            let r = &mut self.settings.ranges[c];
            let window = (r.min, r.max);
            (r.min, r.max) = match slider {
                Slider::Min => s.with_min(pos, window),
                Slider::Max => s.with_max(pos, window),
                Slider::Brightness => s.with_brightness(pos, window),
                Slider::Contrast => s.with_contrast(pos, window),
            };
        }
    }

    /// The default window of every edited channel; Auto starts over.
    pub fn reset(&mut self) {
        for c in self.targets() {
            let (lo, hi) = default_range(self.sample_type, &self.histograms[self.stats_index(c)]);
            let r = &mut self.settings.ranges[c];
            (r.min, r.max) = (lo, hi);
        }
        self.auto_state = 0;
    }

    /// ImageJ's Auto (each press saturates more; see [`auto_adjust`]).
    pub fn auto(&mut self) {
        let before = self.auto_state;
        let mut reset = false;
        for c in self.targets() {
            let mut state = before;
            match auto_adjust(&self.histograms[self.stats_index(c)], &mut state) {
                AutoOutcome::Range { min, max } => {
                    let r = &mut self.settings.ranges[c];
                    (r.min, r.max) = (min, max);
                }
                AutoOutcome::Reset => reset = true,
            }
            self.auto_state = state;
        }
        if reset {
            self.reset();
        }
    }

    /// Set: the window `min..max` (image units) for every edited channel.
    pub fn set(&mut self, min: f64, max: f64) -> Result<(), DisplayError> {
        if !min.is_finite() || !max.is_finite() {
            return Err(DisplayError::NotFinite);
        }
        if max < min {
            return Err(DisplayError::Inverted { min, max });
        }
        for c in self.targets() {
            let r = &mut self.settings.ranges[c];
            (r.min, r.max) = (min, max);
        }
        Ok(())
    }

    /// The gamma of every edited channel.
    pub fn set_gamma(&mut self, gamma: f64) -> Result<(), DisplayError> {
        if !(gamma.is_finite() && gamma > 0.0) {
            return Err(DisplayError::Gamma(gamma));
        }
        for c in self.targets() {
            self.settings.ranges[c].gamma = gamma;
        }
        Ok(())
    }

    /// Links the colour channels (all take the edited channel's window) or unlinks them.
    pub fn set_linked(&mut self, linked: bool) {
        if linked && !self.settings.linked {
            self.settings.ranges = [self.range(); 3];
            self.channel = ChannelChoice::All;
        }
        self.settings.linked = linked;
    }

    /// Which channels the next edits change (colour images, unlinked).
    pub fn set_channel(&mut self, channel: ChannelChoice) {
        self.channel = channel;
    }

    /// The colour table of a grey image.
    pub fn set_lut(&mut self, lut: Lut) {
        self.settings.lut = lut;
    }
}

/// ImageJ's default display range: 8-bit 0..255, else the data's min..max.
fn default_range(sample_type: SampleType, h: &DisplayHistogram) -> (f64, f64) {
    match sample_type {
        SampleType::U8 => (0.0, 255.0),
        _ => (h.min, h.max),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::pixels::ImageBuf;

    fn rgb16() -> PixelImage {
        // R 1000..1999, G 0..999, B 30000..30999 over a 100×10 image.
        let b = ImageBuf::<u16>::from_fn(100, 10, 3, |x, y, c| {
            let i = (y * 100 + x) as u16;
            [1000 + i, i, 30000 + i][usize::from(c)]
        });
        PixelImage::U16(b.expect("size"))
    }

    #[test]
    fn defaults_are_imagejs() {
        let bc = BrightnessContrast::for_image(&rgb16());
        assert!(bc.settings().linked);
        assert_eq!((bc.range().min, bc.range().max), (0.0, 30999.0));
        let eight = PixelImage::U8(ImageBuf::from_vec(2, 1, 1, vec![10, 20]).expect("size"));
        let bc = BrightnessContrast::for_image(&eight);
        assert_eq!((bc.range().min, bc.range().max), (0.0, 255.0));
        assert!(bc.is_grey());
    }

    #[test]
    fn unlinked_channels_keep_their_own_windows() {
        let mut bc = BrightnessContrast::for_image(&rgb16());
        bc.set_linked(false);
        bc.reset(); // "all", unlinked: each channel its own min..max
        let r = bc.settings().ranges;
        assert_eq!([r[0].min, r[1].min, r[2].min], [1000.0, 0.0, 30000.0]);
        assert_eq!([r[0].max, r[1].max, r[2].max], [1999.0, 999.0, 30999.0]);
        bc.set_channel(ChannelChoice::Green);
        bc.set(100.0, 200.0).expect("set");
        bc.set_gamma(2.0).expect("gamma");
        let r = bc.settings().ranges;
        assert_eq!((r[1].min, r[1].max, r[1].gamma), (100.0, 200.0, 2.0));
        assert_eq!((r[0].min, r[2].max, r[0].gamma), (1000.0, 30999.0, 1.0));
        assert_eq!(bc.histogram().min, 0.0);
        // Linking again gives every channel the edited one's window.
        bc.set_linked(true);
        assert!(bc
            .settings()
            .ranges
            .iter()
            .all(|r| (r.min, r.max) == (100.0, 200.0)));
        assert_eq!(bc.channel(), ChannelChoice::All);
    }

    #[test]
    fn set_refuses_bad_windows() {
        let mut bc = BrightnessContrast::for_image(&rgb16());
        assert_eq!(
            bc.set(5.0, 1.0),
            Err(DisplayError::Inverted { min: 5.0, max: 1.0 })
        );
        assert_eq!(bc.set(f64::NAN, 1.0), Err(DisplayError::NotFinite));
        assert_eq!(bc.set_gamma(0.0), Err(DisplayError::Gamma(0.0)));
        assert!(
            bc.set(7.0, 7.0).is_ok(),
            "a zero-width window is a threshold"
        );
    }

    #[test]
    fn sliders_and_auto_edit_the_window() {
        let ramp = ImageBuf::<u16>::from_fn(100, 100, 1, |x, y, _| (y * 100 + x) as u16 * 3);
        let mut bc = BrightnessContrast::for_image(&PixelImage::U16(ramp.expect("size")));
        let (s, p) = bc.positions();
        assert_eq!(
            (s.default_min, s.default_max, s.steps),
            (0.0, 29997.0, 1024)
        );
        assert_eq!(
            (p.min, p.max, p.contrast, p.brightness),
            (0, 1023, 512, 512)
        );
        bc.slide(Slider::Contrast, 768); // slope 2: half the width about the centre
        let r = bc.range();
        assert_eq!((r.min, r.max), (29997.0 / 4.0, 29997.0 * 3.0 / 4.0));
        bc.slide(Slider::Brightness, 768); // centre a quarter up the range
        let r = bc.range();
        assert!((r.min + r.max - 29997.0 / 2.0).abs() < 1e-9);
        bc.reset();
        bc.auto(); // a flat ramp: threshold 2 of ~39 per bin, the whole range
        assert_eq!(
            (bc.range().min, bc.histogram().bin_size),
            (0.0, 29997.0 / 256.0)
        );
        assert_eq!(bc.range().max, bc.histogram().value_of_bin(255));
    }
}
