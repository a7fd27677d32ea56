//! Undo and redo of the explorer's views (where it looks, exactly: not the window size).

use crate::mandelbrot::Place;

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
        Place::from_f64((x, 0.0), 1.0, 100).expect("place")
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

    #[test]
    fn undo_past_f64_returns_to_each_exact_place() {
        use crate::mandelbrot::MandelbrotSettings;
        let mut s = MandelbrotSettings::default();
        let mut h = ViewHistory::default();
        let mut visited = Vec::new();
        // Zoom far below f64 (each step a change of its own), then pan there.
        for step in 0..160 {
            let before = s.place().expect("place");
            if step < 150 {
                s.zoom_at(300.0, 200.0, 0.5);
            } else {
                s.pan_pixels(7.0, -3.0);
            }
            h.push(before);
            visited.push(before);
        }
        assert!(s.deep_precision().is_some(), "deep at the end");
        let end = s.place().expect("place");
        for want in visited.iter().rev() {
            let p = h.undo(s.place().expect("place")).expect("an undo step");
            s.set_place(&p);
            assert_eq!(s.place().expect("place"), *want);
        }
        assert!(!h.can_undo());
        for _ in 0..visited.len() {
            let p = h.redo(s.place().expect("place")).expect("a redo step");
            s.set_place(&p);
        }
        assert_eq!(s.place().expect("place"), end, "redo comes back exactly");
    }
}
