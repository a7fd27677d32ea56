//! The translation unit NVRTC compiles for a user kernel: the prelude (helpers, `Image`,
//! `Params`), then `#line 1 "user.cu"` and the user's source unchanged, then the generated
//! entry checks and, for the per-pixel form, the `__global__` wrapper.
//!
//! Whatever the user names things, the module's entry is `extern "C"`
//! [`ENTRY_NAME`], launched with `(texture, surface, width, height, Params)`.

use super::source::{Form, KernelSource, ParamKind};
use std::fmt::Write as _;

/// The kernel's name in the PTX, for `cuModuleGetFunction`.
pub const ENTRY_NAME: &str = "cudalens_user_kernel";
/// The file name diagnostics give the user's lines.
pub const USER_FILE: &str = "user.cu";
/// The file name diagnostics give the prelude's lines.
pub const PRELUDE_FILE: &str = "cudalens-prelude.cuh";
/// The file name diagnostics give the generated lines after the user's source.
pub const GENERATED_FILE: &str = "cudalens-generated.cu";
/// Size of the `Params` block in bytes: one 4-byte slot per parameter, padded to 16 slots.
pub const PARAMS_BYTES: usize = 64;

/// The helpers every user kernel gets (see the file for the list).
pub const PRELUDE_CUH: &str = include_str!("prelude.cuh");

/// The `Params` struct: the declared parameters in order, each in a 4-byte slot (a bool
/// is followed by 3 padding bytes), padded to [`PARAMS_BYTES`].
pub fn params_struct(source: &KernelSource) -> String {
    let mut s = String::from("struct Params {\n");
    for p in &source.params {
        let _ = writeln!(s, "    {} {};", p.kind.c_type(), p.name);
        if p.kind == ParamKind::Bool {
            let _ = writeln!(s, "    unsigned char cudalens_pad_{}[3];", p.name);
        }
    }
    let free = PARAMS_BYTES / 4 - source.params.len();
    if free > 0 {
        let _ = writeln!(s, "    unsigned int cudalens_pad[{free}];");
    }
    s.push_str("};\n");
    let _ = writeln!(
        s,
        "static_assert(sizeof(Params) == {PARAMS_BYTES} && alignof(Params) == 4, \"cudalens: Params layout\");"
    );
    s
}

const ENTRY_PARAMS: &str =
    "cudaTextureObject_t src, cudaSurfaceObject_t dst, int width, int height, Params p";

/// The whole source NVRTC compiles: viewable by the user as is.
pub fn translation_unit(source: &KernelSource) -> String {
    let mut s = String::with_capacity(PRELUDE_CUH.len() + source.text.len() + 2048);
    let threads = source.block.threads();
    let _ = writeln!(s, "#line 1 \"{PRELUDE_FILE}\"");
    s.push_str(PRELUDE_CUH);
    s.push('\n');
    s.push_str(&params_struct(source));
    s.push_str(concat!(
        "template <typename A, typename B> struct cudalens_same_type { static constexpr bool value = false; };\n",
        "template <typename A> struct cudalens_same_type<A, A> { static constexpr bool value = true; };\n",
    ));
    let _ = writeln!(
        s,
        "#define CUDALENS_BLOCK_X {}\n#define CUDALENS_BLOCK_Y {}\n#define CUDALENS_ROWS {}\n#define CUDALENS_SHARED_BYTES {}",
        source.block.x, source.block.y, source.rows, source.shared_bytes
    );
    if source.form == Form::Kernel {
        // The user's function gets this declaration's C linkage and launch bounds, and the
        // fixed name through the macro.
        let _ = writeln!(
            s,
            "extern \"C\" __global__ void __launch_bounds__({threads}) {ENTRY_NAME}({ENTRY_PARAMS});"
        );
        let _ = writeln!(s, "#define {} {ENTRY_NAME}", source.entry.name);
    }
    let _ = writeln!(s, "#line 1 \"{USER_FILE}\"");
    s.push_str(&source.text);
    if !source.text.ends_with('\n') {
        s.push('\n');
    }
    // The signature check reports at the entry's line.
    let _ = writeln!(s, "#line {} \"{USER_FILE}\"", source.entry.line);
    match source.form {
        Form::Kernel => {
            let _ = writeln!(
                s,
                "static_assert(cudalens_same_type<decltype(&{ENTRY_NAME}), void (*)(cudaTextureObject_t, cudaSurfaceObject_t, int, int, Params)>::value, \"the kernel must be __global__ void {}(cudaTextureObject_t src, cudaSurfaceObject_t dst, int width, int height, Params p)\");",
                source.entry.name
            );
        }
        Form::Pixel => {
            let _ = writeln!(
                s,
                "static_assert(cudalens_same_type<decltype(&pixel), uchar4 (*)(int, int, Image, Params)>::value, \"the pixel function must be uchar4 pixel(int x, int y, Image src, Params p)\");"
            );
            let _ = writeln!(s, "#line 1 \"{GENERATED_FILE}\"");
            let _ = write!(
                s,
                concat!(
                    "// Each thread computes {rows} pixels of a column, block.y rows apart, all\n",
                    "// before it writes any, so their texture reads are in flight together.\n",
                    "extern \"C\" __global__ void __launch_bounds__({threads}) {entry}({params})\n",
                    "{{\n",
                    "    const int x = (int)(blockIdx.x * blockDim.x + threadIdx.x);\n",
                    "    const int y0 = (int)(blockIdx.y * blockDim.y * {rows} + threadIdx.y);\n",
                    "    if (x >= width) return;\n",
                    "    const Image image{{src, width, height}};\n",
                    "    uchar4 v[{rows}];\n",
                    "#pragma unroll\n",
                    "    for (int r = 0; r < {rows}; ++r) {{\n",
                    "        const int y = y0 + r * (int)blockDim.y;\n",
                    "        if (y < height) v[r] = pixel(x, y, image, p);\n",
                    "    }}\n",
                    "#pragma unroll\n",
                    "    for (int r = 0; r < {rows}; ++r) {{\n",
                    "        const int y = y0 + r * (int)blockDim.y;\n",
                    "        if (y < height) surf2Dwrite(v[r], dst, x * (int)sizeof(uchar4), y);\n",
                    "    }}\n",
                    "}}\n",
                ),
                threads = threads,
                rows = source.rows,
                entry = ENTRY_NAME,
                params = ENTRY_PARAMS,
            );
        }
    }
    s
}

/// The launch geometry of a user kernel on a `width × height` image: the grid covers the
/// image with the declared block, each thread `@rows` rows (the kernel form's own
/// indexing must agree with it).
pub fn grid_for(source: &KernelSource, width: u32, height: u32) -> (u32, u32) {
    (
        width.div_ceil(source.block.x),
        height.div_ceil(source.block.y.saturating_mul(source.rows)),
    )
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn pixel_unit_has_line_markers_and_wrapper() {
        let src = KernelSource::parse(
            "// @param float a 0..1 = 0.5\n// @param bool b\nuchar4 pixel(int x, int y, Image s, Params p) { return read(s, x, y); }",
        )
        .unwrap();
        let tu = translation_unit(&src);
        let user = tu.find("#line 1 \"user.cu\"\n").unwrap();
        assert!(tu[user..].contains("// @param float a 0..1 = 0.5\n"));
        assert!(tu.contains("#line 3 \"user.cu\"\nstatic_assert"));
        assert!(tu
            .contains("extern \"C\" __global__ void __launch_bounds__(256) cudalens_user_kernel("));
        assert!(tu.contains("    float a;\n    bool b;\n    unsigned char cudalens_pad_b[3];\n    unsigned int cudalens_pad[14];\n"));
        assert!(!tu.contains("#include"));
        // Each thread takes DEFAULT_PIXEL_ROWS rows: 17 × 70 pixels in 32 × 8 blocks.
        assert!(tu.contains("    uchar4 v[4];\n"));
        assert_eq!(grid_for(&src, 17, 70), (1, 3));
        assert_eq!(grid_for(&src, 33, 32), (2, 1));
    }

    #[test]
    fn kernel_unit_renames_the_entry() {
        let src = KernelSource::parse(
            "// @block 8x4\n__global__ void edges(cudaTextureObject_t s, cudaSurfaceObject_t d, int w, int h, Params p) {}",
        )
        .unwrap();
        let tu = translation_unit(&src);
        assert!(tu.contains("__launch_bounds__(32) cudalens_user_kernel("));
        assert!(tu.contains("#define edges cudalens_user_kernel\n#line 1 \"user.cu\"\n"));
        assert_eq!(grid_for(&src, 17, 4), (3, 1));
    }

    #[test]
    fn prelude_names_are_the_prelude_s() {
        for name in crate::user_kernel::source::PRELUDE_NAMES {
            let declared = PRELUDE_CUH.contains(&format!(" {name}("))
                || PRELUDE_CUH.contains(&format!("struct {name} "))
                || *name == "Params";
            assert!(declared, "{name}");
        }
        // Every helper function of the prelude is listed.
        for line in PRELUDE_CUH.lines().filter(|l| l.starts_with("__device__")) {
            let name = line.split('(').next().unwrap().rsplit(' ').next().unwrap();
            assert!(
                crate::user_kernel::source::PRELUDE_NAMES.contains(&name),
                "{name}"
            );
        }
    }

    #[test]
    fn sixteen_params_need_no_padding_array() {
        let decls: String = (0..16)
            .map(|i| format!("// @param float p{i} 0..1\n"))
            .collect();
        let src = KernelSource::parse(&format!(
            "{decls}uchar4 pixel(int x, int y, Image s, Params p) {{ return read(s, x, y); }}"
        ))
        .unwrap();
        assert!(!params_struct(&src).contains("cudalens_pad["));
    }
}
