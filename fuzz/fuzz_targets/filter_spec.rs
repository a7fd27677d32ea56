//! Filter specifications: any text parses to a valid filter or an error; a parsed filter
//! is valid, prints to a specification that parses back to itself, and runs on a small
//! image without panicking.
#![no_main]

use cudalens::filters::Filter;
use libfuzzer_sys::fuzz_target;

fuzz_target!(|data: &[u8]| {
    let Ok(text) = std::str::from_utf8(data) else {
        return;
    };
    let Ok(filter) = text.parse::<Filter>() else {
        return;
    };
    assert!(
        filter.validate().is_ok(),
        "{text:?} parsed to an invalid {filter:?}"
    );
    let printed = filter.to_string();
    let again: Filter = printed
        .parse()
        .unwrap_or_else(|e| panic!("{filter:?} prints as {printed:?}, which fails: {e}"));
    assert_eq!(again, filter, "{printed:?}");
    let image = cudalens::ops::random_image(5, 3, 1);
    let out = filter.apply_cpu(&image);
    assert_eq!(
        out.dimensions(),
        filter.output_size(image.width(), image.height())
    );
});
