//! Golden outputs of real photographs: the CPU reference must keep producing them.
//!
//! Each golden was written by the CPU backend after that backend had been checked against
//! the plain reference implementations in `src/ops/cpu/` (the unit tests); it guards against
//! regressions of the contract. `CUDALENS_BLESS=1 cargo test --test golden` rewrites them.

mod common;

use common::{data, max_difference, photo};
use cudalens::ops::{cpu, Filter};

fn cases() -> Vec<(&'static str, &'static str, Vec<Filter>)> {
    vec![
        (
            "astronaut.png",
            "astronaut-sobel.png",
            vec![Filter::Sobel { scale: 1.0 }],
        ),
        (
            "coffee.png",
            "coffee-gaussian3.png",
            vec![Filter::gaussian(3.0)],
        ),
        (
            "camera.png",
            "camera-box7.png",
            vec![Filter::Box { radius: 7 }],
        ),
        (
            "logo.png",
            "logo-transpose-sobel.png",
            vec![Filter::Transpose, Filter::Sobel { scale: 2.0 }],
        ),
    ]
}

#[test]
fn cpu_backend_reproduces_the_golden_outputs() {
    let bless = std::env::var("CUDALENS_BLESS").is_ok_and(|v| v == "1");
    for (input, golden, filters) in cases() {
        let got = cpu::apply_filters(&photo(input), &filters);
        let path = data(&format!("golden/{golden}"));
        if bless {
            got.save(&path).expect("write golden");
            continue;
        }
        let want = image::open(&path).expect("golden exists").into_rgba8();
        let (max, count) = max_difference(&got, &want);
        assert_eq!(
            max, 0,
            "{golden}: {count} channel values differ (max {max})"
        );
    }
}
