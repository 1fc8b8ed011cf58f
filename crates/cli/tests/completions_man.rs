//! `vramfit completions SHELL` and `vramfit man`: generated from the commands.

mod common;

use common::{stderr, stdout, vramfit_with_stdin};

#[test]
fn every_shell_gets_completions_naming_the_commands() {
    for shell in ["bash", "zsh", "fish", "elvish", "powershell"] {
        let o = vramfit_with_stdin(&["completions", shell], None);
        assert!(o.status.success(), "{shell}: {}", stderr(&o));
        let text = stdout(&o);
        for command in ["estimate", "check", "watch", "completions"] {
            assert!(text.contains(command), "{shell} completions lack {command}");
        }
    }
    let o = vramfit_with_stdin(&["completions", "tcsh"], None);
    assert_eq!(o.status.code(), Some(2));
}

#[test]
fn the_man_pages_list_the_commands_and_their_flags() {
    let o = vramfit_with_stdin(&["man"], None);
    assert!(o.status.success(), "{}", stderr(&o));
    let page = stdout(&o);
    assert!(
        page.starts_with(".ie"),
        "roff: {}",
        &page[..40.min(page.len())]
    );
    assert!(page.contains(".TH vramfit 1"), "{page}");
    assert!(page.contains("vramfit\\-estimate(1)"), "{page}");
    let o = vramfit_with_stdin(&["man", "check"], None);
    let check = stdout(&o);
    assert!(check.contains(".TH vramfit-check 1"), "{check}");
    assert!(check.contains("\\-\\-job\\-config"), "{check}");
    let o = vramfit_with_stdin(&["man", "nope"], None);
    assert_eq!(o.status.code(), Some(2));
    assert!(stderr(&o).contains("no command \"nope\""));
}

#[test]
fn every_page_goes_into_a_directory() {
    let dir = std::env::temp_dir().join(format!("vramfit-man-{}", std::process::id()));
    let o = vramfit_with_stdin(&["man", "--out-dir", dir.to_str().unwrap()], None);
    assert!(o.status.success(), "{}", stderr(&o));
    let mut pages: Vec<String> = std::fs::read_dir(&dir)
        .unwrap()
        .map(|e| e.unwrap().file_name().to_string_lossy().into_owned())
        .collect();
    pages.sort();
    std::fs::remove_dir_all(&dir).unwrap();
    assert!(pages.contains(&"vramfit.1".to_owned()), "{pages:?}");
    assert!(
        pages.contains(&"vramfit-estimate.1".to_owned()),
        "{pages:?}"
    );
    assert!(pages.contains(&"vramfit-watch.1".to_owned()), "{pages:?}");
}
