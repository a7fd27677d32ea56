//! Registry-wide checks: every descriptor is complete and consistent.

use super::*;
use crate::cuda::kernel_define;
use crate::kernel_constants::{self as constants, SHARED_CONSTANTS};

fn parse(spec: &str) -> Filter {
    spec.parse()
        .unwrap_or_else(|e| panic!("{spec} does not parse: {e}"))
}

#[test]
fn names_and_aliases_are_unique() {
    let mut seen = Vec::new();
    for d in FILTERS {
        for n in std::iter::once(d.name).chain(d.aliases.iter().copied()) {
            assert!(!seen.contains(&n), "{n} is registered twice");
            seen.push(n);
        }
        assert!(d.params.len() <= MAX_PARAMS, "{}", d.name);
    }
}

#[test]
fn every_kernel_module_is_embedded() {
    for name in kernel_modules() {
        assert!(
            crate::cuda::kernel_embedded(name),
            "kernels/{name}.cu is not built into the binary"
        );
    }
}

#[test]
fn kernels_take_the_shared_constants_from_the_generated_header() {
    let generated = include_str!(concat!(env!("OUT_DIR"), "/cudalens_constants.h"));
    assert_eq!(generated, constants::c_header());
    let explorer = ["mandelbrot", "perturbation"];
    for file in kernel_modules().into_iter().chain(explorer) {
        for (name, _) in SHARED_CONSTANTS {
            assert_eq!(
                kernel_define(file, name),
                None,
                "{name} defined again in {file}"
            );
        }
    }
    let header = constants::c_header();
    assert!(
        header.contains("#define CONV_ROWS_OUT_STRIDE 65\n")
            && header.contains("#define MS_MAX_LEVELS 12\n"),
        "{header}"
    );
}

#[test]
fn every_listed_spec_parses_belongs_to_its_filter_and_round_trips() {
    for d in FILTERS {
        let own = std::iter::once(d.ui_default)
            .chain(d.bench_specs.iter().copied())
            .chain(d.test_specs.iter().copied())
            .chain(d.goldens.iter().map(|g| g.specs[0]));
        for spec in own {
            let f = parse(spec);
            assert_eq!(f.name(), d.name, "{spec}");
            assert_eq!(parse(&f.to_string()), f, "{spec} → {f}");
        }
        for g in d.goldens {
            g.specs.iter().for_each(|s| {
                parse(s);
            });
        }
        assert!(!d.summary.is_empty() && d.summary.starts_with(d.name));
    }
}

#[test]
fn parses_the_documented_syntax() {
    assert_eq!(parse("sobel").to_string(), "sobel:scale=1");
    assert_eq!(parse("SOBEL:scale=2.5").to_string(), "sobel:scale=2.5");
    assert_eq!(parse("box:r=5").to_string(), "box:radius=5");
    assert_eq!(parse("gauss:s=2").to_string(), "gaussian:sigma=2,radius=6");
    assert_eq!(
        parse("gaussian:sigma=0.1").to_string(),
        "gaussian:sigma=0.1,radius=1"
    );
    assert_eq!(
        parse("gaussian:sigma=32").to_string(),
        "gaussian:sigma=32,radius=96"
    );
    assert_eq!(
        parse("gaussian:sigma=1.5,radius=9").to_string(),
        "gaussian:sigma=1.5,radius=9"
    );
    assert_eq!(parse("transpose").to_string(), "transpose");
    assert_eq!(parse("median:radius=7").to_string(), "median:radius=7");
    assert_eq!(
        parse("unsharp:sigma=2,amount=1.5").to_string(),
        "unsharp:sigma=2,amount=1.5,radius=6"
    );
    assert_eq!(parse("equalize").to_string(), "equalize");
}

#[test]
fn refuses_bad_specifications() {
    for bad in [
        "blur",
        "box",
        "box:radius=0",
        "box:radius=256",
        "box:radius=-1",
        "box:radius=x",
        "box:radius=2.5",
        "box:radius=3,radius=4",
        "box:size=3",
        "gaussian",
        "gaussian:sigma=0.05",
        "gaussian:sigma=33",
        "gaussian:sigma=NaN",
        "gaussian:sigma=2,radius=97",
        "sobel:scale=-1",
        "sobel:scale=0",
        "sobel:scale=inf",
        "sobel:scale=65",
        "transpose:x=1",
        "box:radius",
        "median:radius=8",
        "median:radius=0",
        "unsharp:sigma=2",
        "unsharp:sigma=2,amount=-0.5",
        "unsharp:sigma=2,amount=10.5",
        "equalize:x=1",
    ] {
        assert!(bad.parse::<Filter>().is_err(), "{bad} was accepted");
    }
}

#[test]
fn errors_say_what_is_wrong() {
    let err = |s: &str| s.parse::<Filter>().unwrap_err().to_string();
    assert_eq!(
        err("box:radius=-1"),
        "parameter 'radius' of 'box' is -1, outside 1..=255"
    );
    assert_eq!(
        err("sobel:scale=0"),
        "parameter 'scale' of 'sobel' is 0, outside 0 < scale ≤ 64"
    );
    assert!(err("blur").contains("median"), "{}", err("blur"));
}

#[test]
fn derived_parameters_follow_their_source_in_the_ui() {
    let mut g = parse("gaussian:sigma=2");
    g.set_param(0, 4.0, false);
    assert_eq!(g.to_string(), "gaussian:sigma=4,radius=12");
    g.set_param(1, 3.0, true);
    assert_eq!(g.to_string(), "gaussian:sigma=4,radius=3");
    let mut b = parse("box:radius=3");
    b.set_param(0, 1000.0, false);
    assert_eq!(b.to_string(), "box:radius=255");
}
