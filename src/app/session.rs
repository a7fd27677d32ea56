//! Settings ↔ the running app: what a session saves, and how a saved one is restored
//! (options given on the command line win over saved values).

use super::filter_stack::{FilterEntry, FilterStack};
use super::palette_editor::{
    palette_from_setting, palette_setting_name, restore_palettes, saved_palettes,
};
use super::settings::{SavedExplorer, SavedFilter, SavedHistogram, SavedWindow, Settings};
use super::state::{AppState, Tab};
use super::GuiArgs;
use crate::pipeline::Stage;
use clap::ValueEnum;

/// The stack as specification strings.
pub fn stack_to_saved(stack: &FilterStack) -> Vec<SavedFilter> {
    stack
        .entries
        .iter()
        .map(|e| SavedFilter {
            spec: e.filter.to_string(),
            enabled: e.enabled,
            auto_radius: e.auto_derived,
        })
        .collect()
}

/// The saved stack, with the filters it lacks appended (off) as in a new stack; entries
/// that no longer parse are skipped and reported.
pub fn stack_from_saved(saved: &[SavedFilter]) -> (FilterStack, Vec<String>) {
    let mut notes = Vec::new();
    let mut entries: Vec<FilterEntry> = Vec::new();
    for s in saved {
        match s.spec.parse::<Stage>() {
            Ok(filter) => entries.push(FilterEntry {
                enabled: s.enabled,
                filter,
                auto_derived: s.auto_radius,
            }),
            Err(e) => notes.push(format!("saved filter '{}' skipped: {e}", s.spec)),
        }
    }
    for default in FilterStack::new(&[]).entries {
        if !entries
            .iter()
            .any(|e| e.filter.label() == default.filter.label())
        {
            entries.push(default);
        }
    }
    (FilterStack { entries }, notes)
}

fn name_of<T: ValueEnum>(value: T) -> String {
    value
        .to_possible_value()
        .map(|v| v.get_name().to_string())
        .unwrap_or_default()
}

/// `name` as a value of `T`, or a note and `current` unchanged.
fn restore_named<T: ValueEnum>(current: &mut T, name: &str, what: &str, notes: &mut Vec<String>) {
    match T::from_str(name, true) {
        Ok(v) => *current = v,
        Err(_) => notes.push(format!(
            "saved {what} '{name}' is unknown; kept the default"
        )),
    }
}

impl AppState {
    /// The session as it is now; `window` is the window's geometry.
    pub fn settings(&self, window: SavedWindow) -> Settings {
        let m = &self.mandelbrot.settings;
        // A view past f64 keeps its exact location.
        let deep = m.deep.filter(|d| d.matches_f64(&m.view));
        Settings {
            tab: match self.tab {
                Tab::Image => "image",
                Tab::Mandelbrot => "mandelbrot",
            }
            .into(),
            filters: stack_to_saved(&self.stack),
            split: self.view.split,
            histogram: SavedHistogram {
                log_scale: self.histogram.log_scale,
                channels: self.histogram.channels,
            },
            window,
            explorer: SavedExplorer {
                center: [m.view.center.0, m.view.center.1],
                span: m.view.span,
                max_dwell: m.view.max_dwell,
                palette: palette_setting_name(&m.coloring.palette),
                mode: name_of(m.mode),
                refinement: name_of(m.refinement),
                precision: name_of(m.precision),
                overlay: m.overlay,
                interior: m.coloring.interior,
                smooth: m.coloring.smooth,
                density: m.coloring.density,
                offset: m.coloring.offset,
                zoom_per_second: self.mandelbrot.navigator.zoom_per_second,
                deep_center: deep.map(|d| format!("{},{}", d.re.scientific(), d.im.scientific())),
                deep_span: deep.map(|d| d.span.scientific()),
                fractal: m.view.fractal.text(),
                user_palettes: saved_palettes(&self.mandelbrot.user_palettes),
            },
            bookmarks: self.mandelbrot.user_bookmarks.clone(),
            save_dir: self.save_dir.clone(),
            ..Settings::default()
        }
    }

    /// Restores `s` where the command line did not say otherwise (a file named there opens
    /// in the image tab); returns what could not be restored.
    pub fn restore(&mut self, s: &Settings, args: &GuiArgs, explicit_file: bool) -> Vec<String> {
        let mut notes = Vec::new();
        if args.filters.is_empty() {
            let (stack, stack_notes) = stack_from_saved(&s.filters);
            self.stack = stack;
            self.history.reset(&self.stack);
            notes.extend(stack_notes);
        }
        if !args.split {
            self.view.split = s.split.filter(|f| (0.0..=1.0).contains(f));
        }
        if !args.mandelbrot && !explicit_file && s.tab == "mandelbrot" {
            self.tab = Tab::Mandelbrot;
        }
        self.histogram.log_scale = s.histogram.log_scale;
        self.histogram.channels = s.histogram.channels;
        self.save_dir = s.save_dir.clone().filter(|d| d.is_dir());
        let e = &s.explorer;
        let m = &mut self.mandelbrot.settings;
        // A --bookmark or --julia given on the command line chose the place (and its max
        // dwell).
        if args.bookmark.is_none() && args.julia.is_none() {
            if e.span.is_finite() && e.span > 0.0 && e.center.iter().all(|c| c.is_finite()) {
                (m.view.center, m.view.span) = ((e.center[0], e.center[1]), e.span);
            } else {
                notes.push("saved explorer view is invalid; kept the default".into());
            }
            m.view.max_dwell = e.max_dwell.clamp(16, crate::mandelbrot::MAX_DWELL_LIMIT);
            if let (Some(c), Some(sp)) = (&e.deep_center, &e.deep_span) {
                match crate::mandelbrot::deep::DeepLocation::parse(c, sp) {
                    Ok(loc) => m.set_location(loc),
                    Err(err) => notes.push(format!("saved deep view skipped: {err}")),
                }
            }
            match crate::mandelbrot::Fractal::parse(&e.fractal) {
                Ok(f) => m.view.fractal = f,
                Err(err) => notes.push(format!("saved fractal skipped: {err}")),
            }
        }
        self.mandelbrot.user_palettes = restore_palettes(&e.user_palettes, &mut notes);
        match palette_from_setting(&e.palette, &self.mandelbrot.user_palettes) {
            Some(p) => m.coloring.palette = p,
            None => notes.push(format!(
                "saved palette '{}' is unknown; kept the default",
                e.palette
            )),
        }
        restore_named(&mut m.mode, &e.mode, "mode", &mut notes);
        if args.refinement.is_none() {
            restore_named(&mut m.refinement, &e.refinement, "refinement", &mut notes);
        }
        restore_named(&mut m.precision, &e.precision, "precision", &mut notes);
        m.overlay |= e.overlay;
        m.coloring.interior = e.interior;
        m.coloring.smooth = e.smooth;
        if e.density.is_finite() {
            m.coloring.density = e.density.clamp(
                *crate::mandelbrot::DENSITY_RANGE.start(),
                *crate::mandelbrot::DENSITY_RANGE.end(),
            );
        }
        if e.offset.is_finite() {
            m.coloring.offset = e.offset.clamp(0.0, 1.0);
        }
        if e.zoom_per_second.is_finite() {
            self.mandelbrot.navigator.zoom_per_second = e.zoom_per_second.clamp(1.2, 16.0);
        }
        self.mandelbrot.user_bookmarks = s.bookmarks.clone();
        self.mandelbrot.dirty = true;
        self.dirty = true;
        notes
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn f(spec: &str) -> Stage {
        spec.parse().expect("spec")
    }

    #[test]
    fn a_stack_survives_saving_with_order_parameters_and_switches() {
        let mut stack = FilterStack::new(&[f("sobel:scale=3"), f("transpose")]);
        stack.entries.swap(0, 3);
        stack.entries[1].enabled = false;
        let (back, notes) = stack_from_saved(&stack_to_saved(&stack));
        assert!(notes.is_empty(), "{notes:?}");
        assert_eq!(back, stack);
    }

    #[test]
    fn kernel_stages_survive_saving_and_a_missing_file_is_a_note() {
        let dir = tempfile::tempdir().expect("tempdir");
        let kernel = dir.path().join("k.cu");
        std::fs::write(
            &kernel,
            "// @param int n 0..9 = 2\nuchar4 pixel(int x, int y, Image i, Params p) { return read(i, x, y); }\n",
        )
        .expect("write");
        let k = f(&format!("kernel:{},n=7", kernel.display()));
        let mut stack = FilterStack::new(&[f("sobel:scale=3"), k.clone()]);
        stack.entries.swap(0, 1);
        let saved = stack_to_saved(&stack);
        let (back, notes) = stack_from_saved(&saved);
        assert!(notes.is_empty(), "{notes:?}");
        assert_eq!(back, stack);
        assert_eq!(back.active()[0], k);
        std::fs::remove_file(&kernel).expect("remove");
        let (back, notes) = stack_from_saved(&saved);
        assert_eq!(notes.len(), 1, "{notes:?}");
        assert!(notes[0].contains("k.cu"), "{notes:?}");
        assert_eq!(back.entries.len(), stack.entries.len() - 1);
    }

    #[test]
    fn refinements_are_saved_by_name_and_an_unknown_name_keeps_the_default() {
        use crate::mandelbrot::Refinement;
        for r in Refinement::ALL {
            let mut back = Refinement::default();
            let mut notes = Vec::new();
            restore_named(&mut back, &name_of(r), "refinement", &mut notes);
            assert_eq!((back, notes.len()), (r, 0));
        }
        assert_eq!(name_of(Refinement::ChildGrids), "child-grids");
        let mut kept = Refinement::Nested;
        let mut notes = Vec::new();
        restore_named(&mut kept, "quadtree", "refinement", &mut notes);
        assert_eq!(kept, Refinement::Nested);
        assert_eq!(
            notes,
            ["saved refinement 'quadtree' is unknown; kept the default"]
        );
    }

    #[test]
    fn unknown_filters_are_skipped_and_missing_ones_added() {
        let saved = vec![
            SavedFilter {
                spec: "box:radius=9".into(),
                enabled: true,
                auto_radius: false,
            },
            SavedFilter {
                spec: "vignette:strength=2".into(),
                enabled: true,
                auto_radius: false,
            },
        ];
        let (stack, notes) = stack_from_saved(&saved);
        assert_eq!(notes.len(), 1, "{notes:?}");
        assert_eq!(stack.active(), vec![f("box:radius=9")]);
        assert_eq!(stack.entries.len(), FilterStack::new(&[]).entries.len());
    }
}
