//! `levels[:black=B,white=W,gamma=G,out_black=C,out_white=D]`: per R, G and B channel
//! `out = C + (D − C) · clamp((v − B) / (W − B), 0, 1)^(1/G)`, rounded to nearest with ties
//! away from zero; alpha kept. Every key is optional (defaults 0, 255, 1, 0, 255: the
//! identity); `0 ≤ B < W ≤ 255`, `0.01 < G ≤ 10`, `C` and `D` in 0..=255 (`C > D` inverts).
//!
//! The 256-entry table is computed once per parameter set on the host in f64 (`cpu.rs`,
//! also the CPU reference); the CUDA kernel (`kernels/filters/levels.cu`) looks up the same
//! table, uploaded to the scratch: exact on the GPU.
//!
//! Every sample type and channel count: the generic reference in `typed.rs` (its rules
//! there; `docs/design/pixel-types.md`), equal to `cpu_rgba8` on RGBA8.

mod cpu;
mod typed;

use super::param::typed_params;
use super::param::Default::Value;
use super::{FilterDef, FilterOps, Golden, GpuStage, ParamDef, Params};
use crate::cuda::{blocks, check_scratch, CudaError};
use cudarc::driver::{LaunchConfig, PushKernelArg};
use crate::pixels::{PixelImage, SampleType};
use std::sync::{Arc, Mutex};
use image::RgbaImage;

/// Bytes of the table in the scratch.
const LUT_BYTES: usize = 256;
/// Block of the kernel, one pixel a thread (the kernel takes its layout from the launch).
const BLOCK_X: u32 = 32;
const BLOCK_Y: u32 = 8;

pub struct Levels;

const PARAMS: &[ParamDef] = &[
    ParamDef::int("black", 0, 255, Value(0.0)),
    ParamDef::int("white", 0, 255, Value(255.0)),
    ParamDef::real("gamma", 0.01, 10.0, Value(1.0))
        .min_exclusive()
        .label("γ")
        .logarithmic(),
    ParamDef::int("out_black", 0, 255, Value(0.0)),
    ParamDef::int("out_white", 0, 255, Value(255.0)),
];

typed_params! {
    /// The input range, the gamma and the output range.
    pub struct LevelsParams for PARAMS => {
        black: u32,
        white: u32,
        gamma: f32,
        out_black: u32,
        out_white: u32,
    }
}

/// The table of `p` ([`cpu::levels_lut`]), which both backends look up.
/// The parameters of the generic reference and the typed kernels.
fn typed_levels(p: &Params) -> typed::Levels {
    let l = LevelsParams::from_params(p);
    typed::Levels {
        input: (l.black, l.white),
        gamma: l.gamma,
        output: (l.out_black, l.out_white),
    }
}

/// The map's constants as the typed kernels take them (`LevelsMap` in levels.cu).
#[repr(C)]
#[derive(Clone, Copy)]
struct KernelMap([f64; 5]);

// SAFETY: five f64, passed by value as the kernel's `LevelsMap` of five doubles.
unsafe impl cudarc::driver::DeviceRepr for KernelMap {}

/// The last integer table made, kept for the next frame (65536 `powf` take about a
/// millisecond): the parameters and type it was made for, and its bytes.
type TableCache = Option<(typed::Levels, SampleType, Arc<Vec<u8>>)>;
static LAST_TABLE: Mutex<TableCache> = Mutex::new(None);

/// The bytes of the table of every value of `sample` (little-endian; empty for floats).
fn integer_table(levels: &typed::Levels, sample: SampleType) -> Arc<Vec<u8>> {
    let mut last = LAST_TABLE.lock().unwrap_or_else(|poisoned| poisoned.into_inner());
    if let Some((l, t, bytes)) = last.as_ref() {
        if l == levels && *t == sample {
            return bytes.clone();
        }
    }
    let bytes = Arc::new(match sample {
        SampleType::U8 => typed::levels_table::<u8>(levels),
        SampleType::U16 => typed::levels_table::<u16>(levels)
            .iter()
            .flat_map(|v| v.to_le_bytes())
            .collect(),
        SampleType::F32 => Vec::new(),
    });
    *last = Some((*levels, sample, bytes.clone()));
    bytes
}

/// The levels of a typed stage: integer types look up the reference's table of every
/// value (uploaded to the scratch), floats map on the device in f64.
fn launch_typed(stage: &mut GpuStage<'_>, levels: &typed::Levels) -> Result<(), CudaError> {
    let (w, h) = (stage.width, stage.height);
    let sample = stage.layout.0;
    let table = integer_table(levels, sample);
    if !table.is_empty() {
        check_scratch("levels", stage.scratch.len(), table.len())?;
        stage
            .stream
            .memcpy_htod(table.as_slice(), &mut stage.scratch.slice_mut(0..table.len()))
            .map_err(CudaError::driver("cuMemcpyHtoD(levels table)"))?;
    }
    let full = f64::from(sample.full_scale());
    let m = typed::LevelsMap::new(levels, full / 255.0);
    let map = KernelMap([m.black, m.span, m.lo, m.hi, m.inv_gamma]);
    let kernel = crate::typed_kernel!("levels", stage.layout)?;
    let cfg = GpuStage::pixel_grid(w, h);
    let f = stage.kernels.function("levels", kernel, &cfg)?;
    let (s, d, wi, hi) = (stage.input.handle(), stage.output.handle(), w as i32, h as i32);
    let mut b = stage.stream.launch_builder(&f);
    b.arg(&s).arg(&d).arg(&wi).arg(&hi).arg(&*stage.scratch).arg(&map);
    // SAFETY: matches `levels_<format>(tex, surf, int, int, const T*, LevelsMap)`; integer
    // formats read their table (every value of T) from the scratch, written above on this
    // stream; floats do not read it. Writes stay inside w × h of the output.
    unsafe { b.launch(cfg) }
        .map(|_| ())
        .map_err(CudaError::launch(kernel))
}

fn levels_lut(p: &LevelsParams) -> [u8; 256] {
    cpu::levels_lut((p.black, p.white), p.gamma, (p.out_black, p.out_white))
}

pub static LEVELS: FilterDef = FilterDef {
    name: "levels",
    aliases: &[],
    summary: "levels[:black=B,white=W,gamma=G,out_black=C,out_white=D]  C + (D − C)·clamp((v − B)/(W − B), 0, 1)^(1/G) per channel (0 ≤ B < W ≤ 255, 0.01 < G ≤ 10, C, D in 0..=255; defaults 0, 255, 1, 0, 255), exact",
    ui_default: "levels:black=16,white=235,gamma=1.2",
    params: PARAMS,
    gpu_tolerance: 0,
    kernel_modules: &["levels"],
    bench_specs: &["levels:black=16,white=235,gamma=2.2"],
    test_specs: &[
                "levels",
                "levels:black=16,white=235,gamma=2.2,out_black=20,out_white=230",
                "levels:black=0,white=1,gamma=10",
                "levels:black=254,white=255,gamma=0.011,out_black=255,out_white=0",
            ],
    goldens: &[Golden {
                photo: "astronaut.png",
                specs: &["levels:black=20,white=220,gamma=1.6,out_black=8,out_white=248"],
                file: "astronaut-levels.png",
            }],
    note: None,
    ops: &Levels,
};

impl FilterOps for Levels {
    fn check(&self, p: &Params) -> Result<(), String> {
        let LevelsParams { black, white, .. } = LevelsParams::from_params(p);
        if black < white {
            Ok(())
        } else {
            Err(format!("black ({black}) must be below white ({white})"))
        }
    }

    fn cpu_rgba8(&self, image: &RgbaImage, p: &Params) -> RgbaImage {
        cpu::apply_lut(image, &levels_lut(&LevelsParams::from_params(p)))
    }

    fn cpu(&self, image: &PixelImage, p: &Params) -> PixelImage {
        let levels = typed_levels(p);
        crate::map_pixels!(image, b => typed::levels_typed(b, &levels))
    }

    fn scratch_bytes(&self, _: u32, _: u32, layout: (SampleType, u8), _: &Params) -> usize {
        match layout.0 {
            SampleType::U16 => 65536 * 2,
            _ => LUT_BYTES,
        }
    }

    fn launch(&self, stage: &mut GpuStage<'_>, p: &Params) -> Result<(), CudaError> {
        let (w, h) = (stage.width, stage.height);
        if !stage.is_rgba8() {
            return launch_typed(stage, &typed_levels(p));
        }
        check_scratch("levels", stage.scratch.len(), LUT_BYTES)?;
        let lut = levels_lut(&LevelsParams::from_params(p)).to_vec();
        let mut head = stage.scratch.slice_mut(0..LUT_BYTES);
        stage
            .stream
            .memcpy_htod(&lut, &mut head)
            .map_err(CudaError::driver("cuMemcpyHtoD(levels table)"))?;
        let cfg = LaunchConfig {
            grid_dim: (blocks(w, BLOCK_X), blocks(h, BLOCK_Y), 1),
            block_dim: (BLOCK_X, BLOCK_Y, 1),
            shared_mem_bytes: 0,
        };
        let f = stage.kernels.function("levels", "levels", &cfg)?;
        let (s, d, wi, hi) = (
            stage.input.handle(),
            stage.output.handle(),
            w as i32,
            h as i32,
        );
        let mut b = stage.stream.launch_builder(&f);
        b.arg(&s).arg(&d).arg(&wi).arg(&hi).arg(&*stage.scratch);
        // SAFETY: matches `levels(tex, surf, int, int, const unsigned int*)`; the table's
        // 256 bytes are at the start of the checked scratch, written above on this stream;
        // the kernel writes only inside w × h of the output, which has that size.
        unsafe { b.launch(cfg) }
            .map(|_| ())
            .map_err(CudaError::launch("levels"))
    }
}

#[cfg(test)]
mod tests {
    use crate::filters::Filter;

    fn parse(spec: &str) -> Result<Filter, String> {
        spec.parse::<Filter>().map_err(|e| e.to_string())
    }

    #[test]
    fn every_key_is_optional_and_defaults_to_the_identity() {
        let f = parse("levels").unwrap();
        assert_eq!(
            f.to_string(),
            "levels:black=0,white=255,gamma=1,out_black=0,out_white=255"
        );
        assert_eq!(
            parse("LEVELS:gamma=2.2,white=200").unwrap().to_string(),
            "levels:black=0,white=200,gamma=2.2,out_black=0,out_white=255"
        );
        let img = crate::ops::random_image(19, 7, 2);
        assert_eq!(f.apply_cpu(&img), img);
    }

    #[test]
    fn refuses_bad_specifications_with_one_clear_line() {
        let cases = [
            (
                "levels:black=200,white=100",
                "filter 'levels': black (200) must be below white (100)",
            ),
            (
                "levels:white=0",
                "filter 'levels': black (0) must be below white (0)",
            ),
            (
                "levels:gamma=0.01",
                "parameter 'gamma' of 'levels' is 0.01, outside 0.01 < gamma ≤ 10",
            ),
            (
                "levels:gamma=10.5",
                "parameter 'gamma' of 'levels' is 10.5, outside 0.01 < gamma ≤ 10",
            ),
            (
                "levels:black=256",
                "parameter 'black' of 'levels' is 256, outside 0..=255",
            ),
            (
                "levels:out_white=-1",
                "parameter 'out_white' of 'levels' is -1, outside 0..=255",
            ),
            (
                "levels:black=1.5",
                "parameter 'black' of 'levels' must be a whole number, not 1.5",
            ),
            (
                "levels:gamma=NaN",
                "parameter 'gamma' of 'levels' is NaN, outside 0.01 < gamma ≤ 10",
            ),
            (
                "levels:black=1,black=2",
                "parameter 'black' of 'levels' is given twice",
            ),
        ];
        for (spec, want) in cases {
            let err = parse(spec).expect_err(spec);
            assert_eq!(err, want, "{spec}");
            assert!(!err.contains('\n'), "{spec}");
        }
        for spec in ["levels:gamma", "levels:level=3", "levels:gamma=x", "levels:gamma=inf"] {
            assert!(parse(spec).is_err(), "{spec} was accepted");
        }
        for spec in ["levels:gamma=10", "levels:gamma=0.0101", "levels:black=254,white=255"] {
            assert!(parse(spec).is_ok(), "{spec} was refused");
        }
    }

    #[test]
    fn a_slider_cannot_move_black_past_white() {
        let mut f = parse("levels:black=10,white=100").unwrap();
        f.set_param(0, 150.0, true);
        assert_eq!(f.to_string(), "levels:black=10,white=100,gamma=1,out_black=0,out_white=255");
        f.set_param(0, 99.0, true);
        f.set_param(1, 50.0, true);
        assert_eq!(f.to_string(), "levels:black=99,white=100,gamma=1,out_black=0,out_white=255");
        assert!(f.validate().is_ok());
    }
}
