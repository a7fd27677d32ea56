//! Presets: a stack saved the way the window saves it runs from `apply --preset` with the
//! same result; unknown presets and conflicting options are clear usage errors; the
//! completions and the help are there.

mod common;

use assert_cmd::Command;
use common::{data, photo};
use cudalens::app::presets::{save_preset_in, Preset};
use cudalens::app::{FilterEntry, FilterStack, CONFIG_DIR_ENV};
use cudalens::filters::Filter;
use cudalens::pipeline::cpu_filters;
use std::path::Path;

fn f(spec: &str) -> Filter {
    spec.parse().expect("spec")
}

fn cudalens(config: &Path) -> Command {
    let mut c = Command::cargo_bin("cudalens").expect("binary built");
    c.env(CONFIG_DIR_ENV, config);
    c
}

fn s(p: &Path) -> &str {
    p.to_str().expect("utf-8 path")
}

/// A stack edited as in the window: every filter added with its defaults after a tuned
/// box, one added twice, reordered, one switched off.
fn window_stack() -> FilterStack {
    let mut stack = FilterStack::new(&[f("box:radius=4").into()]);
    for def in cudalens::filters::FILTERS {
        stack.entries.extend(FilterEntry::of_def(def));
    }
    stack.duplicate(1);
    for e in &mut stack.entries {
        e.enabled = e.filter.label() != "transpose";
    }
    stack.move_entry(0, 3);
    stack
}

#[test]
fn a_preset_from_the_window_runs_from_the_cli_with_the_same_result() {
    let config = tempfile::tempdir().expect("tempdir");
    let stack = window_stack();
    let preset = Preset {
        name: "soft edges".into(),
        filters: stack.active(),
    };
    assert!(preset.filters.len() >= 3);
    save_preset_in(&config.path().join("presets"), &preset).expect("saved");
    let out = config.path().join("out.png");
    cudalens(config.path())
        .args(["apply", s(&data("coffee.png")), "-o", s(&out)])
        .args(["--preset", "soft edges", "--backend", "cpu"])
        .assert()
        .success();
    let got = image::open(&out).expect("written").into_rgba8();
    assert_eq!(
        got,
        cudalens::filters::apply_cpu(
            &photo("coffee.png"),
            &cpu_filters(&stack.active()).expect("built-ins")
        )
    );
}

#[test]
fn unknown_presets_and_presets_with_filters_are_usage_errors() {
    let config = tempfile::tempdir().expect("tempdir");
    let out = config.path().join("out.png");
    let result = cudalens(config.path())
        .args([
            "apply",
            s(&data("coffee.png")),
            "-o",
            s(&out),
            "--preset",
            "nope",
        ])
        .output()
        .expect("runs");
    let stderr = String::from_utf8_lossy(&result.stderr);
    assert_eq!(result.status.code(), Some(2), "{stderr}");
    assert!(stderr.contains("no preset named 'nope'"), "{stderr}");
    assert_eq!(stderr.trim().lines().count(), 1, "{stderr}");
    let result = cudalens(config.path())
        .args([
            "apply",
            s(&data("coffee.png")),
            "-o",
            s(&out),
            "--preset",
            "x",
        ])
        .args(["--filter", "sobel"])
        .output()
        .expect("runs");
    assert_eq!(result.status.code(), Some(2));
    assert!(!out.exists());
}

#[test]
fn completions_and_help_examples_are_printed() {
    let config = tempfile::tempdir().expect("tempdir");
    for shell in ["bash", "zsh", "fish"] {
        let out = cudalens(config.path())
            .args(["completions", shell])
            .output()
            .expect("runs");
        assert!(out.status.success(), "{shell}");
        let text = String::from_utf8_lossy(&out.stdout);
        assert!(
            text.contains("cudalens") && text.contains("preset"),
            "{shell}"
        );
    }
    let help = cudalens(config.path())
        .arg("--help")
        .output()
        .expect("runs");
    let text = String::from_utf8_lossy(&help.stdout);
    assert!(
        text.contains("Examples:") && text.contains("cudalens apply"),
        "{text}"
    );
}
