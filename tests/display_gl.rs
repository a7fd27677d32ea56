//! The display shader (`shaders/display.frag`) against its CPU reference
//! (`app::display::display_rgba8`): typed textures of every kind, window/level, gamma and
//! LUTs, within one level, on random U16/F32 images and a real photo widened to 16 bits.

mod common;

use common::gpu::headless_gl;

use cudalens::app::display::{
    display_rgba8, render_display, upload_pixels, BrightnessContrast, DisplayRange,
    DisplaySettings, Lut,
};
use cudalens::gl::{DisplayRenderer, GlTexture, HeadlessGl};
use cudalens::pixels::{ImageBuf, PixelImage};

/// xorshift64: reproducible noise without a dependency.
fn noise(seed: u64) -> impl FnMut() -> u64 {
    let mut s = seed | 1;
    move || {
        s ^= s << 13;
        s ^= s >> 7;
        s ^= s << 17;
        s
    }
}

fn random_u16(w: u32, h: u32, channels: u8, seed: u64) -> PixelImage {
    let mut next = noise(seed);
    PixelImage::U16(ImageBuf::from_fn(w, h, channels, |_, _, _| next() as u16).expect("size"))
}

/// Floats in −2..3 with some NaN and infinities.
fn random_f32(w: u32, h: u32, channels: u8, seed: u64) -> PixelImage {
    let mut next = noise(seed);
    PixelImage::F32(
        ImageBuf::from_fn(w, h, channels, |_, _, _| match next() % 1000 {
            0 => f32::NAN,
            1 => f32::INFINITY,
            2 => f32::NEG_INFINITY,
            n => (n as f32 / 200.0) - 2.0,
        })
        .expect("size"),
    )
}

/// The largest difference in levels between the shader's and the CPU's pictures: of any
/// channel for colour images, of the LUT index for grey ones (a LUT entry for a level
/// within one of the CPU's counts as off by one, 2 otherwise).
fn gpu_vs_cpu(ctx: &HeadlessGl, image: &PixelImage, settings: &DisplaySettings) -> u8 {
    let gl = &ctx.gl;
    let source = upload_pixels(gl, image).expect("upload");
    let mut renderer = DisplayRenderer::new(gl).expect("renderer");
    let mut target = GlTexture::new(gl, 1, 1, None).expect("target");
    target.fill(gl, [7, 7, 7, 7]).expect("poison");
    render_display(gl, &mut renderer, &source, settings, &mut target).expect("render");
    let gpu = target.read(gl).expect("read");
    source.destroy(gl);
    target.destroy(gl);
    renderer.destroy(gl);
    let cpu = display_rgba8(image, settings);
    assert_eq!(gpu.dimensions(), cpu.dimensions());
    if image.channels() != 1 || settings.lut == Lut::Grey {
        return gpu
            .as_raw()
            .iter()
            .zip(cpu.as_raw())
            .map(|(a, b)| a.abs_diff(*b))
            .max()
            .unwrap_or(0);
    }
    let levels = display_rgba8(
        image,
        &DisplaySettings {
            lut: Lut::Grey,
            ..*settings
        },
    );
    gpu.pixels()
        .zip(levels.pixels())
        .map(|(g, l)| {
            let l = i32::from(l.0[0]);
            let near = |d: i32| {
                let k = (l + d).clamp(0, 255) as u8;
                settings.lut.colour(k) == [g.0[0], g.0[1], g.0[2]]
            };
            match () {
                _ if near(0) => 0,
                _ if near(-1) || near(1) => 1,
                _ => 2,
            }
        })
        .max()
        .unwrap_or(0)
}

fn range(min: f64, max: f64, gamma: f64) -> DisplayRange {
    DisplayRange { min, max, gamma }
}

#[test]
fn random_16_bit_images_match_the_cpu() {
    let Some(ctx) = headless_gl() else { return };
    for (channels, lut) in [
        (1, Lut::Grey),
        (1, Lut::Fire),
        (1, Lut::Viridis),
        (3, Lut::Grey),
        (4, Lut::Grey),
    ] {
        let image = random_u16(97, 61, channels, u64::from(channels) * 31 + lut as u64);
        let mut settings = DisplaySettings::linked(range(9000.0, 51000.0, 1.0));
        settings.lut = lut;
        assert!(
            gpu_vs_cpu(&ctx, &image, &settings) <= 1,
            "{channels} channels, {lut:?}"
        );
        settings.ranges = [
            range(0.0, 65535.0, 0.45),
            range(30000.0, 30100.0, 1.0),
            range(500.0, 500.0, 2.2),
        ];
        settings.linked = false;
        assert!(
            gpu_vs_cpu(&ctx, &image, &settings) <= 1,
            "{channels} channels, unlinked"
        );
    }
}

#[test]
fn random_float_images_match_the_cpu() {
    let Some(ctx) = headless_gl() else { return };
    for channels in [1, 3, 4] {
        let image = random_f32(64, 33, channels, 7 + u64::from(channels));
        let mut settings = DisplaySettings::linked(range(-1.5, 2.5, 1.0));
        settings.lut = Lut::Viridis;
        assert!(
            gpu_vs_cpu(&ctx, &image, &settings) <= 1,
            "{channels} channels"
        );
        settings.ranges = [
            range(0.0, 1.0, 3.0),
            range(-2.0, 0.0, 0.3),
            range(1.0, 1.0, 1.0),
        ];
        assert!(
            gpu_vs_cpu(&ctx, &image, &settings) <= 1,
            "{channels} channels, gamma"
        );
    }
}

#[test]
fn eight_bit_images_match_the_cpu() {
    let Some(ctx) = headless_gl() else { return };
    let rgba = cudalens::ops::random_image(45, 23, 11);
    let image = PixelImage::from_rgba8(rgba);
    for settings in [
        DisplaySettings::linked(range(0.0, 255.0, 1.0)),
        DisplaySettings::linked(range(40.0, 200.0, 1.7)),
    ] {
        assert!(gpu_vs_cpu(&ctx, &image, &settings) <= 1);
        let grey = image.with_channels(1).expect("grey");
        assert!(gpu_vs_cpu(&ctx, &grey, &settings) <= 1);
        let rgb = image.with_channels(3).expect("rgb");
        assert!(gpu_vs_cpu(&ctx, &rgb, &settings) <= 1);
    }
}

#[test]
fn a_photo_widened_to_16_bits_matches_the_cpu() {
    let Some(ctx) = headless_gl() else { return };
    let path = common::repo_root().join("assets/chelsea.png");
    let rgba = image::open(&path).expect("chelsea.png").to_rgba8();
    let wide = PixelImage::from_rgba8(rgba)
        .with_channels(3)
        .expect("rgb")
        .to_type(cudalens::pixels::SampleType::U16);
    // Auto as the panel does it, then a gamma; and the grey version through fire.
    let mut bc = BrightnessContrast::for_image(&wide);
    bc.auto();
    bc.set_gamma(0.8).expect("gamma");
    assert!(gpu_vs_cpu(&ctx, &wide, bc.settings()) <= 1);
    let grey = wide.with_channels(1).expect("grey");
    let mut bc = BrightnessContrast::for_image(&grey);
    bc.auto();
    bc.auto();
    bc.set_lut(Lut::Fire);
    assert!(gpu_vs_cpu(&ctx, &grey, bc.settings()) <= 1);
}
