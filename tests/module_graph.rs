//! The layers of `src/` stay acyclic: no module may reach back to a module that depends on
//! it (ARCHITECTURE.md: "arrows run one way"), between top-level modules and at any depth.
//! Edges are read from the sources: for top-level modules any `crate::<module>` path in a
//! file of another; for every module (a file's path under `src/`) its `crate::`, `super::`
//! and `self::` paths and, in a `mod.rs`, the paths through its child modules.

use std::collections::{BTreeMap, BTreeSet};
use std::path::Path;

fn rust_files(dir: &Path, out: &mut Vec<std::path::PathBuf>) {
    for entry in std::fs::read_dir(dir).expect("src is readable").flatten() {
        let path = entry.path();
        if path.is_dir() {
            rust_files(&path, out);
        } else if path.extension().is_some_and(|e| e == "rs") {
            out.push(path);
        }
    }
}

/// Top-level module → the top-level modules its files name through `crate::`.
fn module_graph() -> BTreeMap<String, BTreeSet<String>> {
    let src = Path::new(env!("CARGO_MANIFEST_DIR")).join("src");
    let mut files = Vec::new();
    rust_files(&src, &mut files);
    let mut graph: BTreeMap<String, BTreeSet<String>> = BTreeMap::new();
    for file in files {
        let rel = file.strip_prefix(&src).expect("under src");
        let Some(first) = rel.components().next() else {
            continue;
        };
        let module = first
            .as_os_str()
            .to_string_lossy()
            .trim_end_matches(".rs")
            .to_string();
        if module == "main" || module == "lib" {
            continue;
        }
        let text = std::fs::read_to_string(&file).expect("source is readable");
        // Unit tests may reach anywhere (a test of the app may parse a command line).
        let text = text.split("#[cfg(test)]\nmod tests").next().unwrap_or("");
        let deps = graph.entry(module.clone()).or_default();
        for (i, _) in text.match_indices("crate::") {
            let name: String = text[i + 7..]
                .chars()
                .take_while(|c| c.is_ascii_alphanumeric() || *c == '_')
                .collect();
            if !name.is_empty() && name != module {
                deps.insert(name);
            }
        }
    }
    graph
}

/// A cycle through `node`, if any (depth-first search).
fn cycle_from(
    graph: &BTreeMap<String, BTreeSet<String>>,
    node: &str,
    path: &mut Vec<String>,
) -> Option<Vec<String>> {
    if let Some(start) = path.iter().position(|n| n == node) {
        let mut cycle = path[start..].to_vec();
        cycle.push(node.to_string());
        return Some(cycle);
    }
    path.push(node.to_string());
    for next in graph.get(node).into_iter().flatten() {
        if let Some(c) = cycle_from(graph, next, path) {
            return Some(c);
        }
    }
    path.pop();
    None
}

#[test]
fn top_level_modules_have_no_cycles() {
    let graph = module_graph();
    assert!(graph.contains_key("filters") && graph.contains_key("pipeline"));
    for node in graph.keys() {
        if let Some(cycle) = cycle_from(&graph, node, &mut Vec::new()) {
            panic!("module cycle: {}", cycle.join(" → "));
        }
    }
}

#[test]
fn ops_depends_only_on_pixels_and_gl_knows_nothing_of_cuda() {
    let graph = module_graph();
    // `pixels` is a leaf: the typed images the ranged histogram counts.
    assert!(
        graph["ops"].iter().all(|m| m == "pixels"),
        "ops uses {:?}",
        graph["ops"]
    );
    assert!(!graph["gl"].contains("cuda"), "gl uses cuda");
}

/// Every module of `src/` (its path, `a::b`, from the file `src/a/b.rs` or `src/a/b/mod.rs`)
/// with its source: unit tests and comment lines left out.
struct Sources {
    text: BTreeMap<String, String>,
    /// Modules whose file is a `mod.rs` (their children are their own files).
    folders: BTreeSet<String>,
}

fn sources() -> Sources {
    let src = Path::new(env!("CARGO_MANIFEST_DIR")).join("src");
    let mut files = Vec::new();
    rust_files(&src, &mut files);
    let mut text = BTreeMap::new();
    let mut folders = BTreeSet::new();
    for file in files {
        let rel = file
            .strip_prefix(&src)
            .expect("under src")
            .with_extension("");
        let mut parts: Vec<String> = rel
            .components()
            .map(|c| c.as_os_str().to_string_lossy().into_owned())
            .collect();
        let folder = parts.last().is_some_and(|p| p == "mod");
        if folder {
            parts.pop();
        }
        if parts == ["lib"] || parts == ["main"] {
            continue;
        }
        let module = parts.join("::");
        if folder {
            folders.insert(module.clone());
        }
        let source = std::fs::read_to_string(&file).expect("source is readable");
        let source = source.split("#[cfg(test)]\nmod tests").next().unwrap_or("");
        let code: Vec<&str> = source
            .lines()
            .filter(|l| !l.trim_start().starts_with("//"))
            .collect();
        text.insert(module, code.join("\n"));
    }
    Sources { text, folders }
}

fn is_ident(c: char) -> bool {
    c.is_ascii_alphanumeric() || c == '_'
}

/// The paths of a `use` tree or path expression starting at `rest` (just after a leading
/// `crate`, `super` or `self`): each as its segments, braces expanded one level deep or
/// more (`{a, b::{C, D}}`), `self` in braces meaning the prefix itself.
fn path_tails(rest: &str) -> Vec<Vec<String>> {
    let mut segs = Vec::new();
    let mut at = rest;
    while let Some(next) = at.strip_prefix("::") {
        if let Some(inner) = next.strip_prefix('{') {
            let mut depth = 1;
            let end = inner
                .char_indices()
                .find(|&(_, c)| {
                    depth += match c {
                        '{' => 1,
                        '}' => -1,
                        _ => 0,
                    };
                    depth == 0
                })
                .map_or(inner.len(), |(i, _)| i);
            let (mut out, mut item, mut depth) = (Vec::new(), String::new(), 0);
            for c in inner[..end].chars().chain([',']) {
                match c {
                    '{' => depth += 1,
                    '}' => depth -= 1,
                    ',' if depth == 0 => {
                        let path = item.split(" as ").next().unwrap_or("").trim().to_string();
                        item.clear();
                        let tail: Vec<String> = path
                            .split("::")
                            .map(|s| s.trim().to_string())
                            .filter(|s| !s.is_empty() && s != "self" && s.chars().all(is_ident))
                            .collect();
                        let mut full = segs.clone();
                        full.extend(tail);
                        out.push(full);
                        continue;
                    }
                    _ => {}
                }
                item.push(c);
            }
            return out;
        }
        let name: String = next.chars().take_while(|&c| is_ident(c)).collect();
        if name.is_empty() {
            break;
        }
        at = &next[name.len()..];
        segs.push(name);
    }
    vec![segs]
}

/// Module path → the modules its code names, each resolved to the deepest module of the
/// path (through a folder's `pub use child::Name` re-exports to the child that holds it).
fn submodule_graph() -> BTreeMap<String, BTreeSet<String>> {
    let Sources { text, folders } = sources();
    // Folder → re-exported name → its child module.
    let mut reexports: BTreeMap<&str, BTreeMap<String, String>> = BTreeMap::new();
    for folder in &folders {
        let code = &text[folder];
        for (i, _) in code.match_indices("pub use ") {
            let line = &code[i + 8..];
            let child: String = line.chars().take_while(|&c| is_ident(c)).collect();
            let full = format!("{folder}::{child}");
            if !text.contains_key(&full) {
                continue;
            }
            let end = line.find(';').unwrap_or(line.len());
            for name in line[child.len()..end].split(|c: char| !is_ident(c)) {
                if !name.is_empty() {
                    reexports
                        .entry(folder.as_str())
                        .or_default()
                        .insert(name.to_string(), full.clone());
                }
            }
        }
    }
    let resolve = |segs: &[String]| -> Option<String> {
        let mut module: Option<String> = None;
        let mut rest = segs;
        while let Some((first, tail)) = rest.split_first() {
            let next = match &module {
                Some(m) => format!("{m}::{first}"),
                None => first.clone(),
            };
            if !text.contains_key(&next) {
                break;
            }
            module = Some(next);
            rest = tail;
        }
        let module = module?;
        let through = rest
            .first()
            .and_then(|name| reexports.get(module.as_str())?.get(name).cloned());
        Some(through.unwrap_or(module))
    };
    let mut graph: BTreeMap<String, BTreeSet<String>> = BTreeMap::new();
    for (module, code) in &text {
        let folder = folders.contains(module);
        let here: Vec<String> = module.split("::").map(String::from).collect();
        let deps = graph.entry(module.clone()).or_default();
        // A folder's re-exports of its children are its interface, not a dependency.
        let code: String = if folder {
            let mut keep = Vec::new();
            let mut in_reexport = false;
            for line in code.lines() {
                let t = line.trim_start();
                let child: String = t
                    .strip_prefix("pub use ")
                    .map(|r| r.chars().take_while(|&c| is_ident(c)).collect())
                    .unwrap_or_default();
                if in_reexport
                    || (!child.is_empty() && text.contains_key(&format!("{module}::{child}")))
                {
                    in_reexport = !t.trim_end().ends_with(';');
                    continue;
                }
                keep.push(line);
            }
            keep.join("\n")
        } else {
            code.clone()
        };
        for (i, _) in code.match_indices("::") {
            let before: String = code[..i]
                .chars()
                .rev()
                .take_while(|&c| is_ident(c))
                .collect::<Vec<_>>()
                .into_iter()
                .rev()
                .collect();
            let start = i - before.len();
            let preceded = code[..start].ends_with("::")
                || code[..start].chars().next_back().is_some_and(is_ident);
            if before.is_empty() || preceded {
                continue;
            }
            let base: Vec<String> = match before.as_str() {
                "crate" => Vec::new(),
                "self" => here.clone(),
                "super" => here[..here.len() - 1].to_vec(),
                child if folder && text.contains_key(&format!("{module}::{child}")) => {
                    let mut b = here.clone();
                    b.push(child.to_string());
                    b
                }
                _ => continue,
            };
            let mut rest = &code[i..];
            let mut base = base;
            while let Some(r) = rest.strip_prefix("::super") {
                if r.starts_with(|c: char| is_ident(c)) {
                    break;
                }
                base.pop();
                rest = r;
            }
            for tail in path_tails(rest) {
                let mut path = base.clone();
                path.extend(tail);
                if let Some(target) = resolve(&path) {
                    if &target != module {
                        deps.insert(target);
                    }
                }
            }
        }
    }
    graph
}

/// The strongly connected components of more than one module (Tarjan's algorithm): each a
/// set of modules that reach each other, sorted.
fn cycles(graph: &BTreeMap<String, BTreeSet<String>>) -> Vec<Vec<String>> {
    struct State<'a> {
        graph: &'a BTreeMap<String, BTreeSet<String>>,
        index: BTreeMap<&'a str, usize>,
        low: BTreeMap<&'a str, usize>,
        stack: Vec<&'a str>,
        out: Vec<Vec<String>>,
    }
    fn visit<'a>(s: &mut State<'a>, v: &'a str) {
        let i = s.index.len();
        s.index.insert(v, i);
        s.low.insert(v, i);
        s.stack.push(v);
        for w in s.graph.get(v).into_iter().flatten() {
            let w = w.as_str();
            if !s.graph.contains_key(w) {
                continue;
            }
            if !s.index.contains_key(w) {
                visit(s, w);
                let low = s.low[v].min(s.low[w]);
                s.low.insert(v, low);
            } else if s.stack.contains(&w) {
                let low = s.low[v].min(s.index[w]);
                s.low.insert(v, low);
            }
        }
        if s.low[v] == s.index[v] {
            let mut component = Vec::new();
            while let Some(w) = s.stack.pop() {
                component.push(w.to_string());
                if w == v {
                    break;
                }
            }
            if component.len() > 1 {
                component.sort();
                s.out.push(component);
            }
        }
    }
    let mut state = State {
        graph,
        index: BTreeMap::new(),
        low: BTreeMap::new(),
        stack: Vec::new(),
        out: Vec::new(),
    };
    for v in graph.keys() {
        if !state.index.contains_key(v.as_str()) {
            visit(&mut state, v);
        }
    }
    state.out
}

#[test]
fn modules_have_no_cycles_at_any_depth() {
    let graph = submodule_graph();
    assert!(graph.contains_key("cuda::memory") && graph.contains_key("filters::gaussian"));
    assert!(
        graph["pipeline::explorer::cuda_mandelbrot"]
            .contains("pipeline::explorer::mandelbrot_kernels"),
        "edges through `super::` paths are read"
    );
    let found = cycles(&graph);
    let cycles: Vec<String> = found
        .iter()
        .map(|c| {
            let edges: Vec<String> = c
                .iter()
                .map(|m| {
                    let inside: Vec<&str> = graph[m]
                        .iter()
                        .filter(|d| c.contains(d))
                        .map(String::as_str)
                        .collect();
                    format!("{m} → {}", inside.join(", "))
                })
                .collect();
            edges.join("; ")
        })
        .collect();
    assert!(cycles.is_empty(), "module cycles: {cycles:#?}");
}

#[test]
fn cuda_is_a_pure_wrapper_layer() {
    let graph = submodule_graph();
    for (module, deps) in graph.iter().filter(|(m, _)| m.starts_with("cuda")) {
        for dep in deps {
            assert!(
                dep.starts_with("cuda") || dep == "fault",
                "{module} uses {dep}: the CUDA layer wraps the driver and knows no feature"
            );
        }
    }
}
