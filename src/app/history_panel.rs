//! The History panel of the image tab: every step of undo by name (edits and the filter
//! stack's changes), the current one marked; a click goes back or forward to a step.

/// Where a click in the panel asks to go.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum HistoryJump {
    /// Undo this many steps.
    Back(usize),
    /// Redo this many steps.
    Forward(usize),
}

/// The row of the state after `i` steps: `done` steps lie behind the current state.
fn jump_to(i: usize, done: usize) -> Option<HistoryJump> {
    match i.cmp(&done) {
        std::cmp::Ordering::Less => Some(HistoryJump::Back(done - i)),
        std::cmp::Ordering::Equal => None,
        std::cmp::Ordering::Greater => Some(HistoryJump::Forward(i - done)),
    }
}

/// Draws the steps: "Original" (nothing done), those `done` (oldest first), the current
/// one marked, then those `undone` (greyed, the next redo first).
pub fn history_panel_ui(ui: &mut egui::Ui, done: &[&str], undone: &[&str]) -> Option<HistoryJump> {
    let mut jump = None;
    let rows = std::iter::once("Original")
        .chain(done.iter().copied())
        .chain(undone.iter().copied());
    for (i, label) in rows.enumerate() {
        let current = i == done.len();
        let text = if i > done.len() {
            egui::RichText::new(label).weak()
        } else {
            egui::RichText::new(label)
        };
        if ui
            .selectable_label(current, text)
            .on_hover_text(if current {
                "the image as it is now"
            } else {
                "go back or forward to this step"
            })
            .clicked()
        {
            jump = jump_to(i, done.len());
        }
    }
    jump
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn rows_jump_by_their_distance_from_the_current_step() {
        assert_eq!(jump_to(0, 3), Some(HistoryJump::Back(3)));
        assert_eq!(jump_to(2, 3), Some(HistoryJump::Back(1)));
        assert_eq!(jump_to(3, 3), None);
        assert_eq!(jump_to(5, 3), Some(HistoryJump::Forward(2)));
    }
}
