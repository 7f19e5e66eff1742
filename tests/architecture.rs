//! The picture of the house, checked: the layer order of the top-level
//! modules is declared once, in the table of `docs/ARCHITECTURE.md`; this
//! test reads every `crate::...` path (and `rarity::...` in the binary) of
//! `src/`, and fails on an import that points up a layer, on a cycle
//! between top-level modules of one layer, and on a cycle between files
//! that are not each other's ancestors (e.g. two sibling files importing
//! each other).

use std::collections::{BTreeMap, BTreeSet};
use std::path::Path;

mod common;

/// `module -> layer`, from the rows `| N | module, module | ... |` between
/// the `<!-- layers -->` and `<!-- /layers -->` markers.
fn declared_layers() -> BTreeMap<String, usize> {
    let doc = std::fs::read_to_string("docs/ARCHITECTURE.md").expect("docs/ARCHITECTURE.md");
    let start = doc
        .find("<!-- layers -->")
        .expect("the <!-- layers --> marker");
    let end = doc
        .find("<!-- /layers -->")
        .expect("the <!-- /layers --> marker");
    let mut out = BTreeMap::new();
    for line in doc[start..end].lines() {
        let cells: Vec<&str> = line.split('|').map(str::trim).collect();
        if cells.len() < 3 {
            continue;
        }
        let Ok(layer) = cells[1].parse::<usize>() else {
            continue;
        };
        for m in cells[2].split(',') {
            let m = m.trim().trim_matches('`');
            if !m.is_empty() {
                out.insert(m.to_string(), layer);
            }
        }
    }
    assert!(
        !out.is_empty(),
        "no layer rows found in docs/ARCHITECTURE.md"
    );
    out
}

/// The module path of a file: `src/learn/tree/mod.rs` -> `learn::tree`,
/// `src/cli/run.rs` -> `cli::run` (the binary's `cli` counts as a module).
fn module_of(path: &Path) -> Vec<String> {
    let rel = path.strip_prefix("src").unwrap();
    let mut parts: Vec<String> = rel
        .iter()
        .map(|c| c.to_string_lossy().trim_end_matches(".rs").to_string())
        .collect();
    if parts.last().is_some_and(|p| p == "mod") {
        parts.pop();
    }
    parts
}

/// The source without comments (line comments, doc comments) and without
/// the contents of string literals, so that paths in docs and messages are
/// not read as imports.
fn code_only(text: &str) -> String {
    let mut out = String::with_capacity(text.len());
    let b: Vec<char> = text.chars().collect();
    let mut i = 0;
    while i < b.len() {
        if b[i] == '/' && b.get(i + 1) == Some(&'/') {
            while i < b.len() && b[i] != '\n' {
                i += 1;
            }
        } else if b[i] == '"' {
            out.push('"');
            i += 1;
            while i < b.len() && b[i] != '"' {
                if b[i] == '\\' {
                    i += 1;
                }
                i += 1;
            }
            out.push('"');
            i += 1;
        } else if b[i] == '\'' && b.get(i + 2) == Some(&'\'') {
            i += 3; // a char literal such as '"'
        } else {
            out.push(b[i]);
            i += 1;
        }
    }
    out
}

/// Expands `use` trees and inline paths into full paths starting at
/// `crate`, `super`, `self` or `rarity`: `use super::{a::B, c}` gives
/// `super::a::B` and `super::c`.
fn paths(code: &str) -> Vec<Vec<String>> {
    let mut out = Vec::new();
    let toks = tokens(code);
    let mut i = 0;
    while i < toks.len() {
        if matches!(toks[i].as_str(), "crate" | "super" | "self" | "rarity")
            && toks.get(i + 1).is_some_and(|t| t == "::")
            && (i == 0 || toks[i - 1] != "::")
        {
            let (next, found) = tree(&toks, i, Vec::new());
            out.extend(found);
            i = next.max(i + 1);
        } else {
            i += 1;
        }
    }
    out
}

fn tokens(code: &str) -> Vec<String> {
    let mut out = Vec::new();
    let c: Vec<char> = code.chars().collect();
    let mut i = 0;
    while i < c.len() {
        if c[i].is_alphanumeric() || c[i] == '_' {
            let s = i;
            while i < c.len() && (c[i].is_alphanumeric() || c[i] == '_') {
                i += 1;
            }
            out.push(c[s..i].iter().collect());
        } else if c[i] == ':' && c.get(i + 1) == Some(&':') {
            out.push("::".into());
            i += 2;
        } else if "{},;*".contains(c[i]) {
            out.push(c[i].to_string());
            i += 1;
        } else {
            if !c[i].is_whitespace() {
                out.push(c[i].to_string());
            }
            i += 1;
        }
    }
    out
}

/// Reads a path (possibly a `{...}` group) at `i` after `prefix`; returns
/// the index after it and the full paths.
fn tree(toks: &[String], mut i: usize, prefix: Vec<String>) -> (usize, Vec<Vec<String>>) {
    let mut path = prefix;
    let mut out = Vec::new();
    loop {
        match toks.get(i).map(String::as_str) {
            Some("{") => {
                i += 1;
                loop {
                    let (next, found) = tree(toks, i, path.clone());
                    out.extend(found);
                    i = next;
                    match toks.get(i).map(String::as_str) {
                        Some(",") => i += 1,
                        Some("}") => {
                            i += 1;
                            break;
                        }
                        _ => break,
                    }
                    if toks.get(i).map(String::as_str) == Some("}") {
                        i += 1;
                        break;
                    }
                }
                return (i, out);
            }
            Some(t) if t.chars().all(|c| c.is_alphanumeric() || c == '_') => {
                path.push(t.to_string());
                i += 1;
                if toks.get(i).map(String::as_str) == Some("::") {
                    i += 1;
                    continue;
                }
                out.push(path);
                return (i, out);
            }
            _ => {
                if !path.is_empty() {
                    out.push(path);
                }
                return (i, out);
            }
        }
    }
}

/// Resolves a path to the deepest module of `modules` it names, from the
/// module `from`.
fn resolve(
    path: &[String],
    from: &[String],
    modules: &BTreeSet<Vec<String>>,
) -> Option<Vec<String>> {
    let mut base: Vec<String> = match path[0].as_str() {
        "crate" | "rarity" => Vec::new(),
        "super" => from[..from.len().saturating_sub(1)].to_vec(),
        "self" => from.to_vec(),
        _ => return None,
    };
    let mut rest = &path[1..];
    while rest.first().is_some_and(|p| p == "super") {
        base.pop();
        rest = &rest[1..];
    }
    let mut best = None;
    let mut cur = base.clone();
    if modules.contains(&cur) {
        best = Some(cur.clone());
    }
    for p in rest {
        cur.push(p.clone());
        if modules.contains(&cur) {
            best = Some(cur.clone());
        }
    }
    best.filter(|m| !m.is_empty())
}

/// A cycle in a directed graph, if there is one.
fn find_cycle<T: Ord + Clone + std::fmt::Debug>(
    edges: &BTreeMap<T, BTreeSet<T>>,
) -> Option<Vec<T>> {
    fn visit<T: Ord + Clone>(
        n: &T,
        edges: &BTreeMap<T, BTreeSet<T>>,
        state: &mut BTreeMap<T, u8>,
        stack: &mut Vec<T>,
    ) -> Option<Vec<T>> {
        state.insert(n.clone(), 1);
        stack.push(n.clone());
        for m in edges.get(n).into_iter().flatten() {
            match state.get(m) {
                Some(1) => {
                    let at = stack.iter().position(|x| x == m).unwrap();
                    let mut c = stack[at..].to_vec();
                    c.push(m.clone());
                    return Some(c);
                }
                Some(_) => {}
                None => {
                    if let Some(c) = visit(m, edges, state, stack) {
                        return Some(c);
                    }
                }
            }
        }
        stack.pop();
        state.insert(n.clone(), 2);
        None
    }
    let mut state = BTreeMap::new();
    for n in edges.keys() {
        if !state.contains_key(n) {
            if let Some(c) = visit(n, edges, &mut state, &mut Vec::new()) {
                return Some(c);
            }
        }
    }
    None
}

#[test]
fn imports_point_down_the_declared_layers_and_close_no_cycle() {
    let layers = declared_layers();
    let mut files = Vec::new();
    common::sources(Path::new("src"), &mut files);
    files.sort();
    let modules: BTreeSet<Vec<String>> = files.iter().map(|f| module_of(f)).collect();
    let mut problems = Vec::new();
    let mut top_edges: BTreeMap<String, BTreeSet<String>> = BTreeMap::new();
    let mut file_edges: BTreeMap<Vec<String>, BTreeSet<Vec<String>>> = BTreeMap::new();
    for f in &files {
        let from = module_of(f);
        if from.is_empty() || from == ["main"] || from == ["lib"] {
            continue;
        }
        let top = &from[0];
        let Some(&layer) = layers.get(top) else {
            problems.push(format!(
                "{}: module '{top}' has no layer in docs/ARCHITECTURE.md",
                f.display()
            ));
            continue;
        };
        let code = code_only(&std::fs::read_to_string(f).unwrap());
        for p in paths(&code) {
            // `rarity::` paths only mean this crate in the binary.
            if p[0] == "rarity" && top != "cli" {
                continue;
            }
            let Some(to) = resolve(&p, &from, &modules) else {
                continue;
            };
            let target = &to[0];
            if target != top {
                match layers.get(target) {
                    Some(&l) if l > layer => problems.push(format!(
                        "{}: imports {} ({target}, layer {l}) from layer {layer}",
                        f.display(),
                        p.join("::")
                    )),
                    None => problems.push(format!(
                        "{}: imports '{target}', which has no layer",
                        f.display()
                    )),
                    _ => {}
                }
                top_edges
                    .entry(top.clone())
                    .or_default()
                    .insert(target.clone());
            }
            let related = to.starts_with(&from) || from.starts_with(&to);
            if !related {
                file_edges.entry(from.clone()).or_default().insert(to);
            }
        }
    }
    if let Some(c) = find_cycle(&top_edges) {
        problems.push(format!("cycle between modules: {}", c.join(" -> ")));
    }
    if let Some(c) = find_cycle(&file_edges) {
        let names: Vec<String> = c.iter().map(|m| m.join("::")).collect();
        problems.push(format!("cycle between files: {}", names.join(" -> ")));
    }
    assert!(problems.is_empty(), "{}", problems.join("\n"));
}

#[test]
fn the_checker_sees_groups_supers_and_inline_paths() {
    let code = code_only(
        "use super::{a::B, c::{D, e}};\n// use crate::ignored::X;\nlet s = \"crate::in_a_string\";\nfn f() { crate::x::y::z(); }",
    );
    let p: Vec<String> = paths(&code).iter().map(|p| p.join("::")).collect();
    assert_eq!(
        p,
        [
            "super::a::B",
            "super::c::D",
            "super::c::e",
            "crate::x::y::z"
        ]
    );
}
