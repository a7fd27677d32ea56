//! The GL layer on a headless EGL context (Mesa here and in CI, NVIDIA on the GPU machine):
//! textures and buffers round-trip exactly, including the PBO → texture copy the Mandelbrot
//! view uses and the pack-buffer readback used to save results.

mod common;

use common::gpu::headless_gl;

use cudalens::gl::{GlBuffer, GlTexture};
use cudalens::ops::random_image;

#[test]
fn textures_round_trip_exactly() {
    let Some(ctx) = headless_gl() else { return };
    let gl = &ctx.gl;
    for (w, h) in [(1, 1), (7, 3), (333, 97)] {
        let img = random_image(w, h, u64::from(w * h));
        let mut tex = GlTexture::new(gl, w, h, Some(img.as_raw())).expect("texture");
        assert_eq!(tex.read(gl).expect("read"), img, "{w}x{h}");
        assert_eq!(
            tex.read_pixel(gl, w - 1, h - 1),
            Some(img.get_pixel(w - 1, h - 1).0)
        );
        tex.fill(gl, [1, 2, 3, 4]).expect("fill");
        assert!(tex
            .read(gl)
            .expect("read")
            .pixels()
            .all(|p| p.0 == [1, 2, 3, 4]));
        let bigger = random_image(w + 5, h + 2, 9);
        tex.upload(gl, &bigger).expect("upload resizes");
        assert_eq!(tex.read(gl).expect("read"), bigger);
        tex.destroy(gl);
    }
}

#[test]
fn pixel_buffer_reaches_the_texture_on_the_gl_side() {
    let Some(ctx) = headless_gl() else { return };
    let gl = &ctx.gl;
    let img = random_image(64, 40, 5);
    let pbo = GlBuffer::new(gl, img.as_raw().len()).expect("buffer");
    pbo.write(gl, img.as_raw()).expect("write");
    assert_eq!(pbo.read(gl).expect("read"), img.as_raw().as_slice());
    let tex = GlTexture::new(gl, 64, 40, None).expect("texture");
    tex.upload_from_pbo(gl, &pbo).expect("PBO upload");
    assert_eq!(tex.read(gl).expect("read"), img);
    let small = GlBuffer::new(gl, 16).expect("buffer");
    assert!(
        tex.upload_from_pbo(gl, &small).is_err(),
        "a too-small PBO is refused"
    );
    assert!(
        GlTexture::new(gl, 0, 5, None).is_err(),
        "zero-sized textures are refused"
    );
    for b in [pbo, small] {
        b.destroy(gl);
    }
    tex.destroy(gl);
}
