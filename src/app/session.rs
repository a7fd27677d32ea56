//! Settings ↔ the running app: what a session saves, and how a saved one is restored
//! (options given on the command line win over saved values).

use super::filter_stack::{unsaved_on_disk, FilterEntry, FilterStack};
use super::palette_editor::{
    palette_from_setting, palette_setting_name, restore_palettes, saved_palettes,
};
use super::settings::{
    exact_texts, saved_place, SavedEditor, SavedExplorer, SavedFilter, SavedHistogram, SavedWindow,
    Settings,
};
use super::state::{AppState, Tab};
use super::GuiArgs;
use crate::filters::FILTERS;
use crate::pipeline::Stage;
use crate::user_kernel::{KernelSource, KernelStage};
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
            source: e
                .filter
                .kernel()
                .filter(|k| unsaved_on_disk(k))
                .map(|k| k.source().text.clone()),
        })
        .collect()
}

/// Whether `entries` is a stack as older versions saved it: every registered filter
/// exactly once (the fixed list they showed).
fn is_fixed_list(entries: &[FilterEntry]) -> bool {
    let builtins: Vec<String> = entries
        .iter()
        .filter(|e| e.filter.kernel().is_none())
        .map(|e| e.filter.label())
        .collect();
    builtins.len() == FILTERS.len() && FILTERS.iter().all(|d| builtins.iter().any(|b| b == d.name))
}

/// The saved stack; entries that no longer parse are skipped and reported. A stack saved
/// as the older fixed list (every filter once, most of them off) keeps only what the
/// user made of it: the entries that are on or differ from the filter's defaults.
pub fn stack_from_saved(saved: &[SavedFilter]) -> (FilterStack, Vec<String>) {
    let mut notes = Vec::new();
    let mut entries: Vec<FilterEntry> = Vec::new();
    for s in saved {
        let parsed = match &s.source {
            // A kernel kept in the session: its source as it was, not its file's.
            Some(text) => KernelSource::parse(text)
                .map_err(|e| e.to_string())
                .and_then(|source| {
                    KernelStage::from_spec_with_source(&s.spec, source).map_err(|e| e.to_string())
                })
                .map(Stage::Kernel),
            None => s.spec.parse::<Stage>().map_err(|e| e.to_string()),
        };
        match parsed {
            Ok(filter) => entries.push(FilterEntry {
                enabled: s.enabled,
                filter,
                auto_derived: s.auto_radius,
            }),
            Err(e) => notes.push(format!("saved filter '{}' skipped: {e}", s.spec)),
        }
    }
    if is_fixed_list(&entries) {
        entries.retain(|e| {
            let untouched = e.filter.filter().is_some_and(|f| {
                FilterEntry::of_def(f.def()).is_some_and(|d| d.filter == e.filter)
            });
            e.enabled || !untouched
        });
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
        let exact = exact_texts(m);
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
                distance: m.coloring.distance,
                density: m.coloring.density,
                offset: m.coloring.offset,
                zoom_per_second: self.mandelbrot.navigator.zoom_per_second,
                deep_center: exact.as_ref().map(|e| e.0.clone()),
                deep_span: exact.map(|e| e.1),
                fractal: m.view.fractal.text(),
                user_palettes: saved_palettes(&self.mandelbrot.user_palettes),
                bla: m.bla,
            },
            bookmarks: self.mandelbrot.user_bookmarks.clone(),
            save_dir: self.save_dir.clone(),
            jpeg_quality: Some(self.jpeg_quality),
            kernel_editor: self
                .kernel_editor
                .unsaved()
                .map(|(path, text)| SavedEditor {
                    path: path.to_path_buf(),
                    text: text.to_string(),
                }),
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
            if let Some(e) = &s.kernel_editor {
                let stage = self
                    .stack
                    .entries
                    .iter()
                    .find_map(|x| x.filter.kernel().filter(|k| k.path() == e.path.as_path()));
                if let Some(stage) = stage {
                    self.kernel_editor.open_on(stage);
                    self.kernel_editor.type_text(e.text.clone());
                }
            }
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
        if let Some(q) = s.jpeg_quality.filter(|q| (1..=100).contains(q)) {
            self.jpeg_quality = q;
        }
        let e = &s.explorer;
        let m = &mut self.mandelbrot.settings;
        // A --bookmark or --julia given on the command line chose the place (and its max
        // dwell).
        if args.bookmark.is_none() && args.julia.is_none() {
            let exact = (e.deep_center.as_deref(), e.deep_span.as_deref());
            match saved_place(e.center, e.span, exact, e.max_dwell) {
                Ok(place) => m.set_place(&place),
                Err(err) => notes.push(format!("saved explorer view skipped: {err}")),
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
        m.bla = e.bla;
        m.coloring.smooth = e.smooth || args.smooth;
        let range = crate::mandelbrot::DISTANCE_WIDTH_RANGE;
        m.coloring.distance = e
            .distance
            .filter(|px| px.is_finite())
            .map(|px| px.clamp(*range.start(), *range.end()));
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
    fn a_stack_survives_saving_with_order_parameters_switches_and_repeats() {
        let mut stack = FilterStack::new(&[
            f("sobel:scale=3"),
            f("transpose"),
            f("box:radius=2"),
            f("box:radius=7"),
        ]);
        stack.entries.swap(0, 3);
        stack.entries[1].enabled = false;
        let (back, notes) = stack_from_saved(&stack_to_saved(&stack));
        assert!(notes.is_empty(), "{notes:?}");
        assert_eq!(back, stack);
    }

    /// The stack as older versions saved it: every filter once, in registry order, off with
    /// its defaults, except those the user turned on or tuned.
    fn fixed_list(on: &[&'static str], tuned_off: &[&'static str]) -> Vec<SavedFilter> {
        FILTERS
            .iter()
            .map(|d| {
                let own = |list: &[&'static str]| -> Option<&'static str> {
                    list.iter().find(|s| s.starts_with(d.name)).copied()
                };
                let (spec, enabled) = match (own(on), own(tuned_off)) {
                    (Some(s), _) => (s.to_string(), true),
                    (None, Some(s)) => (s.to_string(), false),
                    (None, None) => (d.ui_default.to_string(), false),
                };
                SavedFilter {
                    spec,
                    enabled,
                    auto_radius: true,
                    source: None,
                }
            })
            .collect()
    }

    #[test]
    fn an_older_fixed_list_keeps_only_what_the_user_made_of_it() {
        let saved = fixed_list(&["sobel:scale=2"], &["median:radius=3"]);
        let (stack, notes) = stack_from_saved(&saved);
        assert!(notes.is_empty(), "{notes:?}");
        let kept: Vec<(String, bool)> = stack
            .entries
            .iter()
            .map(|e| (e.filter.to_string(), e.enabled))
            .collect();
        let want: Vec<(String, bool)> = saved
            .iter()
            .filter(|s| s.enabled || s.spec.starts_with("median"))
            .map(|s| (f(&s.spec).to_string(), s.enabled))
            .collect();
        assert_eq!(kept, want);
        assert_eq!(stack.active(), vec![f("sobel:scale=2")]);
        // A stack of today that repeats a filter is not taken for the older list.
        let mut repeated = saved.clone();
        repeated.push(saved[0].clone());
        let (stack, _) = stack_from_saved(&repeated);
        assert_eq!(stack.entries.len(), repeated.len());
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
    fn kernel_sources_not_on_disk_are_kept_in_the_session_and_restored() {
        let dir = tempfile::tempdir().expect("tempdir");
        let saved_file = dir.path().join("saved.cu");
        let text = "// @param int n 0..9 = 2\nuchar4 pixel(int x, int y, Image i, Params p) { return read(i, x, y); }\n";
        std::fs::write(&saved_file, text).expect("write");
        let on_disk = f(&format!("kernel:{},n=5", saved_file.display()));
        // An example's copy, never written; and a saved kernel edited since.
        let never = dir.path().join("my_example.cu");
        let source = |t: &str| KernelSource::parse(t).expect("parses");
        let unwritten = Stage::Kernel(KernelStage::from_source(&never, source(text)));
        let edited_text = text.replace("= 2", "= 3");
        let edited = match &on_disk {
            Stage::Kernel(k) => Stage::Kernel(k.with_source(source(&edited_text))),
            Stage::Filter(_) => unreachable!(),
        };
        let stack = FilterStack::new(&[on_disk, unwritten, edited]);
        let saved = stack_to_saved(&stack);
        let sources: Vec<Option<&str>> = saved.iter().map(|s| s.source.as_deref()).collect();
        assert_eq!(sources, [None, Some(text), Some(edited_text.as_str())]);
        // The next start: the file of the edited one still holds the old text.
        let (back, notes) = stack_from_saved(&saved);
        assert!(notes.is_empty(), "{notes:?}");
        assert_eq!(back, stack);
        assert_eq!(back.unsaved_kernels().len(), 2);
        assert!(!never.exists(), "restoring writes nothing");
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
    fn unknown_filters_are_skipped_and_nothing_is_added() {
        let saved = vec![
            SavedFilter {
                spec: "box:radius=9".into(),
                enabled: true,
                auto_radius: false,
                source: None,
            },
            SavedFilter {
                spec: "vignette:strength=2".into(),
                enabled: true,
                auto_radius: false,
                source: None,
            },
        ];
        let (stack, notes) = stack_from_saved(&saved);
        assert_eq!(notes.len(), 1, "{notes:?}");
        assert_eq!(stack.active(), vec![f("box:radius=9")]);
        assert_eq!(stack.entries.len(), 1);
    }
}
