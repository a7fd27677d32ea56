//! The user's own explorer bookmarks (saved with the settings): add the current view under
//! a name, go back to one, delete one.

use super::settings::UserBookmark;
use crate::mandelbrot::View;
use egui::Ui;

/// The bookmarks list and the "add" row; moves `view` when one is clicked.
pub fn user_bookmarks_ui(
    ui: &mut Ui,
    bookmarks: &mut Vec<UserBookmark>,
    new_name: &mut String,
    view: &mut View,
) {
    let mut remove = None;
    for (i, b) in bookmarks.iter().enumerate() {
        ui.horizontal(|ui| {
            if ui.button(&b.name).clicked() {
                view.center = (b.center[0], b.center[1]);
                view.span = b.span;
                view.max_dwell = b.max_dwell;
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
            });
            new_name.clear();
        }
    });
}
