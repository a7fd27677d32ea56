//! Layout of the window's bars and panels, drawn by egui without GL: the tabs show under
//! the menu bar, the status bar stays one line in a narrow window, the filter panel leaves
//! the image its room.

use super::filter_stack::{filter_stack_ui, FilterEntry, FilterStack};
use super::menu::{menu_bar_ui, MenuState};
use super::recent::RecentFiles;
use super::state::{side_panel_ui, tabs_ui, Tab, SIDE_PANEL_WIDTHS};
use super::status_bar::{status_bar_ui, StatusLine, StatusMessage};
use crate::pipeline::{BackendKind, BackendStatus, StageTime};
use egui::{Pos2, Rect, Shape};

/// Every text drawn in one pass of `ui_fn` in a `width`×`height` window, with where it is
/// and the clip rectangle it is drawn in.
fn texts(
    width: f32,
    height: f32,
    mut ui_fn: impl FnMut(&mut egui::Ui),
) -> Vec<(String, Rect, Rect)> {
    let ctx = egui::Context::default();
    let input = || egui::RawInput {
        screen_rect: Some(Rect::from_min_size(Pos2::ZERO, egui::vec2(width, height))),
        ..Default::default()
    };
    // Two passes: egui sizes some things in the first.
    ctx.run_ui(input(), &mut ui_fn).textures_delta.clear();
    let mut out = ctx.run_ui(input(), &mut ui_fn);
    out.textures_delta.clear();
    let mut found = Vec::new();
    fn walk(shape: &Shape, clip: Rect, found: &mut Vec<(String, Rect, Rect)>) {
        match shape {
            Shape::Text(t) => found.push((
                t.galley.text().to_string(),
                t.galley.rect.translate(t.pos.to_vec2()),
                clip,
            )),
            Shape::Vec(v) => v.iter().for_each(|s| walk(s, clip, found)),
            _ => {}
        }
    }
    for c in &out.shapes {
        walk(&c.shape, c.clip_rect, &mut found);
    }
    found
}

fn shown<'a>(found: &'a [(String, Rect, Rect)], text: &str) -> Option<&'a (String, Rect, Rect)> {
    found
        .iter()
        .find(|(t, r, clip)| t == text && clip.contains_rect(*r))
}

#[test]
fn the_tabs_show_under_the_menu_bar() {
    let mut tab = Tab::Mandelbrot;
    let recent = RecentFiles { paths: Vec::new() };
    let found = texts(900.0, 600.0, |ui| {
        egui::Panel::top("menu").show(ui, |ui| {
            menu_bar_ui(ui, &recent, MenuState::default());
        });
        egui::Panel::top("tabs").show(ui, |ui| tabs_ui(ui, &mut tab));
    });
    for text in ["File", "Edit", "View", "Help", "Image", "Mandelbrot"] {
        assert!(
            shown(&found, text).is_some(),
            "'{text}' not shown: {found:?}"
        );
    }
    let menu = shown(&found, "File").map(|f| f.1).expect("menu");
    // "Image" names a menu too: the Mandelbrot tab stands for the strip.
    let tabs = shown(&found, "Mandelbrot").map(|f| f.1).expect("tab");
    assert!(
        tabs.top() >= menu.bottom(),
        "tabs {tabs:?} under the menu {menu:?}"
    );
}

#[test]
fn the_status_bar_is_one_line_in_a_narrow_window() {
    let backend = BackendStatus {
        kind: BackendKind::Cpu,
        reason: "no CUDA device: a long explanation of why the CPU backend runs here, \
                 which used to wrap the status bar onto a second line"
            .into(),
    };
    let stages: Vec<StageTime> = ["sobel", "gaussian", "median", "histogram", "upload"]
        .iter()
        .map(|n| StageTime {
            name: (*n).into(),
            ms: 123.456,
        })
        .collect();
    let message = StatusMessage::new(
        "/a/very/long/path/to/some/folder/with/a/picture-of-a-cat-from-the-holidays.png: \
         opened, converted from 16-bit RGB to 8-bit RGBA for display"
            .repeat(2),
        false,
    );
    let line = StatusLine {
        backend: &backend,
        interop: None,
        size: Some((4000, 3000)),
        frame_ms: 675.0,
        stages: &stages,
        pixel: Some("(1234, 2345) in R −0.1234 G 1.5 B 65535 A 1 · out R 0 G 0 B 0 A 255".into()),
        zoom_percent: Some(12.5),
        message: Some(&message),
    };
    let found = texts(900.0, 600.0, |ui| {
        egui::Panel::bottom("status").show(ui, |ui| status_bar_ui(ui, &line));
    });
    let rows: Vec<f32> = found.iter().map(|(_, r, _)| r.center().y.round()).collect();
    let (min, max) = rows
        .iter()
        .fold((f32::MAX, f32::MIN), |(a, b), &y| (a.min(y), b.max(y)));
    assert!(!rows.is_empty());
    assert!(
        max - min <= 2.0,
        "status bar spans rows {min}..{max}: {found:?}"
    );
    for (text, r, _) in &found {
        assert!(r.right() <= 900.5, "'{text}' runs off the window: {r:?}");
    }
}

#[test]
fn the_filter_panel_keeps_its_width_frame_after_frame() {
    let ctx = egui::Context::default();
    // Every filter, with its sliders.
    let mut stack = FilterStack {
        entries: crate::filters::FILTERS
            .iter()
            .filter_map(|d| FilterEntry::of_def(d))
            .collect(),
    };
    let input = || egui::RawInput {
        screen_rect: Some(Rect::from_min_size(Pos2::ZERO, egui::vec2(1600.0, 1000.0))),
        ..Default::default()
    };
    let mut central = Rect::NOTHING;
    // A scripted run draws 40 frames and more: a panel that grew a little each frame (its
    // sliders wider than its room) would end up taking the whole window.
    for _ in 0..120 {
        let mut out = ctx.run_ui(input(), |ui| {
            side_panel_ui(ui, "filters", |ui| filter_stack_ui(ui, &mut stack, None));
            egui::CentralPanel::default().show(ui, |ui| central = ui.max_rect());
        });
        out.textures_delta.clear();
    }
    let widest = *SIDE_PANEL_WIDTHS.end();
    assert!(
        central.left() <= widest + 20.0 && central.width() >= 1600.0 - widest - 20.0,
        "the image's room after 120 frames: {central:?}"
    );
}
