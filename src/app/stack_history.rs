//! Undo and redo of the filter stack. The app shows the stack each frame; a change seen
//! while no gesture is held (a click, a preset load, a key) is one step, and the changes
//! of one held gesture (a slider drag) become one step when it ends.

use super::filter_stack::FilterStack;

/// Steps kept for undo.
const MAX_STEPS: usize = 200;

#[derive(Debug, Clone)]
pub struct StackHistory {
    /// The stack as of the last recorded step.
    committed: FilterStack,
    undo: Vec<FilterStack>,
    redo: Vec<FilterStack>,
}

impl StackHistory {
    pub fn new(stack: &FilterStack) -> Self {
        Self {
            committed: stack.clone(),
            undo: Vec::new(),
            redo: Vec::new(),
        }
    }

    /// Looks at the stack after a frame; `gesture_held` while a pointer button is down, so
    /// a drag's many changes wait and make one step. Returns whether a step was recorded.
    pub fn observe(&mut self, current: &FilterStack, gesture_held: bool) -> bool {
        if gesture_held || *current == self.committed {
            return false;
        }
        let before = std::mem::replace(&mut self.committed, current.clone());
        self.undo.push(before);
        if self.undo.len() > MAX_STEPS {
            self.undo.remove(0);
        }
        self.redo.clear();
        true
    }

    pub fn can_undo(&self, current: &FilterStack) -> bool {
        !self.undo.is_empty() || *current != self.committed
    }

    pub fn can_redo(&self) -> bool {
        !self.redo.is_empty()
    }

    /// Goes one step back; returns whether `stack` changed.
    pub fn undo(&mut self, stack: &mut FilterStack) -> bool {
        self.observe(stack, false);
        let Some(previous) = self.undo.pop() else {
            return false;
        };
        self.redo.push(std::mem::replace(stack, previous.clone()));
        self.committed = previous;
        true
    }

    /// Goes one step forward again; returns whether `stack` changed.
    pub fn redo(&mut self, stack: &mut FilterStack) -> bool {
        self.observe(stack, false);
        let Some(next) = self.redo.pop() else {
            return false;
        };
        self.undo.push(std::mem::replace(stack, next.clone()));
        self.committed = next;
        true
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::filters::Filter;

    fn stack() -> FilterStack {
        let f: Filter = "gaussian:sigma=2".parse().expect("spec");
        FilterStack::new(&[f.into()])
    }

    fn sigma(s: &FilterStack) -> f32 {
        s.entries[0]
            .filter
            .filter()
            .expect("built-in")
            .params()
            .get(0)
    }

    fn first(s: &mut FilterStack) -> &mut Filter {
        s.entries[0].filter.filter_mut().expect("built-in")
    }

    #[test]
    fn clicks_are_steps_and_undo_redo_walk_them() {
        let mut s = stack();
        let mut h = StackHistory::new(&s);
        assert!(!h.can_undo(&s));
        s.entries[0].enabled = false; // toggle
        h.observe(&s, false);
        s.entries.swap(0, 1); // reorder
        h.observe(&s, false);
        let after = s.clone();
        assert!(h.undo(&mut s));
        assert_eq!(s.entries[0].filter.label(), "gaussian");
        assert!(!s.entries[0].enabled);
        assert!(h.undo(&mut s));
        assert_eq!(s, stack());
        assert!(!h.undo(&mut s), "nothing left");
        assert!(h.redo(&mut s));
        assert!(h.redo(&mut s));
        assert_eq!(s, after);
        assert!(!h.redo(&mut s));
    }

    #[test]
    fn kernel_stages_undo_and_redo_like_filters() {
        let path = concat!(env!("CARGO_MANIFEST_DIR"), "/assets/kernels/vignette.cu");
        let k: crate::pipeline::Stage = format!("kernel:{path}").parse().expect("spec");
        let mut s = stack();
        let mut h = StackHistory::new(&s);
        let i = s.push(k);
        h.observe(&s, false);
        let added = s.clone();
        if let Some(k) = s.entries[i].filter.kernel_mut() {
            k.set_value(0, 1.75);
        }
        h.observe(&s, false);
        assert!(h.undo(&mut s));
        assert_eq!(s, added);
        assert!(h.undo(&mut s));
        assert_eq!(s, stack(), "the kernel is gone again");
        assert!(h.redo(&mut s) && h.redo(&mut s));
        let k = s.entries[i].filter.kernel().expect("kernel");
        assert_eq!(k.values().values[0], 1.75);
    }

    #[test]
    fn a_drag_is_one_step() {
        let mut s = stack();
        let mut h = StackHistory::new(&s);
        for v in [2.5, 3.0, 4.0, 7.5] {
            first(&mut s).set_param(0, v, false);
            h.observe(&s, true);
        }
        h.observe(&s, false); // released
        assert!((sigma(&s) - 7.5).abs() < 1e-6);
        assert!(h.undo(&mut s));
        assert!((sigma(&s) - 2.0).abs() < 1e-6, "back to before the drag");
        assert!(!h.can_undo(&s));
    }

    #[test]
    fn undo_during_a_drag_keeps_its_change_and_a_new_change_drops_redo() {
        let mut s = stack();
        let mut h = StackHistory::new(&s);
        first(&mut s).set_param(0, 5.0, false);
        h.observe(&s, true);
        assert!(h.can_undo(&s));
        assert!(h.undo(&mut s));
        assert_eq!(s, stack());
        assert!(h.can_redo());
        s.entries[1].enabled = true;
        h.observe(&s, false);
        assert!(!h.can_redo(), "a new change ends the redo branch");
    }
}
