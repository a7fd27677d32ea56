//! The filter stack driven by egui without GL: synthetic pointer events on
//! `filter_stack_ui`, as a user's clicks (a choice parameter's combo box, a checkbox).

use super::filter_stack::{filter_stack_ui, FilterStack};
use egui::{Event, Pos2, Rect, Shape};

/// The stack in a window, frame after frame, with the texts of the last frame.
struct StackUi {
    ctx: egui::Context,
    stack: FilterStack,
    texts: Vec<(String, Rect)>,
    changed: bool,
}

impl StackUi {
    fn new(stack: FilterStack) -> Self {
        let mut ui = Self {
            ctx: egui::Context::default(),
            stack,
            texts: Vec::new(),
            changed: false,
        };
        // egui sizes some things in the first pass.
        ui.frame(Vec::new());
        ui.frame(Vec::new());
        ui
    }

    fn frame(&mut self, events: Vec<Event>) {
        let input = egui::RawInput {
            screen_rect: Some(Rect::from_min_size(Pos2::ZERO, egui::vec2(500.0, 3000.0))),
            events,
            ..Default::default()
        };
        let stack = &mut self.stack;
        let mut changed = false;
        let mut out = self.ctx.run_ui(input, |ui| {
            egui::CentralPanel::default()
                .show(ui, |ui| changed = filter_stack_ui(ui, stack, None).changed);
        });
        out.textures_delta.clear();
        self.changed = changed;
        self.texts.clear();
        fn walk(shape: &Shape, found: &mut Vec<(String, Rect)>) {
            match shape {
                Shape::Text(t) => found.push((
                    t.galley.text().to_string(),
                    t.galley.rect.translate(t.pos.to_vec2()),
                )),
                Shape::Vec(v) => v.iter().for_each(|s| walk(s, found)),
                _ => {}
            }
        }
        for c in &out.shapes {
            walk(&c.shape, &mut self.texts);
        }
    }

    /// Where `text` is drawn (the last drawn, topmost, when several are).
    fn find(&self, text: &str) -> Option<Pos2> {
        self.texts
            .iter()
            .rev()
            .find(|(t, _)| t == text)
            .map(|(_, r)| r.center())
    }

    /// A click on `text`: press in one frame, release in the next, then a quiet frame.
    /// Returns whether a frame reported a change of the stack.
    fn click(&mut self, text: &str) -> bool {
        let pos = self
            .find(text)
            .unwrap_or_else(|| panic!("'{text}' is not shown: {:?}", self.texts));
        let button = |pressed| Event::PointerButton {
            pos,
            button: egui::PointerButton::Primary,
            pressed,
            modifiers: egui::Modifiers::NONE,
        };
        self.frame(vec![Event::PointerMoved(pos), button(true)]);
        let mut changed = self.changed;
        self.frame(vec![button(false)]);
        changed |= self.changed;
        self.frame(Vec::new());
        changed | self.changed
    }
}

impl StackUi {
    /// A press at `from`, moves to `to` over a few frames, a release there.
    fn drag(&mut self, from: Pos2, to: Pos2) -> bool {
        let button = |pos, pressed| Event::PointerButton {
            pos,
            button: egui::PointerButton::Primary,
            pressed,
            modifiers: egui::Modifiers::NONE,
        };
        self.frame(vec![Event::PointerMoved(from), button(from, true)]);
        let mut changed = self.changed;
        for k in 1..=6 {
            let p = from + (to - from) * (k as f32 / 6.0);
            self.frame(vec![Event::PointerMoved(p)]);
            changed |= self.changed;
        }
        self.frame(vec![button(to, false)]);
        changed |= self.changed;
        self.frame(Vec::new());
        changed | self.changed
    }

    fn names(&self) -> Vec<String> {
        self.stack
            .entries
            .iter()
            .map(|e| e.filter.label().to_string())
            .collect()
    }

    /// Every place `text` is drawn, top to bottom.
    fn find_all(&self, text: &str) -> Vec<Pos2> {
        let mut all: Vec<Pos2> = self
            .texts
            .iter()
            .filter(|(t, _)| t == text)
            .map(|(_, r)| r.center())
            .collect();
        all.sort_by(|a, b| a.y.total_cmp(&b.y));
        all
    }
}

#[test]
fn the_add_menu_adds_any_filter_again_and_again() {
    let mut ui = StackUi::new(FilterStack::default());
    assert!(!ui.click("Add filter…"), "opening the menu changes nothing");
    assert!(ui.click("median"));
    assert!(!ui.click("Add filter…"));
    assert!(ui.click("median"));
    assert_eq!(ui.names(), ["median", "median"]);
    assert_eq!(ui.stack.active().len(), 2, "added entries are on");
}

#[test]
fn the_add_menu_search_takes_the_first_match_on_enter() {
    let mut ui = StackUi::new(FilterStack::default());
    ui.click("Add filter…");
    ui.frame(vec![Event::Text("sob".into())]);
    assert!(ui.find("gaussian").is_none(), "filtered: {:?}", ui.texts);
    let enter = |pressed| Event::Key {
        key: egui::Key::Enter,
        physical_key: None,
        pressed,
        repeat: false,
        modifiers: egui::Modifiers::NONE,
    };
    ui.frame(vec![enter(true), enter(false)]);
    ui.frame(Vec::new());
    assert_eq!(ui.names(), ["sobel"]);
}

#[test]
fn entries_are_removed_moved_and_dragged() {
    let stack = FilterStack::new(&[
        "sobel".parse().expect("parses"),
        "box:radius=3".parse().expect("parses"),
        "transpose".parse().expect("parses"),
    ]);
    let mut ui = StackUi::new(stack);
    let downs = ui.find_all("down");
    assert_eq!(downs.len(), 3);
    let pos = downs[0];
    ui.frame(vec![
        Event::PointerMoved(pos),
        Event::PointerButton {
            pos,
            button: egui::PointerButton::Primary,
            pressed: true,
            modifiers: egui::Modifiers::NONE,
        },
    ]);
    ui.frame(vec![Event::PointerButton {
        pos,
        button: egui::PointerButton::Primary,
        pressed: false,
        modifiers: egui::Modifiers::NONE,
    }]);
    ui.frame(Vec::new());
    assert_eq!(ui.names(), ["box", "sobel", "transpose"]);
    // The grip is the first thing of an entry's row (the panel's and the group's margins
    // left of it); drag transpose's above everything.
    let grip = |y: f32| Pos2::new(20.0, y);
    let from = grip(ui.find("transpose").expect("shown").y);
    let top = grip(ui.find("box").expect("shown").y - 12.0);
    assert!(ui.drag(from, top), "a drag moved nothing: {:?}", ui.names());
    assert_eq!(ui.names(), ["transpose", "box", "sobel"]);
    let removes = ui.find_all("×");
    ui.drag(removes[1], removes[1]); // a click
    assert_eq!(ui.names(), ["transpose", "sobel"]);
}

fn threshold_stack(spec: &str) -> FilterStack {
    FilterStack::new(&[spec.parse().expect("spec parses")])
}

#[test]
fn a_choice_is_drawn_as_a_combo_box_and_a_pick_sets_its_word() {
    let mut ui = StackUi::new(threshold_stack("threshold:method=otsu"));
    assert!(ui.find("method").is_some(), "{:?}", ui.texts);
    assert!(ui.find("otsu").is_some(), "{:?}", ui.texts);
    assert!(ui.find("triangle").is_none(), "the list is closed");
    assert!(!ui.click("otsu"), "opening the list changes nothing");
    assert!(
        ui.find("triangle").is_some(),
        "the list opened: {:?}",
        ui.texts
    );
    assert!(ui.click("triangle"));
    assert_eq!(
        ui.stack.active()[0].to_string(),
        "threshold:level=128,method=triangle,invert=0"
    );
    assert!(ui.find("triangle").is_some() && ui.find("isodata").is_none());
}

#[test]
fn two_entries_of_one_filter_keep_their_own_choices() {
    let stack = FilterStack::new(&[
        "threshold:method=mean".parse().expect("parses"),
        "threshold:method=isodata".parse().expect("parses"),
    ]);
    let mut ui = StackUi::new(stack);
    ui.click("isodata");
    assert!(ui.click("otsu"));
    let active: Vec<String> = ui.stack.active().iter().map(|f| f.to_string()).collect();
    assert_eq!(
        active,
        [
            "threshold:level=128,method=mean,invert=0",
            "threshold:level=128,method=otsu,invert=0"
        ]
    );
}
