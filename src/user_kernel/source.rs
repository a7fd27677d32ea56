//! A user kernel's source: its directives (`// @param`, `// @block`, `// @rows`,
//! `// @shared`, `// @form`), its form and entry function, checked before NVRTC sees it.
//!
//! Every error is one line and carries the user's line number where there is one.

use super::lexer::{lex, Lexed, Token, TokenKind};
pub use super::source_error::SourceError;

/// Largest accepted source, in bytes.
pub const MAX_SOURCE_BYTES: usize = 64 * 1024;
/// Most declared parameters (the `Params` block has one 4-byte slot each).
pub const MAX_PARAMS: usize = 16;
/// Most threads in a block (every CUDA GPU's limit).
pub const MAX_BLOCK_THREADS: u32 = 1024;
/// Most dynamic shared memory a launch may ask for without the opt-in attribute.
pub const MAX_SHARED_BYTES: u32 = 48 * 1024;
/// The per-pixel form's block when the source declares none: the built-in copy's, a warp
/// across 32 pixels of a row.
pub const DEFAULT_PIXEL_BLOCK: Block = Block {
    x: crate::kernel_constants::COPY_BLOCK_X,
    y: crate::kernel_constants::COPY_BLOCK_Y,
};
/// Rows of the image each thread of the per-pixel form computes when the source declares
/// none (the built-in copy's geometry: several reads in flight per thread).
pub const DEFAULT_PIXEL_ROWS: u32 = crate::kernel_constants::COPY_ROWS;
/// Most rows a thread may cover (`@rows`).
pub const MAX_ROWS: u32 = 16;
/// The function the per-pixel form calls for each pixel.
pub const PIXEL_FUNCTION: &str = "pixel";
/// The prelude's names (prelude.cuh), which a kernel's name would shadow.
pub const PRELUDE_NAMES: &[&str] = &[
    "Image",
    "Params",
    "read",
    "read_norm",
    "write",
    "clamp255",
    "clampi",
    "clampf",
    "luma",
    "to_float4",
    "from_float4",
    "grey",
    "lerpf",
];
/// Identifiers with this prefix belong to the generated code.
pub const RESERVED_PREFIX: &str = "cudalens_";

/// How the user's code becomes a kernel.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Form {
    /// `uchar4 pixel(int x, int y, Image src, Params p)`; the `__global__` wrapper is generated.
    Pixel,
    /// The user's own `__global__ void NAME(cudaTextureObject_t src, cudaSurfaceObject_t dst,
    /// int width, int height, Params p)`, launched with the declared block.
    Kernel,
}

impl Form {
    pub fn name(self) -> &'static str {
        match self {
            Form::Pixel => "pixel",
            Form::Kernel => "kernel",
        }
    }
}

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Block {
    pub x: u32,
    pub y: u32,
}

impl Block {
    pub fn threads(self) -> u32 {
        self.x * self.y
    }
}

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum ParamKind {
    Float,
    Int,
    Bool,
}

impl ParamKind {
    /// The C type of the field in `Params`.
    pub fn c_type(self) -> &'static str {
        match self {
            ParamKind::Float => "float",
            ParamKind::Int => "int",
            ParamKind::Bool => "bool",
        }
    }
}

/// `// @param TYPE NAME MIN..MAX = DEFAULT` (bool: `// @param bool NAME = true`).
#[derive(Debug, Clone, PartialEq)]
pub struct ParamDecl {
    pub name: String,
    pub kind: ParamKind,
    /// Inclusive range (0..1 for bool); integers for int.
    pub min: f64,
    pub max: f64,
    pub default: f64,
    pub line: usize,
}

/// Where the entry function is in the user's source.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Entry {
    /// `pixel` for the per-pixel form, the `__global__` function's name otherwise.
    pub name: String,
    pub line: usize,
}

/// A parsed user kernel source.
#[derive(Debug, Clone)]
pub struct KernelSource {
    pub text: String,
    pub form: Form,
    pub entry: Entry,
    pub params: Vec<ParamDecl>,
    pub block: Block,
    /// Rows of the image each thread covers (`@rows`): the grid's height is
    /// `ceil(H / (block.y × rows))`.
    pub rows: u32,
    /// Dynamic shared memory given to each block at launch (`extern __shared__`).
    pub shared_bytes: u32,
}

impl KernelSource {
    /// Parses a source read from a file: size, UTF-8 and NUL bytes checked first.
    pub fn from_bytes(bytes: &[u8]) -> Result<Self, SourceError> {
        check_size(bytes.len())?;
        let text = std::str::from_utf8(bytes).map_err(|e| {
            let line = line_of_offset(bytes, e.valid_up_to());
            SourceError::at(line, "the source is not UTF-8 text")
        })?;
        Self::parse(text)
    }

    /// Reads and parses the file at `path`; its size is checked before it is read.
    pub fn load(path: &std::path::Path) -> Result<Self, SourceError> {
        let cannot =
            |e: std::io::Error| SourceError::whole(format!("cannot read {}: {e}", path.display()));
        let file = std::fs::File::open(path).map_err(cannot)?;
        let meta = file.metadata().map_err(cannot)?;
        if !meta.is_file() {
            return Err(SourceError::whole(format!(
                "{} is not a file",
                path.display()
            )));
        }
        check_size(usize::try_from(meta.len()).unwrap_or(usize::MAX))?;
        let mut bytes = Vec::new();
        // One byte past the limit is enough to know the file grew past it meanwhile.
        std::io::Read::read_to_end(
            &mut std::io::Read::take(file, MAX_SOURCE_BYTES as u64 + 1),
            &mut bytes,
        )
        .map_err(cannot)?;
        Self::from_bytes(&bytes)
    }

    /// Parses and checks `text`.
    pub fn parse(text: &str) -> Result<Self, SourceError> {
        check_size(text.len())?;
        if let Some(offset) = text.bytes().position(|b| b == 0) {
            return Err(SourceError::at(
                line_of_offset(text.as_bytes(), offset),
                "NUL byte in the source",
            ));
        }
        if text.trim().is_empty() {
            return Err(SourceError::whole("the source is empty"));
        }
        let lexed = lex(text)?;
        let directives = Directives::parse(&lexed)?;
        check_preprocessor(&lexed)?;
        check_identifiers(&lexed.tokens)?;
        let form = match directives.form {
            Some((form, _)) => form,
            None => detect_form(&lexed.tokens)?,
        };
        let entry = find_entry(form, &lexed.tokens)?;
        let block =
            match (form, directives.block) {
                (_, Some((block, _))) => block,
                (Form::Pixel, None) => DEFAULT_PIXEL_BLOCK,
                (Form::Kernel, None) => return Err(SourceError::at(
                    entry.line,
                    "the kernel form needs its block size: add `// @block 16x16` (X x Y threads)",
                )),
            };
        if let (Form::Pixel, Some((_, line))) = (form, directives.shared) {
            return Err(SourceError::at(
                line,
                "@shared is for the kernel form (a __global__ function); the pixel form has no shared memory",
            ));
        }
        let rows = match (form, directives.rows) {
            (_, Some((rows, _))) => rows,
            (Form::Pixel, None) => DEFAULT_PIXEL_ROWS,
            (Form::Kernel, None) => 1,
        };
        Ok(Self {
            text: text.to_string(),
            form,
            entry,
            params: directives.params,
            block,
            rows,
            shared_bytes: directives.shared.map_or(0, |(bytes, _)| bytes),
        })
    }

    pub fn param(&self, name: &str) -> Option<&ParamDecl> {
        self.params.iter().find(|p| p.name == name)
    }
}

fn check_size(len: usize) -> Result<(), SourceError> {
    if len > MAX_SOURCE_BYTES {
        return Err(SourceError::whole(format!(
            "the source is {len} bytes; the limit is {MAX_SOURCE_BYTES} (64 KiB)"
        )));
    }
    Ok(())
}

fn line_of_offset(bytes: &[u8], offset: usize) -> usize {
    1 + bytes[..offset.min(bytes.len())]
        .iter()
        .filter(|&&b| b == b'\n')
        .count()
}

/// The directives of a source, each with its line.
#[derive(Default)]
struct Directives {
    form: Option<(Form, usize)>,
    block: Option<(Block, usize)>,
    rows: Option<(u32, usize)>,
    shared: Option<(u32, usize)>,
    params: Vec<ParamDecl>,
}

impl Directives {
    fn parse(lexed: &Lexed) -> Result<Self, SourceError> {
        let mut d = Directives::default();
        for comment in &lexed.comments {
            let Some(rest) = comment.text.trim_start().strip_prefix('@') else {
                continue;
            };
            let line = comment.line;
            let err = |m: String| SourceError::at(line, m);
            let (word, args) = rest
                .split_once(char::is_whitespace)
                .map_or((rest.trim_end(), ""), |(w, a)| (w, a.trim()));
            let once = |seen: bool| {
                if seen {
                    Err(err(format!("@{word} is given twice")))
                } else {
                    Ok(())
                }
            };
            match word {
                "param" => {
                    if d.params.len() == MAX_PARAMS {
                        return Err(err(format!("more than {MAX_PARAMS} parameters")));
                    }
                    let p = parse_param(args, line)?;
                    if d.params.iter().any(|q| q.name == p.name) {
                        return Err(err(format!("parameter `{}` is declared twice", p.name)));
                    }
                    d.params.push(p);
                }
                "block" => {
                    once(d.block.is_some())?;
                    d.block = Some((parse_block(args).map_err(err)?, line));
                }
                "rows" => {
                    once(d.rows.is_some())?;
                    d.rows = Some((parse_rows(args).map_err(err)?, line));
                }
                "shared" => {
                    once(d.shared.is_some())?;
                    d.shared = Some((parse_shared(args).map_err(err)?, line));
                }
                "form" => {
                    once(d.form.is_some())?;
                    let form = match args {
                        "pixel" => Form::Pixel,
                        "kernel" => Form::Kernel,
                        _ => {
                            return Err(err(format!(
                                "@form takes `pixel` or `kernel`, not `{args}`"
                            )))
                        }
                    };
                    d.form = Some((form, line));
                }
                _ => {
                    return Err(err(format!(
                        "unknown directive `@{word}` (known: @param, @block, @rows, @shared, @form)"
                    )))
                }
            }
        }
        Ok(d)
    }
}

/// C and CUDA words a parameter may not be named.
const KEYWORDS: &[&str] = &[
    "alignas",
    "alignof",
    "asm",
    "auto",
    "bool",
    "break",
    "case",
    "catch",
    "char",
    "class",
    "const",
    "constexpr",
    "const_cast",
    "continue",
    "decltype",
    "default",
    "delete",
    "do",
    "double",
    "dynamic_cast",
    "else",
    "enum",
    "explicit",
    "export",
    "extern",
    "false",
    "float",
    "for",
    "friend",
    "goto",
    "if",
    "inline",
    "int",
    "long",
    "mutable",
    "namespace",
    "new",
    "noexcept",
    "nullptr",
    "operator",
    "private",
    "protected",
    "public",
    "register",
    "reinterpret_cast",
    "return",
    "short",
    "signed",
    "sizeof",
    "static",
    "static_assert",
    "static_cast",
    "struct",
    "switch",
    "template",
    "this",
    "throw",
    "true",
    "try",
    "typedef",
    "typeid",
    "typename",
    "union",
    "unsigned",
    "using",
    "virtual",
    "void",
    "volatile",
    "wchar_t",
    "while",
    "char16_t",
    "char32_t",
    "thread_local",
];

fn check_identifier(name: &str, line: usize) -> Result<(), SourceError> {
    let err = |why: &str| SourceError::at(line, format!("parameter name `{name}` {why}"));
    let mut chars = name.chars();
    let first_ok = chars
        .next()
        .is_some_and(|c| c.is_ascii_alphabetic() || c == '_');
    if !first_ok || !chars.all(|c| c.is_ascii_alphanumeric() || c == '_') {
        return Err(err(
            "is not a C identifier (letters, digits, _; not starting with a digit)",
        ));
    }
    if name.len() > 64 {
        return Err(err("is longer than 64 characters"));
    }
    if KEYWORDS.contains(&name) {
        return Err(err("is a C++ keyword"));
    }
    if name.starts_with("__")
        || (name.starts_with('_') && name[1..].starts_with(|c: char| c.is_ascii_uppercase()))
    {
        return Err(err("is reserved (leading __ or _ and a capital)"));
    }
    if name.starts_with(RESERVED_PREFIX) {
        return Err(err("is reserved for the generated code (cudalens_ prefix)"));
    }
    Ok(())
}

fn parse_number(text: &str, kind: ParamKind, what: &str, line: usize) -> Result<f64, SourceError> {
    let err = |why: &str| SourceError::at(line, format!("{what} `{text}` {why}"));
    match kind {
        ParamKind::Int => text
            .parse::<i32>()
            .map(f64::from)
            .map_err(|_| err("is not a 32-bit integer")),
        ParamKind::Float => {
            let v: f32 = text.parse().map_err(|_| err("is not a number"))?;
            if !v.is_finite() {
                return Err(err("is not finite"));
            }
            Ok(f64::from(v))
        }
        ParamKind::Bool => match text {
            "true" | "1" => Ok(1.0),
            "false" | "0" => Ok(0.0),
            _ => Err(err("is not true, false, 1 or 0")),
        },
    }
}

fn parse_param(args: &str, line: usize) -> Result<ParamDecl, SourceError> {
    const USAGE: &str = "expected `@param float|int|bool NAME MIN..MAX = DEFAULT` (bool: no range)";
    let err = |m: String| SourceError::at(line, m);
    let mut words = args.splitn(3, char::is_whitespace);
    let (Some(kind), Some(name)) = (words.next(), words.next()) else {
        return Err(err(USAGE.into()));
    };
    let kind = match kind {
        "float" => ParamKind::Float,
        "int" => ParamKind::Int,
        "bool" => ParamKind::Bool,
        "" => return Err(err(USAGE.into())),
        other => {
            return Err(err(format!(
                "parameter type `{other}` is not float, int or bool"
            )))
        }
    };
    check_identifier(name, line)?;
    let rest: String = words.next().unwrap_or("").split_whitespace().collect();
    let (range, default) = match rest.split_once('=') {
        Some((r, d)) => (r, Some(d)),
        None => (rest.as_str(), None),
    };
    let (min, max) = if kind == ParamKind::Bool {
        if !range.is_empty() {
            return Err(err(format!(
                "bool parameter `{name}` takes no range, only `= true` or `= false`"
            )));
        }
        (0.0, 1.0)
    } else {
        let Some((lo, hi)) = range.split_once("..") else {
            return Err(err(format!(
                "parameter `{name}` needs a range MIN..MAX (e.g. 0..2)"
            )));
        };
        let lo = parse_number(lo, kind, "minimum", line)?;
        let hi = parse_number(hi, kind, "maximum", line)?;
        if lo >= hi {
            return Err(err(format!(
                "parameter `{name}`: the range {lo}..{hi} is empty (MIN must be below MAX)"
            )));
        }
        (lo, hi)
    };
    let default = match default {
        Some(d) => parse_number(d, kind, "default", line)?,
        None => min,
    };
    if !(min..=max).contains(&default) {
        return Err(err(format!(
            "parameter `{name}`: default {default} is outside {min}..{max}"
        )));
    }
    Ok(ParamDecl {
        name: name.to_string(),
        kind,
        min,
        max,
        default,
        line,
    })
}

fn parse_block(args: &str) -> Result<Block, String> {
    let usage = || format!("@block takes X x Y threads (e.g. 16x16 or 256), not `{args}`");
    let compact: String = args.split_whitespace().collect();
    let (x, y) = match compact.split_once(['x', 'X']) {
        Some((x, y)) => (x, y),
        None => (compact.as_str(), "1"),
    };
    let x: u32 = x.parse().map_err(|_| usage())?;
    let y: u32 = y.parse().map_err(|_| usage())?;
    if x == 0 || y == 0 {
        return Err(format!("@block {x}x{y} has no threads"));
    }
    if x.saturating_mul(y) > MAX_BLOCK_THREADS {
        return Err(format!(
            "@block {x}x{y} is {} threads; the limit is {MAX_BLOCK_THREADS}",
            u64::from(x) * u64::from(y)
        ));
    }
    Ok(Block { x, y })
}

fn parse_rows(args: &str) -> Result<u32, String> {
    match args.parse::<u32>() {
        Ok(rows) if (1..=MAX_ROWS).contains(&rows) => Ok(rows),
        _ => Err(format!(
            "@rows takes the rows each thread covers, 1 to {MAX_ROWS}, not `{args}`"
        )),
    }
}

fn parse_shared(args: &str) -> Result<u32, String> {
    let bytes: u64 = args
        .parse()
        .map_err(|_| format!("@shared takes a number of bytes (e.g. 4096), not `{args}`"))?;
    if bytes > u64::from(MAX_SHARED_BYTES) {
        return Err(format!(
            "@shared {bytes} bytes is over the {MAX_SHARED_BYTES}-byte (48 KiB) limit"
        ));
    }
    Ok(bytes as u32)
}

/// Rejects preprocessor lines that would read files or break the line mapping.
fn check_preprocessor(lexed: &Lexed) -> Result<(), SourceError> {
    for p in &lexed.preprocessor {
        let why = match p.name.as_str() {
            "include" | "include_next" | "import" | "embed" => {
                "#include is not available: a user kernel is one file (the prelude gives its helpers)"
            }
            "line" => "#line is not available: cudalens maps line numbers itself",
            _ => continue,
        };
        return Err(SourceError::at(p.line, why));
    }
    Ok(())
}

/// Rejects identifiers that probe files or forge the generated code's names.
fn check_identifiers(tokens: &[Token]) -> Result<(), SourceError> {
    for t in tokens.iter().filter(|t| t.kind == TokenKind::Ident) {
        if matches!(
            t.text.as_str(),
            "__has_include" | "__has_include_next" | "__has_embed"
        ) {
            return Err(SourceError::at(
                t.line,
                format!("`{}` is not available", t.text),
            ));
        }
        if t.text.starts_with(RESERVED_PREFIX) {
            return Err(SourceError::at(
                t.line,
                format!(
                    "`{}`: names starting with {RESERVED_PREFIX} are reserved",
                    t.text
                ),
            ));
        }
        if t.text == "__launch_bounds__" {
            return Err(SourceError::at(
                t.line,
                "__launch_bounds__ comes from `// @block`: remove it",
            ));
        }
    }
    Ok(())
}

fn is_ident(t: &Token, text: &str) -> bool {
    t.kind == TokenKind::Ident && t.text == text
}

fn is_punct(t: Option<&Token>, c: &str) -> bool {
    t.is_some_and(|t| t.kind == TokenKind::Punct && t.text == c)
}

/// The first `pixel(` declared with a type before it (not a call after `return`, `.`, ...).
fn pixel_function(tokens: &[Token]) -> Option<&Token> {
    tokens.windows(3).find_map(|w| {
        let declared = w[0].kind == TokenKind::Ident
            && !matches!(w[0].text.as_str(), "return" | "else" | "case" | "do");
        (declared && is_ident(&w[1], PIXEL_FUNCTION) && is_punct(Some(&w[2]), "(")).then(|| &w[1])
    })
}

fn detect_form(tokens: &[Token]) -> Result<Form, SourceError> {
    let global = tokens.iter().find(|t| is_ident(t, "__global__"));
    let pixel = pixel_function(tokens);
    match (global, pixel) {
        (Some(_), None) => Ok(Form::Kernel),
        (None, Some(_)) => Ok(Form::Pixel),
        (Some(g), Some(_)) => Err(SourceError::at(
            g.line,
            "both a `pixel` function and a __global__ kernel: add `// @form pixel` or `// @form kernel`",
        )),
        (None, None) => Err(SourceError::whole(
            "no entry: write `uchar4 pixel(int x, int y, Image src, Params p)` or one __global__ function",
        )),
    }
}

fn find_entry(form: Form, tokens: &[Token]) -> Result<Entry, SourceError> {
    let globals: Vec<usize> = tokens
        .iter()
        .enumerate()
        .filter(|(_, t)| is_ident(t, "__global__"))
        .map(|(i, _)| i)
        .collect();
    match form {
        Form::Pixel => {
            if let Some(&g) = globals.first() {
                return Err(SourceError::at(
                    tokens[g].line,
                    "the pixel form generates the __global__ function: remove it, or use `// @form kernel`",
                ));
            }
            let p = pixel_function(tokens).ok_or_else(|| {
                SourceError::whole("no `uchar4 pixel(int x, int y, Image src, Params p)` function")
            })?;
            Ok(Entry {
                name: PIXEL_FUNCTION.into(),
                line: p.line,
            })
        }
        Form::Kernel => {
            let &g = globals.first().ok_or_else(|| {
                SourceError::whole("the kernel form needs one __global__ function")
            })?;
            if let Some(&second) = globals.get(1) {
                return Err(SourceError::at(
                    tokens[second].line,
                    "a second __global__ function: a user kernel has exactly one",
                ));
            }
            // The name is the identifier before the first `(` after `__global__`.
            let open = tokens[g..]
                .iter()
                .position(|t| {
                    is_punct(Some(t), "(") || is_punct(Some(t), ";") || is_punct(Some(t), "{")
                })
                .map(|i| g + i);
            let name = open
                .filter(|&i| is_punct(tokens.get(i), "(") && i > g + 1)
                .map(|i| &tokens[i - 1])
                .filter(|t| t.kind == TokenKind::Ident);
            let name = name.ok_or_else(|| {
                SourceError::at(
                    tokens[g].line,
                    "cannot find the name of the __global__ function",
                )
            })?;
            if PRELUDE_NAMES.contains(&name.text.as_str()) {
                return Err(SourceError::at(
                    name.line,
                    format!(
                        "the kernel cannot be named `{}`: the prelude has a helper of that name",
                        name.text
                    ),
                ));
            }
            Ok(Entry {
                name: name.text.clone(),
                line: name.line,
            })
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    const PIXEL: &str = "// @param float strength 0..2 = 1\nuchar4 pixel(int x, int y, Image src, Params p)\n{\n    return read(src, x, y);\n}\n";

    #[test]
    fn pixel_form_with_a_param() {
        let s = KernelSource::parse(PIXEL).unwrap();
        assert_eq!(s.form, Form::Pixel);
        assert_eq!(
            s.entry,
            Entry {
                name: "pixel".into(),
                line: 2
            }
        );
        assert_eq!(s.block, DEFAULT_PIXEL_BLOCK);
        assert_eq!(s.shared_bytes, 0);
        let p = &s.params[0];
        assert_eq!(
            (p.name.as_str(), p.kind, p.min, p.max, p.default, p.line),
            ("strength", ParamKind::Float, 0.0, 2.0, 1.0, 1)
        );
    }

    #[test]
    fn kernel_form_with_block_and_shared() {
        let text = "// @block 32 x 8\n// @shared 4096\n// @param int radius 1..8 = 3\n// @param bool invert = true\nextern \"C\" __global__ void tiles(cudaTextureObject_t src, cudaSurfaceObject_t dst, int width, int height, Params p) {}\n";
        let s = KernelSource::parse(text).unwrap();
        assert_eq!(s.form, Form::Kernel);
        assert_eq!(
            s.entry,
            Entry {
                name: "tiles".into(),
                line: 5
            }
        );
        assert_eq!(s.block, Block { x: 32, y: 8 });
        assert_eq!(s.shared_bytes, 4096);
        assert_eq!(s.param("radius").unwrap().default, 3.0);
        assert_eq!(s.param("invert").unwrap().kind, ParamKind::Bool);
        assert_eq!(s.param("invert").unwrap().default, 1.0);
    }

    #[test]
    fn defaults_and_forms() {
        let s = KernelSource::parse("// @param float a -1..1\nuchar4 pixel(int x, int y, Image s, Params p) { return read(s, x, y); }").unwrap();
        assert_eq!(s.params[0].default, -1.0);
        let s = KernelSource::parse("// @block 256\n__global__ void k(cudaTextureObject_t s, cudaSurfaceObject_t d, int w, int h, Params p) {}").unwrap();
        assert_eq!(s.block, Block { x: 256, y: 1 });
        // A call of pixel() inside a kernel-form source is not the pixel form.
        let s = KernelSource::parse("// @form kernel\n// @block 8x8\n__device__ uchar4 pixel(int x);\n__global__ void k() { uchar4 v = pixel(1); }").unwrap();
        assert_eq!(s.form, Form::Kernel);
        assert_eq!(s.entry.name, "k");
    }

    #[test]
    fn rows_default_by_form_and_parse() {
        let pixel = "uchar4 pixel(int x, int y, Image s, Params p) { return read(s, x, y); }";
        let kernel = "// @block 8x8\n__global__ void k(cudaTextureObject_t s, cudaSurfaceObject_t d, int w, int h, Params p) {}";
        assert_eq!(KernelSource::parse(pixel).unwrap().rows, DEFAULT_PIXEL_ROWS);
        assert_eq!(KernelSource::parse(kernel).unwrap().rows, 1);
        assert_eq!(
            KernelSource::parse(&format!("// @rows 1\n{pixel}"))
                .unwrap()
                .rows,
            1
        );
        assert_eq!(
            KernelSource::parse(&format!("// @rows 16\n{kernel}"))
                .unwrap()
                .rows,
            16
        );
        for bad in ["0", "17", "two", "", "4 4", "-1"] {
            let e = KernelSource::parse(&format!("// @rows {bad}\n{pixel}")).unwrap_err();
            assert_eq!(e.line, Some(1), "{bad:?}: {e}");
            assert!(e.message.contains("@rows takes"), "{e}");
        }
        let twice = KernelSource::parse(&format!("// @rows 2\n// @rows 2\n{pixel}")).unwrap_err();
        assert_eq!(twice.line, Some(2));
    }

    #[test]
    fn errors_carry_lines() {
        for (text, line) in [
            (
                "// @param float a 2..1\nuchar4 pixel(int x, int y, Image s, Params p);",
                Some(1),
            ),
            (
                "\n\n// @bogus\nuchar4 pixel(int x, int y, Image s, Params p);",
                Some(3),
            ),
            (
                "uchar4 pixel(int x, int y, Image s, Params p);\n#include <stdio.h>",
                Some(2),
            ),
            ("__global__ void k();\n__global__ void j();", Some(2)),
            ("int x;", None),
        ] {
            let e = KernelSource::parse(text).unwrap_err();
            assert_eq!(e.line, line, "{text:?}: {e}");
            assert!(!e.message.contains('\n'), "{e}");
        }
    }

    #[test]
    fn sixteen_params_fit_seventeen_do_not() {
        let decls: String = (0..16)
            .map(|i| format!("// @param int p{i} 0..9\n"))
            .collect();
        let body = "uchar4 pixel(int x, int y, Image s, Params p) { return read(s, x, y); }";
        assert_eq!(
            KernelSource::parse(&format!("{decls}{body}"))
                .unwrap()
                .params
                .len(),
            16
        );
        let e = KernelSource::parse(&format!("{decls}// @param int q 0..1\n{body}")).unwrap_err();
        assert_eq!(e.line, Some(17));
    }

    #[test]
    fn crlf_sources_parse_like_lf() {
        let s = KernelSource::parse(&PIXEL.replace('\n', "\r\n")).unwrap();
        assert_eq!(s.entry.line, 2);
        assert_eq!(s.params[0].default, 1.0);
        let k = "// @block 8x8\r\n// @shared 16\r\n// @form kernel\r\n__global__ void k() {}\r\n";
        let s = KernelSource::parse(k).unwrap();
        assert_eq!(
            (s.block.threads(), s.shared_bytes, s.entry.line),
            (64, 16, 4)
        );
    }

    #[test]
    fn kernel_named_like_a_helper_is_refused() {
        let e = KernelSource::parse("// @block 8x8\n__global__ void read() {}").unwrap_err();
        assert_eq!(e.line, Some(2));
    }

    #[test]
    fn files_are_checked_before_they_are_read() {
        let dir = tempfile::tempdir().unwrap();
        let missing = KernelSource::load(&dir.path().join("none.cu")).unwrap_err();
        assert!(missing.message.starts_with("cannot read"), "{missing}");
        let not_file = KernelSource::load(dir.path()).unwrap_err();
        assert!(not_file.message.contains("not a file"), "{not_file}");
        let huge = dir.path().join("huge.cu");
        std::fs::File::create(&huge)
            .unwrap()
            .set_len(1 << 40)
            .unwrap();
        assert!(KernelSource::load(&huge)
            .unwrap_err()
            .message
            .contains("64 KiB"));
        let good = dir.path().join("good.cu");
        std::fs::write(&good, PIXEL).unwrap();
        assert_eq!(KernelSource::load(&good).unwrap().params.len(), 1);
    }

    #[test]
    fn bytes_are_checked() {
        let e = KernelSource::from_bytes(b"a\nb\xff\n").unwrap_err();
        assert_eq!(e.line, Some(2));
        let e = KernelSource::from_bytes(b"a\n\nb\0").unwrap_err();
        assert_eq!(e.line, Some(3));
        let big = vec![b' '; MAX_SOURCE_BYTES + 1];
        assert!(KernelSource::from_bytes(&big)
            .unwrap_err()
            .message
            .contains("64 KiB"));
    }
}
