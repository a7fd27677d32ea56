//! Undo and redo of the filter stack. The app shows the stack each frame; a change seen
//! while no gesture is held (a click, a preset load, a key) is one step, and the changes
//! of one held gesture (a slider drag) become one step when it ends.

use super::filter_stack::{FilterEntry, FilterStack};
use crate::pipeline::Stage;

/// Steps kept for undo.
const MAX_STEPS: usize = 200;

/// The name of a parameter of `stage` (by index), for a step's label.
fn param_name(stage: &Stage, i: usize) -> Option<String> {
    match stage {
        Stage::Filter(f) => f.def().params.get(i).map(|p| p.name.to_string()),
        Stage::Kernel(k) => k.source().params.get(i).map(|p| p.name.clone()),
    }
}

/// The first parameter that differs between two entries of the same stage.
fn changed_param(a: &FilterEntry, b: &FilterEntry) -> Option<String> {
    let i = match (&a.filter, &b.filter) {
        (Stage::Filter(x), Stage::Filter(y)) => {
            (0..x.def().params.len()).find(|&i| x.params().get(i) != y.params().get(i))?
        }
        (Stage::Kernel(x), Stage::Kernel(y)) => {
            let (x, y) = (&x.values().values, &y.values().values);
            (0..x.len().max(y.len())).find(|&i| x.get(i) != y.get(i))?
        }
        _ => return None,
    };
    param_name(&a.filter, i)
}

/// A step's name, as Edit → Undo and the History panel show it: "Add gaussian",
/// "Remove sobel", "Move box", "Turn on median", "Set gaussian sigma".
pub fn describe_change(before: &FilterStack, after: &FilterStack) -> String {
    let (b, a) = (&before.entries, &after.entries);
    let label = |e: &FilterEntry| e.filter.label();
    // The one entry that differs when the lengths differ by one.
    let odd_one = |long: &[FilterEntry], short: &[FilterEntry]| -> Option<String> {
        let i = (0..long.len()).find(|&i| short.get(i) != long.get(i))?;
        (long[..i] == short[..i] && long[i + 1..] == short[i..]).then(|| label(&long[i]))
    };
    if a.len() == b.len() + 1 {
        if let Some(name) = odd_one(a, b) {
            return format!("Add {name}");
        }
    } else if b.len() == a.len() + 1 {
        if let Some(name) = odd_one(b, a) {
            return format!("Remove {name}");
        }
    } else if a.len() == b.len() {
        let differ: Vec<usize> = (0..a.len()).filter(|&i| a[i] != b[i]).collect();
        if let [i] = differ[..] {
            let (x, y) = (&b[i], &a[i]);
            if x.enabled != y.enabled && x.filter == y.filter {
                let how = if y.enabled { "Turn on" } else { "Turn off" };
                return format!("{how} {}", label(y));
            }
            if x.filter.label() == y.filter.label() {
                return match changed_param(x, y) {
                    Some(p) => format!("Set {} {p}", label(y)),
                    None => format!("Adjust {}", label(y)),
                };
            }
        }
        // The same entries in another order: the one that moved furthest.
        let mut sorted_a: Vec<String> = a.iter().map(|e| format!("{e:?}")).collect();
        let mut sorted_b: Vec<String> = b.iter().map(|e| format!("{e:?}")).collect();
        sorted_a.sort();
        sorted_b.sort();
        if sorted_a == sorted_b && !differ.is_empty() {
            let moved = a
                .iter()
                .enumerate()
                .filter_map(|(i, e)| {
                    let was = b.iter().position(|x| x == e)?;
                    Some((i.abs_diff(was), label(e)))
                })
                .max_by_key(|(d, _)| *d);
            if let Some((_, name)) = moved {
                return format!("Move {name}");
            }
        }
    }
    "Change the stack".into()
}

/// One recorded step: the stack before it and its name.
#[derive(Debug, Clone)]
struct StackStep {
    stack: FilterStack,
    label: String,
}

#[derive(Debug, Clone)]
pub struct StackHistory {
    /// The stack as of the last recorded step.
    committed: FilterStack,
    /// Each step's other side (before it for undo, after it for redo) and its name.
    undo: Vec<StackStep>,
    redo: Vec<StackStep>,
    /// The name the drawing gave the change it made this frame (a swap of two neighbours
    /// reads the same either way round, but the user moved one of them).
    hint: Option<String>,
}

impl StackHistory {
    pub fn new(stack: &FilterStack) -> Self {
        Self {
            committed: stack.clone(),
            undo: Vec::new(),
            redo: Vec::new(),
            hint: None,
        }
    }

    /// Names the change the next step records (else it is named by comparison).
    pub fn name_next(&mut self, label: String) {
        self.hint = Some(label);
    }

    /// Looks at the stack after a frame; `gesture_held` while a pointer button is down, so
    /// a drag's many changes wait and make one step. Returns the step's name when one was
    /// recorded.
    pub fn observe(&mut self, current: &FilterStack, gesture_held: bool) -> Option<String> {
        if gesture_held || *current == self.committed {
            return None;
        }
        let label = self
            .hint
            .take()
            .unwrap_or_else(|| describe_change(&self.committed, current));
        let before = std::mem::replace(&mut self.committed, current.clone());
        self.undo.push(StackStep {
            stack: before,
            label: label.clone(),
        });
        if self.undo.len() > MAX_STEPS {
            self.undo.remove(0);
        }
        self.redo.clear();
        Some(label)
    }

    pub fn can_undo(&self, current: &FilterStack) -> bool {
        !self.undo.is_empty() || *current != self.committed
    }

    pub fn can_redo(&self) -> bool {
        !self.redo.is_empty()
    }

    /// The name of the change not yet recorded (a drag in progress), if any.
    pub fn pending(&self, current: &FilterStack) -> Option<String> {
        (*current != self.committed).then(|| {
            self.hint
                .clone()
                .unwrap_or_else(|| describe_change(&self.committed, current))
        })
    }

    /// Goes one step back; returns the undone step's name (None: nothing to undo).
    pub fn undo(&mut self, stack: &mut FilterStack) -> Option<String> {
        self.observe(stack, false);
        let step = self.undo.pop()?;
        let after = std::mem::replace(stack, step.stack.clone());
        self.redo.push(StackStep {
            stack: after,
            label: step.label.clone(),
        });
        self.committed = step.stack;
        Some(step.label)
    }

    /// Goes one step forward again; returns the redone step's name (None: nothing to redo).
    pub fn redo(&mut self, stack: &mut FilterStack) -> Option<String> {
        self.observe(stack, false);
        let step = self.redo.pop()?;
        let before = std::mem::replace(stack, step.stack.clone());
        self.undo.push(StackStep {
            stack: before,
            label: step.label.clone(),
        });
        self.committed = step.stack;
        Some(step.label)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::filters::Filter;

    fn stack() -> FilterStack {
        let stages: Vec<Stage> = ["gaussian:sigma=2", "sobel", "box:radius=3"]
            .iter()
            .map(|s| s.parse().expect("spec"))
            .collect();
        let mut s = FilterStack::new(&stages);
        s.entries[1].enabled = false;
        s
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
        assert!(h.undo(&mut s).is_some());
        assert_eq!(s.entries[0].filter.label(), "gaussian");
        assert!(!s.entries[0].enabled);
        assert!(h.undo(&mut s).is_some());
        assert_eq!(s, stack());
        assert!(h.undo(&mut s).is_none(), "nothing left");
        assert!(h.redo(&mut s).is_some());
        assert!(h.redo(&mut s).is_some());
        assert_eq!(s, after);
        assert!(h.redo(&mut s).is_none());
    }

    #[test]
    fn steps_are_named_after_what_changed() {
        let base = stack();
        let named = |edit: &dyn Fn(&mut FilterStack)| {
            let mut s = base.clone();
            edit(&mut s);
            describe_change(&base, &s)
        };
        let gaussian = || {
            let def = crate::filters::FILTERS
                .iter()
                .find(|d| d.name == "gaussian")
                .expect("gaussian");
            FilterEntry::of_def(def).expect("default")
        };
        assert_eq!(named(&|s| s.entries.push(gaussian())), "Add gaussian");
        assert_eq!(named(&|s| s.entries.insert(0, gaussian())), "Add gaussian");
        assert_eq!(named(&|s| drop(s.entries.remove(2))), "Remove box");
        assert_eq!(named(&|s| s.entries[1].enabled = true), "Turn on sobel");
        assert_eq!(
            named(&|s| s.entries[0].enabled = false),
            "Turn off gaussian"
        );
        assert_eq!(
            named(&|s| first(s).set_param(0, 4.0, false)),
            "Set gaussian sigma"
        );
        assert_eq!(named(&|s| s.move_entry(2, 0)), "Move box");
        assert_eq!(named(&|s| s.move_entry(0, 3)), "Move gaussian");
        assert_eq!(named(&|s| s.duplicate(2)), "Add box");
        assert_eq!(named(&|s| s.entries.clear()), "Change the stack");
    }

    #[test]
    fn undo_and_redo_give_the_step_names() {
        let mut s = stack();
        let mut h = StackHistory::new(&s);
        s.entries[1].enabled = true;
        assert_eq!(h.observe(&s, false).as_deref(), Some("Turn on sobel"));
        first(&mut s).set_param(0, 3.0, false);
        assert_eq!(h.pending(&s).as_deref(), Some("Set gaussian sigma"));
        h.observe(&s, true);
        assert_eq!(h.undo(&mut s).as_deref(), Some("Set gaussian sigma"));
        assert_eq!(h.undo(&mut s).as_deref(), Some("Turn on sobel"));
        assert_eq!(h.redo(&mut s).as_deref(), Some("Turn on sobel"));
        s.move_entry(1, 0);
        h.name_next("Move sobel".into());
        assert_eq!(h.observe(&s, false).as_deref(), Some("Move sobel"));
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
        assert!(h.undo(&mut s).is_some());
        assert_eq!(s, added);
        assert!(h.undo(&mut s).is_some());
        assert_eq!(s, stack(), "the kernel is gone again");
        assert!(h.redo(&mut s).is_some() && h.redo(&mut s).is_some());
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
        assert!(h.undo(&mut s).is_some());
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
        assert!(h.undo(&mut s).is_some());
        assert_eq!(s, stack());
        assert!(h.can_redo());
        s.entries[1].enabled = true;
        h.observe(&s, false);
        assert!(!h.can_redo(), "a new change ends the redo branch");
    }
}
