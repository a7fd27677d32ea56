//! One undo history for the image tab: the filter stack's steps ([`StackHistory`]) and
//! image edits, which replace the document's pixels, in the order they happened. An edit
//! step keeps the pixels on its other side (before it for undo, after it for redo), within
//! a memory budget: the oldest edits (and every step before them) are dropped first.
//! 8-bit documents keep RGBA8 (the runner's pixels, shared); 16-bit and float ones their
//! own type (their RGBA8 rendition is made again when a step comes back).

use super::filter_stack::FilterStack;
use super::stack_history::StackHistory;
use crate::pixels::PixelImage;
use image::RgbaImage;
use std::sync::Arc;

/// A document's pixels as an edit step keeps them.
#[derive(Debug, Clone, PartialEq)]
pub enum DocumentPixels {
    /// An 8-bit document: the RGBA8 pixels the runner holds.
    Rgba8(Arc<RgbaImage>),
    /// A 16-bit or float document: its pixels in their own type.
    Typed(Arc<PixelImage>),
}

impl DocumentPixels {
    /// Bytes of samples held.
    pub fn bytes(&self) -> u64 {
        match self {
            DocumentPixels::Rgba8(p) => p.as_raw().len() as u64,
            DocumentPixels::Typed(p) => {
                let (w, h) = p.dimensions();
                u64::from(w)
                    * u64::from(h)
                    * u64::from(p.channels())
                    * p.sample_type().bytes() as u64
            }
        }
    }

    pub fn dimensions(&self) -> (u32, u32) {
        match self {
            DocumentPixels::Rgba8(p) => p.dimensions(),
            DocumentPixels::Typed(p) => p.dimensions(),
        }
    }

    /// Whether both are the same pixels (the same allocation, not equal values).
    pub fn same(&self, other: &DocumentPixels) -> bool {
        match (self, other) {
            (DocumentPixels::Rgba8(a), DocumentPixels::Rgba8(b)) => Arc::ptr_eq(a, b),
            (DocumentPixels::Typed(a), DocumentPixels::Typed(b)) => Arc::ptr_eq(a, b),
            _ => false,
        }
    }
}

/// Bytes of pixels the edit steps may keep.
pub const PIXEL_BUDGET: u64 = 512 << 20;

#[derive(Debug, Clone)]
enum Step {
    /// A step of the filter stack (kept by [`StackHistory`]), by name.
    Stack(String),
    /// An image edit: its name and the pixels on the step's other side.
    Edit {
        label: String,
        pixels: DocumentPixels,
    },
}

impl Step {
    fn label(&self) -> &str {
        match self {
            Step::Stack(label) | Step::Edit { label, .. } => label,
        }
    }
}

fn bytes(step: &Step) -> u64 {
    match step {
        Step::Stack(_) => 0,
        Step::Edit { pixels, .. } => pixels.bytes(),
    }
}

/// What an undo or redo changed.
#[derive(Debug, Clone, PartialEq)]
pub enum HistoryChange {
    None,
    /// The filter stack changed.
    Stack,
    /// The document's pixels are to be replaced by these (the edit named `label` undone
    /// or redone).
    Pixels {
        label: String,
        pixels: DocumentPixels,
    },
}

/// Undo and redo of the image tab: filter stack and pixel edits together.
#[derive(Debug, Clone)]
pub struct ImageHistory {
    pub stack: StackHistory,
    undo: Vec<Step>,
    redo: Vec<Step>,
    budget: u64,
}

impl ImageHistory {
    pub fn new(stack: &FilterStack) -> Self {
        Self::with_budget(stack, PIXEL_BUDGET)
    }

    pub fn with_budget(stack: &FilterStack, budget: u64) -> Self {
        Self {
            stack: StackHistory::new(stack),
            undo: Vec::new(),
            redo: Vec::new(),
            budget,
        }
    }

    /// Starts over (a new image or a restored session): nothing to undo.
    pub fn reset(&mut self, stack: &FilterStack) {
        *self = Self::with_budget(stack, self.budget);
    }

    /// Drops every edit step (another image was opened); the stack's steps stay.
    pub fn forget_edits(&mut self) {
        self.undo.retain(|s| matches!(s, Step::Stack(_)));
        self.redo.retain(|s| matches!(s, Step::Stack(_)));
    }

    /// Looks at the stack after a frame (see [`StackHistory::observe`]).
    pub fn observe(&mut self, current: &FilterStack, gesture_held: bool) {
        if let Some(label) = self.stack.observe(current, gesture_held) {
            self.undo.push(Step::Stack(label));
            self.redo.clear();
        }
    }

    /// Records an edit named `label` that replaced `before`. Returns false when even
    /// that step alone is over the budget (it cannot be undone).
    pub fn push_edit(&mut self, stack: &FilterStack, label: &str, before: DocumentPixels) -> bool {
        self.observe(stack, false);
        self.redo.clear();
        self.undo.push(Step::Edit {
            label: label.to_string(),
            pixels: before,
        });
        self.enforce_budget();
        matches!(self.undo.last(), Some(Step::Edit { .. }))
    }

    /// Bytes of pixels kept.
    pub fn pixel_bytes(&self) -> u64 {
        self.undo.iter().chain(&self.redo).map(bytes).sum()
    }

    /// Drops the oldest edit steps, and every step before each, until within the budget
    /// (redo steps first: they are the furthest from the present after the oldest undo).
    fn enforce_budget(&mut self) {
        while self.pixel_bytes() > self.budget {
            if let Some(i) = self
                .undo
                .iter()
                .position(|s| matches!(s, Step::Edit { .. }))
            {
                self.undo.drain(..=i);
            } else if let Some(i) = self
                .redo
                .iter()
                .position(|s| matches!(s, Step::Edit { .. }))
            {
                self.redo.drain(..=i);
            } else {
                break;
            }
        }
    }

    pub fn can_undo(&self, current: &FilterStack) -> bool {
        !self.undo.is_empty() || self.stack.can_undo(current)
    }

    pub fn can_redo(&self) -> bool {
        !self.redo.is_empty() || self.stack.can_redo()
    }

    /// The name of the step Undo would take back (a change still held, such as a slider
    /// being dragged, first).
    pub fn undo_label(&self, current: &FilterStack) -> Option<String> {
        self.stack
            .pending(current)
            .or_else(|| self.undo.last().map(|s| s.label().to_string()))
    }

    /// The name of the step Redo would do again.
    pub fn redo_label(&self) -> Option<&str> {
        self.redo.last().map(Step::label)
    }

    /// The steps' names for the History panel: those done (oldest first), then those
    /// undone (the next redo first).
    pub fn labels(&self) -> (Vec<&str>, Vec<&str>) {
        (
            self.undo.iter().map(Step::label).collect(),
            self.redo.iter().rev().map(Step::label).collect(),
        )
    }

    /// Goes one step back; `pixels` are the document's now.
    pub fn undo(&mut self, stack: &mut FilterStack, pixels: &DocumentPixels) -> HistoryChange {
        self.observe(stack, false);
        match self.undo.pop() {
            Some(Step::Edit {
                label,
                pixels: before,
            }) => {
                self.redo.push(Step::Edit {
                    label: label.clone(),
                    pixels: pixels.clone(),
                });
                HistoryChange::Pixels {
                    label,
                    pixels: before,
                }
            }
            Some(Step::Stack(_)) | None => match self.stack.undo(stack) {
                Some(label) => {
                    self.redo.push(Step::Stack(label));
                    HistoryChange::Stack
                }
                None => HistoryChange::None,
            },
        }
    }

    /// Goes one step forward again; `pixels` are the document's now.
    pub fn redo(&mut self, stack: &mut FilterStack, pixels: &DocumentPixels) -> HistoryChange {
        self.observe(stack, false);
        match self.redo.pop() {
            Some(Step::Edit {
                label,
                pixels: after,
            }) => {
                self.undo.push(Step::Edit {
                    label: label.clone(),
                    pixels: pixels.clone(),
                });
                HistoryChange::Pixels {
                    label,
                    pixels: after,
                }
            }
            Some(Step::Stack(_)) | None => match self.stack.redo(stack) {
                Some(label) => {
                    self.undo.push(Step::Stack(label));
                    HistoryChange::Stack
                }
                None => HistoryChange::None,
            },
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::pipeline::Stage;

    fn image(w: u32, value: u8) -> DocumentPixels {
        DocumentPixels::Rgba8(Arc::new(RgbaImage::from_pixel(
            w,
            1,
            image::Rgba([value, 1, 2, 255]),
        )))
    }

    fn stack_of(specs: &[&str]) -> FilterStack {
        let stages: Vec<Stage> = specs.iter().map(|s| s.parse().unwrap()).collect();
        FilterStack::new(&stages)
    }

    fn pixels_of(change: HistoryChange) -> DocumentPixels {
        match change {
            HistoryChange::Pixels { pixels, .. } => pixels,
            other => panic!("expected pixels, got {other:?}"),
        }
    }

    #[test]
    fn edits_and_stack_steps_undo_in_the_order_they_happened() {
        let mut stack = stack_of(&[]);
        let mut history = ImageHistory::new(&stack);
        let (a, b) = (image(4, 10), image(2, 20));
        // An edit, then a filter, then another edit.
        assert!(history.push_edit(&stack, "rotate", a.clone()));
        let mut current = b.clone();
        stack = stack_of(&["sobel"]);
        history.observe(&stack, false);
        let c = image(3, 30);
        assert!(history.push_edit(&stack, "flip", current.clone()));
        current = c.clone();
        assert_eq!(
            history.labels(),
            (vec!["rotate", "Add sobel", "flip"], vec![])
        );
        assert_eq!(history.undo_label(&stack).as_deref(), Some("flip"));

        assert_eq!(pixels_of(history.undo(&mut stack, &current)), b);
        current = b.clone();
        assert_eq!(history.undo(&mut stack, &current), HistoryChange::Stack);
        assert_eq!(stack, stack_of(&[]));
        assert_eq!(pixels_of(history.undo(&mut stack, &current)), a);
        current = a.clone();
        assert_eq!(history.undo(&mut stack, &current), HistoryChange::None);
        assert!(!history.can_undo(&stack));
        assert_eq!(
            history.labels(),
            (vec![], vec!["rotate", "Add sobel", "flip"])
        );
        assert_eq!(history.redo_label(), Some("rotate"));

        assert_eq!(pixels_of(history.redo(&mut stack, &current)), b);
        current = b.clone();
        assert_eq!(history.redo(&mut stack, &current), HistoryChange::Stack);
        assert_eq!(stack, stack_of(&["sobel"]));
        assert_eq!(pixels_of(history.redo(&mut stack, &current)), c);
        assert!(!history.can_redo());
    }

    #[test]
    fn a_new_step_clears_redo() {
        let mut stack = stack_of(&[]);
        let mut history = ImageHistory::new(&stack);
        history.push_edit(&stack, "rotate", image(4, 1));
        let now = image(4, 2);
        history.undo(&mut stack, &now);
        assert!(history.can_redo());
        history.push_edit(&stack, "flip", image(4, 3));
        assert!(!history.can_redo());
        history.forget_edits();
        assert_eq!(history.pixel_bytes(), 0);
        assert!(!history.can_undo(&stack));
    }

    #[test]
    fn the_oldest_edits_go_first_when_over_the_budget() {
        let stack = stack_of(&[]);
        // Room for two 4-pixel images (16 bytes each).
        let mut history = ImageHistory::with_budget(&stack, 40);
        for value in 0..5 {
            assert!(history.push_edit(&stack, "edit", image(4, value)));
            assert!(history.pixel_bytes() <= 40);
        }
        let mut s = stack.clone();
        let now = image(4, 99);
        assert_eq!(pixels_of(history.undo(&mut s, &now)), image(4, 4));
        assert_eq!(pixels_of(history.undo(&mut s, &now)), image(4, 3));
        assert_eq!(history.undo(&mut s, &now), HistoryChange::None);
        // One step over the budget alone cannot be kept.
        assert!(!history.push_edit(&stack, "huge", image(100, 0)));
        assert!(history.pixel_bytes() <= 40);
    }
}
