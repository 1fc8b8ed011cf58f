//! Every component folder has its stylesheet, and index.html links each one
//! (Trunk only bundles what index.html names).

use std::fs;
use std::path::Path;

#[test]
fn every_component_stylesheet_is_linked() {
    let root = Path::new(env!("CARGO_MANIFEST_DIR"));
    let index = fs::read_to_string(root.join("index.html")).expect("index.html");
    let components = fs::read_dir(root.join("src/components")).expect("src/components");
    let mut seen = 0;
    for entry in components.flatten() {
        if !entry.path().is_dir() {
            continue;
        }
        let name = entry.file_name().to_string_lossy().into_owned();
        let css = format!("src/components/{name}/{name}.css");
        assert!(root.join(&css).is_file(), "{css} is missing");
        assert!(
            index.contains(&format!("href=\"{css}\"")),
            "index.html does not link {css}"
        );
        seen += 1;
    }
    assert!(seen >= 9, "only {seen} component folders");
}
