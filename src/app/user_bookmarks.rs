//! The user's own explorer bookmarks (saved with the settings): add the current view (of
//! the Mandelbrot set or of a Julia set) under a name, go back to one, show the Julia set of
//! one's centre, delete one.

use super::settings::{exact_texts, saved_place, UserBookmark};
use crate::mandelbrot::deep::DeepError;
#[cfg(test)]
use crate::mandelbrot::deep::DeepLocation;
use crate::mandelbrot::{Fractal, JuliaC, MandelbrotSettings, Place};
use egui::Ui;

/// What a click in the bookmarks asks for.
#[derive(Debug, Clone, PartialEq)]
pub enum BookmarkAction {
    /// Go to a place of a fractal.
    Go(Box<Place>, Fractal),
    /// The Julia set of c = a bookmark's centre.
    Julia(JuliaC),
    /// The bookmark clicked holds no place (a saved file edited by hand): why.
    Invalid(String),
}

impl UserBookmark {
    /// The fractal the bookmark is a place of (the Mandelbrot set if its c does not parse).
    pub fn fractal(&self) -> Fractal {
        self.julia
            .as_deref()
            .and_then(|c| JuliaC::parse(c).ok())
            .map_or(Fractal::Mandelbrot, |c| Fractal::Julia { c })
    }

    /// Its place: the exact location where the bookmark keeps one, else its f64 centre
    /// and span.
    pub fn place(&self) -> Result<Place, DeepError> {
        let exact = (self.deep_center.as_deref(), self.deep_span.as_deref());
        saved_place(self.center, self.span, exact, self.max_dwell)
    }

    /// A bookmark of the view `s` shows, named `name`: the exact location kept where f64
    /// does not hold it.
    pub fn of_view(name: &str, s: &MandelbrotSettings) -> Self {
        let view = &s.view;
        let exact = exact_texts(s);
        UserBookmark {
            name: name.to_string(),
            center: [view.center.0, view.center.1],
            span: view.span,
            max_dwell: view.max_dwell,
            julia: view.fractal.julia_c().map(JuliaC::text),
            deep_center: exact.as_ref().map(|e| e.0.clone()),
            deep_span: exact.map(|e| e.1),
        }
    }
}

/// The small button beside a bookmark that shows the Julia set of its centre.
pub fn julia_button_ui(ui: &mut Ui) -> bool {
    ui.small_button("Julia")
        .on_hover_text("the Julia set of c = this bookmark's centre")
        .clicked()
}

/// The bookmarks list and the "add" row for the view `shown`; returns what was clicked.
pub fn user_bookmarks_ui(
    ui: &mut Ui,
    bookmarks: &mut Vec<UserBookmark>,
    new_name: &mut String,
    shown: &MandelbrotSettings,
) -> Option<BookmarkAction> {
    let mut remove = None;
    let mut action = None;
    for (i, b) in bookmarks.iter().enumerate() {
        ui.horizontal(|ui| {
            let fractal = b.fractal();
            let label = match fractal {
                Fractal::Mandelbrot => b.name.clone(),
                Fractal::Julia { .. } => format!("{} (Julia)", b.name),
            };
            if ui.button(label).clicked() {
                action = Some(match b.place() {
                    Ok(place) => BookmarkAction::Go(Box::new(place), fractal),
                    Err(e) => BookmarkAction::Invalid(format!("bookmark {}: {e}", b.name)),
                });
            }
            if fractal == Fractal::Mandelbrot && julia_button_ui(ui) {
                if let Ok(c) = JuliaC::from_f64(b.center[0], b.center[1]) {
                    action = Some(BookmarkAction::Julia(c));
                }
            }
            if ui.small_button("delete").on_hover_text("delete").clicked() {
                remove = Some(i);
            }
        });
    }
    if let Some(i) = remove {
        bookmarks.remove(i);
    }
    ui.horizontal(|ui| {
        ui.add(
            egui::TextEdit::singleline(new_name)
                .hint_text("name")
                .desired_width(140.0),
        );
        let name = new_name.trim();
        if ui
            .add_enabled(!name.is_empty(), egui::Button::new("Bookmark this view"))
            .clicked()
        {
            bookmarks.push(UserBookmark::of_view(name, shown));
            new_name.clear();
        }
    });
    action
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_bookmark_knows_its_fractal() {
        let mut b = UserBookmark {
            name: "b".into(),
            center: [0.0, 0.0],
            span: 1.0,
            max_dwell: 100,
            julia: None,
            deep_center: None,
            deep_span: None,
        };
        assert_eq!(b.fractal(), Fractal::Mandelbrot);
        b.julia = Some("-0.123,0.745".into());
        assert_eq!(
            b.fractal(),
            Fractal::Julia {
                c: JuliaC::parse("-0.123,0.745").expect("c")
            }
        );
        b.julia = Some("nonsense".into());
        assert_eq!(b.fractal(), Fractal::Mandelbrot);
    }

    #[test]
    fn a_deep_bookmark_keeps_its_exact_place() {
        let mut s = MandelbrotSettings::default();
        let deep = DeepLocation::parse(
            "-1.76877883300000000000000000000000000000000000000000000000000000000000000000001,0.00173899600000000000000000000000000000000000000000000000000000000000000000000003",
            "2.5e-75",
        )
        .expect("location");
        s.set_location(deep);
        s.view.max_dwell = 20_000;
        let b = UserBookmark::of_view("deep", &s);
        assert!(b.deep_center.is_some() && b.deep_span.is_some());
        let place = b.place().expect("place");
        assert_eq!((place.location, place.max_dwell()), (deep, 20_000));
        // Through the settings file and back.
        let text = serde_json::to_string(&b).expect("json");
        let back: UserBookmark = serde_json::from_str(&text).expect("parse");
        assert_eq!(back.place().expect("place"), place);

        // A plain view keeps no decimals beside its f64 place.
        let plain = UserBookmark::of_view("plain", &MandelbrotSettings::default());
        assert_eq!((&plain.deep_center, &plain.deep_span), (&None, &None));
        let old = UserBookmark {
            max_dwell: 0,
            ..plain
        };
        assert!(old.place().is_err(), "a max dwell of 0 is no place");
    }
}
