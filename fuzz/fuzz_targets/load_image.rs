//! Image loading, every format: any bytes either decode to an image of the size
//! the file declares or give a `LoadError`; never a panic, a hang or an allocation past
//! the admission (here 4096² and a 256 MiB budget, so libFuzzer's RSS limit holds).
#![no_main]

use cudalens::image_io::{load_image_from_bytes, Admission, Declared};
use libfuzzer_sys::fuzz_target;
use std::path::Path;

fn admit(d: Declared) -> Result<(), String> {
    let need = d.decoder_bytes + d.image_bytes + 2 * d.rgba_bytes().max(d.image_bytes);
    if need > 256 << 20 {
        return Err(format!("needs {need} bytes"));
    }
    Ok(())
}

fuzz_target!(|data: &[u8]| {
    let admission = Admission {
        max_side: 4096,
        admit: &admit,
    };
    if let Ok(loaded) = load_image_from_bytes(Path::new("fuzz"), data.to_vec(), &admission) {
        let (w, h) = loaded.pixels.dimensions();
        assert!(w >= 1 && h >= 1 && w <= 4096 && h <= 4096);
        let samples = w as usize * h as usize * usize::from(loaded.pixels.channels());
        assert_eq!(loaded.pixels.byte_len(), samples * loaded.pixels.sample_type().bytes());
    }
});
