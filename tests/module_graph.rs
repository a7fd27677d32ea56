//! The layers of `src/` stay acyclic: no top-level module may reach back to a module that
//! depends on it (ARCHITECTURE.md: "arrows run one way"). Edges are read from the sources:
//! any `crate::<module>` path in a file of another top-level module.

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
fn ops_depends_on_nothing_of_ours_and_gl_knows_nothing_of_cuda() {
    let graph = module_graph();
    assert!(graph["ops"].is_empty(), "ops uses {:?}", graph["ops"]);
    assert!(!graph["gl"].contains("cuda"), "gl uses cuda");
}
