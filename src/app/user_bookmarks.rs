//! The user's own explorer bookmarks (saved with the settings): add the current view (of
//! the Mandelbrot set or of a Julia set) under a name, go back to one, show the Julia set of
//! one's centre, delete one.

use super::settings::UserBookmark;
use super::view_history::Place;
use crate::mandelbrot::{Fractal, JuliaC, View};
use egui::Ui;

/// What a click in the bookmarks asks for.
#[derive(Debug, Clone, PartialEq)]
pub enum BookmarkAction {
    /// Go to a place of a fractal.
    Go(Place, Fractal),
    /// The Julia set of c = a bookmark's centre.
    Julia(JuliaC),
}

impl UserBookmark {
    /// The fractal the bookmark is a place of (the Mandelbrot set if its c does not parse).
    pub fn fractal(&self) -> Fractal {
        self.julia
            .as_deref()
            .and_then(|c| JuliaC::parse(c).ok())
            .map_or(Fractal::Mandelbrot, |c| Fractal::Julia { c })
    }
}

/// The small button beside a bookmark that shows the Julia set of its centre.
pub fn julia_button_ui(ui: &mut Ui) -> bool {
    ui.small_button("Julia")
        .on_hover_text("the Julia set of c = this bookmark's centre")
        .clicked()
}

/// The bookmarks list and the "add" row for the shown `view`; returns what was clicked.
pub fn user_bookmarks_ui(
    ui: &mut Ui,
    bookmarks: &mut Vec<UserBookmark>,
    new_name: &mut String,
    view: &View,
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
                let place = Place {
                    center: (b.center[0], b.center[1]),
                    span: b.span,
                    max_dwell: b.max_dwell,
                };
                action = Some(BookmarkAction::Go(place, fractal));
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
            bookmarks.push(UserBookmark {
                name: name.to_string(),
                center: [view.center.0, view.center.1],
                span: view.span,
                max_dwell: view.max_dwell,
                julia: view.fractal.julia_c().map(JuliaC::text),
            });
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
}
