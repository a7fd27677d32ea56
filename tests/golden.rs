//! Golden outputs of real photographs: the CPU reference must keep producing them.
//!
//! Each filter's descriptor lists its goldens (`FilterDef::goldens`). Each was written by the
//! CPU backend after that backend had been checked against the plain reference
//! implementations (the unit tests); it guards against regressions of the contract.
//! `CUDALENS_BLESS=1 cargo test --test golden` writes the missing ones and rewrites the rest
//! (`git diff` then shows any change).

mod common;

use common::{data, max_difference, photo};
use cudalens::filters::{apply_cpu, Filter, FILTERS};

#[test]
fn cpu_backend_reproduces_the_golden_outputs() {
    let bless = std::env::var("CUDALENS_BLESS").is_ok_and(|v| v == "1");
    let mut checked = 0;
    for golden in FILTERS.iter().flat_map(|d| d.goldens) {
        let filters: Vec<Filter> = golden
            .specs
            .iter()
            .map(|s| s.parse().expect("golden spec parses"))
            .collect();
        let got = apply_cpu(&photo(golden.photo), &filters);
        let path = data(&format!("golden/{}", golden.file));
        if bless {
            got.save(&path).expect("write golden");
            continue;
        }
        let want = image::open(&path)
            .unwrap_or_else(|e| panic!("golden {} missing ({e}): bless it", golden.file))
            .into_rgba8();
        let (max, count) = max_difference(&got, &want);
        assert_eq!(
            max, 0,
            "{}: {count} channel values differ (max {max})",
            golden.file
        );
        checked += 1;
    }
    assert!(
        bless || checked >= FILTERS.len(),
        "every filter has a golden"
    );
}
