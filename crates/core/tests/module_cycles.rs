//! No import circles between the core's modules.
//!
//! A module is a file of `src/`. One module depends on another when its code
//! names it: a `use` (groups expanded) or a path through `crate::`, `super::`,
//! `self::` or a child module it declares. A child naming its parent is
//! fine only when the parent is just a namespace (nothing but `mod` and
//! `use` lines): otherwise the parent's own code and the child's depend on
//! each other. Test code (from the first `#[cfg(test)]` on) is left out.
//! The test fails on every set of modules that reach each other, naming the
//! edges between them; `KNOWN_PARENT_CHILD_CYCLES` lists the parent/child
//! splits that still do, and may only shrink.

use std::collections::{BTreeMap, BTreeSet};
use std::path::Path;

/// Parent modules whose children still use the parent's own items while the
/// parent uses theirs (each to be split into a namespace and leaf modules).
const KNOWN_PARENT_CHILD_CYCLES: &[&[&str]] = &[&["model", "model::params"]];

/// Module path (`training::saved`) → code without comments, strings and tests.
fn modules() -> BTreeMap<String, String> {
    let root = Path::new(env!("CARGO_MANIFEST_DIR")).join("src");
    let mut out = BTreeMap::new();
    let mut dirs = vec![root.clone()];
    while let Some(dir) = dirs.pop() {
        for entry in std::fs::read_dir(&dir).expect("src is readable") {
            let path = entry.expect("a directory entry").path();
            if path.is_dir() {
                dirs.push(path);
            } else if path.extension().is_some_and(|e| e == "rs") {
                let relative = path.strip_prefix(&root).expect("under src");
                let name = relative
                    .with_extension("")
                    .to_string_lossy()
                    .replace(std::path::MAIN_SEPARATOR, "::");
                let name = name.strip_suffix("::mod").unwrap_or(&name).to_string();
                let text = std::fs::read_to_string(&path).expect("a source file");
                let code = strip(&text);
                let code = code.split("#[cfg(test)]").next().unwrap_or("").to_string();
                out.insert(if name == "lib" { String::new() } else { name }, code);
            }
        }
    }
    out
}

/// The code with comments removed and string and char literals emptied.
fn strip(text: &str) -> String {
    let chars: Vec<char> = text.chars().collect();
    let mut out = String::with_capacity(text.len());
    let mut i = 0;
    let at = |i: usize, s: &str| {
        s.chars()
            .enumerate()
            .all(|(k, c)| chars.get(i + k) == Some(&c))
    };
    while i < chars.len() {
        if at(i, "//") {
            while i < chars.len() && chars[i] != '\n' {
                i += 1;
            }
        } else if at(i, "/*") {
            i += 2;
            while i < chars.len() && !at(i, "*/") {
                i += 1;
            }
            i += 2;
        } else if at(i, "r#\"") {
            i += 3;
            while i < chars.len() && !at(i, "\"#") {
                i += 1;
            }
            i += 2;
            out.push_str("\"\"");
        } else if chars[i] == '"' {
            i += 1;
            while i < chars.len() && chars[i] != '"' {
                i += if chars[i] == '\\' { 2 } else { 1 };
            }
            i += 1;
            out.push_str("\"\"");
        } else if chars[i] == '\'' && chars.get(i + 2) == Some(&'\'') {
            i += 3; // a char literal such as '"'
        } else if at(i, "'\\") {
            i += 3; // an escaped char literal such as '\'' or '\n'
            while i < chars.len() && chars[i] != '\'' {
                i += 1;
            }
            i += 1;
        } else {
            out.push(chars[i]);
            i += 1;
        }
    }
    out
}

fn is_ident(c: char) -> bool {
    c.is_ascii_alphanumeric() || c == '_'
}

/// The `use` trees of `code` as full paths (`crate::a::{b, c::d}` gives
/// `crate::a::b` and `crate::a::c::d`), and the code without them.
fn split_uses(code: &str) -> (Vec<String>, String) {
    let mut paths = Vec::new();
    let mut rest = String::new();
    let mut tail = code;
    while let Some(pos) = find_word(tail, "use") {
        rest.push_str(&tail[..pos]);
        let after = &tail[pos + 3..];
        let end = after.find(';').unwrap_or(after.len());
        expand(after[..end].trim(), "", &mut paths);
        tail = &after[(end + 1).min(after.len())..];
    }
    rest.push_str(tail);
    (paths, rest)
}

/// The first `word` in `text` standing on its own.
fn find_word(text: &str, word: &str) -> Option<usize> {
    let mut from = 0;
    while let Some(found) = text[from..].find(word) {
        let pos = from + found;
        let before = text[..pos].chars().next_back();
        let after = text[pos + word.len()..].chars().next();
        if !before.is_some_and(is_ident) && after.is_some_and(char::is_whitespace) {
            return Some(pos);
        }
        from = pos + word.len();
    }
    None
}

/// Expands one use tree below `prefix` into full paths.
fn expand(tree: &str, prefix: &str, out: &mut Vec<String>) {
    let tree = tree.trim();
    let Some(open) = tree.find('{') else {
        let path = tree.split(" as ").next().unwrap_or("").trim();
        if !path.is_empty() {
            out.push(format!("{prefix}{path}"));
        }
        return;
    };
    let head = format!("{prefix}{}", &tree[..open]);
    let inner = &tree[open + 1..tree.rfind('}').unwrap_or(tree.len())];
    let (mut depth, mut start) = (0, 0);
    for (i, c) in inner.char_indices() {
        match c {
            '{' => depth += 1,
            '}' => depth -= 1,
            ',' if depth == 0 => {
                expand(&inner[start..i], &head, out);
                start = i + 1;
            }
            _ => {}
        }
    }
    expand(&inner[start..], &head, out);
}

/// Every `a::b::c` path in `code` (no spaces around `::`).
fn inline_paths(code: &str) -> Vec<String> {
    let mut paths = Vec::new();
    let chars: Vec<char> = code.chars().collect();
    let mut i = 0;
    while i < chars.len() {
        let starts =
            is_ident(chars[i]) && (i == 0 || !(is_ident(chars[i - 1]) || chars[i - 1] == ':'));
        if !starts {
            i += 1;
            continue;
        }
        let mut end = i;
        loop {
            while end < chars.len() && is_ident(chars[end]) {
                end += 1;
            }
            let more = chars.get(end) == Some(&':')
                && chars.get(end + 1) == Some(&':')
                && chars.get(end + 2).is_some_and(|&c| is_ident(c));
            if !more {
                break;
            }
            end += 2;
        }
        let path: String = chars[i..end].iter().collect();
        if path.contains("::") {
            paths.push(path);
        }
        i = end.max(i + 1);
    }
    paths
}

/// The module a path names from inside `module`, if it names one of `modules`.
fn target(
    path: &str,
    module: &str,
    children: &BTreeSet<String>,
    modules: &BTreeMap<String, String>,
) -> Option<String> {
    let segments: Vec<&str> = path.split("::").collect();
    let (mut base, rest) = match segments[0] {
        "crate" => (String::new(), &segments[1..]),
        "self" => (module.to_string(), &segments[1..]),
        "super" => {
            let ups = segments.iter().take_while(|s| **s == "super").count();
            let parts: Vec<&str> = module.split("::").collect();
            let kept = parts.len().saturating_sub(ups);
            (parts[..kept].join("::"), &segments[ups..])
        }
        first if children.contains(first) => (module.to_string(), &segments[..]),
        _ => return None,
    };
    for segment in rest {
        let deeper = if base.is_empty() {
            segment.to_string()
        } else {
            format!("{base}::{segment}")
        };
        if !modules.contains_key(&deeper) {
            break;
        }
        base = deeper;
    }
    Some(base)
}

/// Whether a module's code is only `mod` and `use` items (and attributes).
fn is_namespace(code: &str) -> bool {
    let (_, rest) = split_uses(code);
    rest.split(';').all(|item| {
        let mut item = item.trim();
        while item.starts_with('#') {
            // `#[...]` or `#![...]` before the item
            item = item.find(']').map_or("", |end| item[end + 1..].trim());
        }
        let words: Vec<&str> = item.split_whitespace().collect();
        match words.as_slice() {
            [] | ["mod", _] => true,
            [visibility, "mod", _] => visibility.starts_with("pub"),
            _ => false,
        }
    })
}

/// Module → the modules it depends on, with the path that shows each edge.
fn graph() -> BTreeMap<String, BTreeMap<String, String>> {
    let modules = modules();
    let mut edges: BTreeMap<String, BTreeMap<String, String>> = BTreeMap::new();
    for (module, code) in &modules {
        let children: BTreeSet<String> = modules
            .keys()
            .filter_map(|m| {
                let rest = if module.is_empty() {
                    Some(m.as_str())
                } else {
                    m.strip_prefix(&format!("{module}::"))
                };
                rest.filter(|r| !r.is_empty() && !r.contains("::"))
                    .map(str::to_string)
            })
            .collect();
        let (uses, rest) = split_uses(code);
        let paths = uses.into_iter().chain(inline_paths(&rest));
        for path in paths {
            let Some(to) = target(&path, module, &children, &modules) else {
                continue;
            };
            let ancestor = to.is_empty() || module.starts_with(&format!("{to}::"));
            let namespace = modules.get(&to).is_some_and(|c| is_namespace(c));
            if to == *module || (ancestor && namespace) {
                continue;
            }
            edges
                .entry(module.clone())
                .or_default()
                .entry(to)
                .or_insert(path);
        }
    }
    edges
}

/// Sets of two or more modules that reach each other (Tarjan's algorithm).
fn cycles(edges: &BTreeMap<String, BTreeMap<String, String>>) -> Vec<Vec<String>> {
    struct State<'a> {
        edges: &'a BTreeMap<String, BTreeMap<String, String>>,
        index: BTreeMap<&'a str, usize>,
        low: BTreeMap<&'a str, usize>,
        stack: Vec<&'a str>,
        found: Vec<Vec<String>>,
    }
    fn visit<'a>(s: &mut State<'a>, v: &'a str) {
        let n = s.index.len();
        s.index.insert(v, n);
        s.low.insert(v, n);
        s.stack.push(v);
        for w in s.edges.get(v).into_iter().flat_map(|e| e.keys()) {
            let w = w.as_str();
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
            let at = s
                .stack
                .iter()
                .position(|&x| x == v)
                .expect("v is on the stack");
            let mut component: Vec<String> = s.stack.drain(at..).map(str::to_string).collect();
            if component.len() > 1 {
                component.sort();
                s.found.push(component);
            }
        }
    }
    let mut state = State {
        edges,
        index: BTreeMap::new(),
        low: BTreeMap::new(),
        stack: Vec::new(),
        found: Vec::new(),
    };
    for v in edges.keys() {
        if !state.index.contains_key(v.as_str()) {
            visit(&mut state, v);
        }
    }
    state.found.sort();
    state.found
}

#[test]
fn no_import_circles_between_core_modules() {
    let edges = graph();
    let known: Vec<Vec<String>> = KNOWN_PARENT_CHILD_CYCLES
        .iter()
        .map(|c| c.iter().map(|m| m.to_string()).collect())
        .collect();
    let found = cycles(&edges);
    let mut report = Vec::new();
    for cycle in found.iter().filter(|c| !known.contains(c)) {
        let members: BTreeSet<&String> = cycle.iter().collect();
        let lines: Vec<String> = cycle
            .iter()
            .flat_map(|from| {
                edges[from]
                    .iter()
                    .filter(|(to, _)| members.contains(to))
                    .map(move |(to, path)| format!("  {from} → {to} ({path})"))
            })
            .collect();
        report.push(format!(
            "circle {}:\n{}",
            cycle.join(", "),
            lines.join("\n")
        ));
    }
    for gone in known.iter().filter(|c| !found.contains(c)) {
        report.push(format!(
            "{} no longer form a circle: remove them from KNOWN_PARENT_CHILD_CYCLES",
            gone.join(", ")
        ));
    }
    assert!(report.is_empty(), "{}", report.join("\n"));
}

/// The scanner sees what the code says: without this, a parser that found
/// nothing would pass the test above.
#[test]
fn the_scanner_finds_the_edges_the_code_has() {
    let edges = graph();
    let has = |from: &str, to: &str| edges.get(from).is_some_and(|e| e.contains_key(to));
    // `use crate::resolved::Resolved;`
    assert!(has("estimate", "resolved"));
    // a group: `use crate::scenario::{limits::MAX_TOKENS, ...}` or `crate::scenario::limits::X`
    assert!(has("vision", "scenario::limits"));
    // `use super::shape::{...}` between siblings
    assert!(has("activations::layer", "activations::shape"));
    // a parent re-exporting its child: `pub use layer::{layer_bytes, layer_terms};`
    assert!(has("activations", "activations::layer"));
    // a child using its namespace parent is no edge
    assert!(!has("activations::layer", "activations"));
    // an inline path: `crate::vision::image_tokens(...)`
    assert!(has("training::saved", "vision"));
}

#[test]
fn a_circle_is_found_and_named() {
    let mut edges: BTreeMap<String, BTreeMap<String, String>> = BTreeMap::new();
    let mut edge = |a: &str, b: &str| {
        edges
            .entry(a.to_string())
            .or_default()
            .insert(b.to_string(), format!("crate::{b}"));
    };
    edge("a", "b");
    edge("b", "c");
    edge("c", "a");
    edge("c", "d");
    edge("d", "e");
    assert_eq!(cycles(&edges), vec![vec!["a", "b", "c"]]);
}
