//! Every component folder has its stylesheet, and the page that shows the
//! component links it (Trunk only bundles what a page's HTML names): the
//! wizard's, doctor's (and its reconciliation's) and log reader's in `tools.html`, every other one in
//! both pages (the header, tabs and shared parts appear on both).

use std::fs;
use std::path::Path;

/// Components only the tools page shows.
const TOOLS_ONLY: [&str; 4] = ["wizard", "doctor", "logs", "reconcile"];

#[test]
fn every_component_stylesheet_is_linked_by_its_page() {
    let root = Path::new(env!("CARGO_MANIFEST_DIR"));
    let index = fs::read_to_string(root.join("index.html")).expect("index.html");
    let tools = fs::read_to_string(root.join("tools.html")).expect("tools.html");
    let components = fs::read_dir(root.join("src/components")).expect("src/components");
    let mut seen = 0;
    for entry in components.flatten() {
        if !entry.path().is_dir() {
            continue;
        }
        let name = entry.file_name().to_string_lossy().into_owned();
        let css = format!("src/components/{name}/{name}.css");
        let link = format!("href=\"{css}\"");
        assert!(root.join(&css).is_file(), "{css} is missing");
        assert!(tools.contains(&link), "tools.html does not link {css}");
        let tools_only = TOOLS_ONLY.contains(&name.as_str());
        assert_eq!(
            index.contains(&link),
            !tools_only,
            "index.html {} link {css}",
            if tools_only { "should not" } else { "does not" }
        );
        seen += 1;
    }
    assert!(seen >= 9, "only {seen} component folders");
}
