//! No import cycles between the server's files: every `crate::…` path a file names (outside its
//! unit tests) is an edge to the longest module it names, and the graph must have no cycle.
//! A cycle is reported with its files, so the seam to cut is plain.

use std::collections::{BTreeMap, BTreeSet};
use std::path::{Path, PathBuf};

fn src() -> PathBuf {
    PathBuf::from(std::env::var_os("CARGO_MANIFEST_DIR").expect("run by cargo")).join("src")
}

fn rust_files(dir: &Path, out: &mut Vec<PathBuf>) {
    for entry in std::fs::read_dir(dir).unwrap() {
        let path = entry.unwrap().path();
        if path.is_dir() {
            rust_files(&path, out);
        } else if path.extension().is_some_and(|e| e == "rs") {
            out.push(path);
        }
    }
}

/// `routes/park/mod.rs` → `routes::park`; `lib.rs` → `` (the crate root, left out).
fn module_of(root: &Path, file: &Path) -> String {
    let rel = file.strip_prefix(root).unwrap().with_extension("");
    let mut parts: Vec<String> = rel
        .components()
        .map(|c| c.as_os_str().to_string_lossy().into_owned())
        .collect();
    if parts.last().is_some_and(|p| p == "mod" || p == "lib") {
        parts.pop();
    }
    parts.join("::")
}

/// Every `crate::a::b::c` in `text`, as written.
fn crate_paths(text: &str) -> Vec<String> {
    let mut paths = Vec::new();
    let mut rest = text;
    while let Some(at) = rest.find("crate::") {
        let tail = &rest[at + "crate::".len()..];
        let len = tail
            .find(|c: char| !(c.is_ascii_alphanumeric() || c == '_' || c == ':'))
            .unwrap_or(tail.len());
        paths.push(tail[..len].trim_end_matches(':').to_owned());
        rest = &tail[len..];
    }
    paths
}

fn graph() -> BTreeMap<String, BTreeSet<String>> {
    let root = src();
    let mut files = Vec::new();
    rust_files(&root, &mut files);
    let texts: BTreeMap<String, String> = files
        .iter()
        .map(|f| {
            let text = std::fs::read_to_string(f).unwrap();
            // A file's own unit tests may reach anywhere; they are not part of the graph.
            let text = match text.find("#[cfg(test)]\nmod tests") {
                Some(at) => text[..at].to_owned(),
                None => text,
            };
            (module_of(&root, f), text)
        })
        .filter(|(m, _)| !m.is_empty())
        .collect();
    let modules: BTreeSet<&String> = texts.keys().collect();
    texts
        .iter()
        .map(|(module, text)| {
            let deps = crate_paths(text)
                .into_iter()
                .filter_map(|path| {
                    let parts: Vec<&str> = path.split("::").collect();
                    (1..=parts.len())
                        .rev()
                        .map(|n| parts[..n].join("::"))
                        .find(|m| modules.contains(m))
                })
                .filter(|dep| dep != module)
                .collect();
            (module.clone(), deps)
        })
        .collect()
}

/// One cycle through `graph`, if there is any (depth-first, three colours).
fn a_cycle(graph: &BTreeMap<String, BTreeSet<String>>) -> Option<Vec<String>> {
    fn visit(
        node: &str,
        graph: &BTreeMap<String, BTreeSet<String>>,
        done: &mut BTreeSet<String>,
        path: &mut Vec<String>,
    ) -> Option<Vec<String>> {
        if let Some(at) = path.iter().position(|p| p == node) {
            let mut cycle = path[at..].to_vec();
            cycle.push(node.to_owned());
            return Some(cycle);
        }
        if done.contains(node) {
            return None;
        }
        path.push(node.to_owned());
        for dep in graph.get(node).into_iter().flatten() {
            if let Some(cycle) = visit(dep, graph, done, path) {
                return Some(cycle);
            }
        }
        path.pop();
        done.insert(node.to_owned());
        None
    }
    let mut done = BTreeSet::new();
    for node in graph.keys() {
        if let Some(cycle) = visit(node, graph, &mut done, &mut Vec::new()) {
            return Some(cycle);
        }
    }
    None
}

#[test]
fn the_server_files_import_each_other_without_a_cycle() {
    let graph = graph();
    assert!(
        graph.len() > 40 && graph["routes"].contains("state"),
        "the scan read too little to mean anything: {graph:?}"
    );
    if let Some(cycle) = a_cycle(&graph) {
        panic!("an import cycle: {}", cycle.join(" → "));
    }
}

#[test]
fn the_cycle_finder_finds_a_cycle() {
    let graph: BTreeMap<String, BTreeSet<String>> = [
        ("a", vec!["b"]),
        ("b", vec!["c"]),
        ("c", vec!["a"]),
        ("d", vec![]),
    ]
    .into_iter()
    .map(|(k, v)| (k.to_owned(), v.into_iter().map(str::to_owned).collect()))
    .collect();
    assert_eq!(a_cycle(&graph).unwrap(), vec!["a", "b", "c", "a"]);
    assert_eq!(
        crate_paths("use crate::store::{A, B};\nlet x = crate::ids::lease_token();"),
        vec!["store", "ids::lease_token"]
    );
}
