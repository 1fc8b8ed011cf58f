//! What users read cites what they can open: every fix-it technique and
//! every wizard row names public sources (papers, framework docs, pull
//! requests), and no text shown to users names a file of our development
//! tree (the guides the product grew from are for maintainers, kept in the
//! decision table's `provenance`).

use vramfit_core::plan::techniques::techniques;
use vramfit_core::wizard::decision_table;

/// A path or section mark of the development tree's guides.
fn names_our_files(text: &str) -> bool {
    text.contains("shared/")
        || text.contains("seeds")
        || ["000 ", "001 ", "002 ", "003 ", "004 "].iter().any(|id| {
            text.split(['(', '（', ';', '；'])
                .any(|part| part.trim_start().starts_with(id))
        })
}

#[test]
fn techniques_cite_public_sources_only() {
    assert!(techniques().len() >= 20);
    for t in techniques() {
        assert!(!t.sources.is_empty(), "{:?} has no source", t.id);
        for s in &t.sources {
            assert!(s.starts_with("https://"), "{:?}: {s}", t.id);
        }
        for text in [&t.speed_cost, &t.quality_risk] {
            for shown in [&text.en, &text.zh] {
                assert!(!names_our_files(shown), "{:?}: {shown}", t.id);
            }
        }
    }
}

#[test]
fn wizard_rows_cite_public_sources_only() {
    assert!(decision_table().len() >= 20);
    for row in decision_table() {
        assert!(
            row.source.starts_with("https://"),
            "{}: {}",
            row.id,
            row.source
        );
        assert!(!names_our_files(&row.source), "{}: {}", row.id, row.source);
        for shown in [&row.text.en, &row.text.zh] {
            assert!(!names_our_files(shown), "{}: {shown}", row.id);
        }
    }
}

#[test]
fn the_file_check_catches_a_guide_citation() {
    assert!(names_our_files("+20% (000 方案2)"));
    assert!(names_our_files("shared/seeds/000_b0f8a550dab351ae.txt §3"));
    assert!(!names_our_files(
        "https://arxiv.org/abs/2305.14314 (QLoRA §Paged Optimizers)"
    ));
    assert!(!names_our_files("about +10% step time per halving"));
}
