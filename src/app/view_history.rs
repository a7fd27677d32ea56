//! Undo and redo of the explorer's views (where it looks, not the window size).

use crate::mandelbrot::View;

/// The part of a view that navigation changes.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Place {
    pub center: (f64, f64),
    pub span: f64,
    pub max_dwell: u32,
}

impl Place {
    pub fn of(view: &View) -> Self {
        Self {
            center: view.center,
            span: view.span,
            max_dwell: view.max_dwell,
        }
    }

    pub fn apply(&self, view: &mut View) {
        (view.center, view.span, view.max_dwell) = (self.center, self.span, self.max_dwell);
    }
}

/// Views before the current one (undo) and after it (redo), at most `LIMIT` each.
#[derive(Debug, Default)]
pub struct ViewHistory {
    past: Vec<Place>,
    future: Vec<Place>,
}

const LIMIT: usize = 200;

impl ViewHistory {
    /// Records `before`, the place a change just left; clears the redo list.
    pub fn push(&mut self, before: Place) {
        if self.past.last() != Some(&before) {
            self.past.push(before);
            if self.past.len() > LIMIT {
                self.past.remove(0);
            }
        }
        self.future.clear();
    }

    /// The place before `current`, which becomes redoable.
    pub fn undo(&mut self, current: Place) -> Option<Place> {
        let p = self.past.pop()?;
        self.future.push(current);
        Some(p)
    }

    /// The place undone last, `current` going back to the undo list.
    pub fn redo(&mut self, current: Place) -> Option<Place> {
        let p = self.future.pop()?;
        self.past.push(current);
        Some(p)
    }

    pub fn can_undo(&self) -> bool {
        !self.past.is_empty()
    }

    pub fn can_redo(&self) -> bool {
        !self.future.is_empty()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn at(x: f64) -> Place {
        Place {
            center: (x, 0.0),
            span: 1.0,
            max_dwell: 100,
        }
    }

    #[test]
    fn undo_and_redo_walk_the_history() {
        let mut h = ViewHistory::default();
        h.push(at(0.0));
        h.push(at(1.0));
        // Current is 2.
        assert_eq!(h.undo(at(2.0)), Some(at(1.0)));
        assert_eq!(h.undo(at(1.0)), Some(at(0.0)));
        assert_eq!(h.undo(at(0.0)), None);
        assert_eq!(h.redo(at(0.0)), Some(at(1.0)));
        assert_eq!(h.redo(at(1.0)), Some(at(2.0)));
        assert!(!h.can_redo());
        h.undo(at(2.0));
        h.push(at(1.0)); // a new change drops the redo list
        assert!(!h.can_redo() && h.can_undo());
    }
}
