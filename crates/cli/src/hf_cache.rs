//! Finds a model's `config.json` in the local Hugging Face cache, so that
//! `-m org/name` works for any model a user has downloaded, without a
//! network connection: `$HF_HUB_CACHE`, else `$HF_HOME/hub`, else
//! `~/.cache/huggingface/hub`, laid out as `huggingface_hub` writes it
//! (`models--org--name/snapshots/<revision>/config.json`, `refs/main`
//! naming the revision).

use std::path::{Path, PathBuf};

use vramfit_core::hub::cache_folder;

/// The cache folders to look in, in the order `huggingface_hub` resolves them.
pub fn cache_roots() -> Vec<PathBuf> {
    let var = |name: &str| {
        std::env::var_os(name)
            .filter(|v| !v.is_empty())
            .map(PathBuf::from)
    };
    if let Some(hub) = var("HF_HUB_CACHE").or_else(|| var("HUGGINGFACE_HUB_CACHE")) {
        return vec![hub];
    }
    if let Some(home) = var("HF_HOME") {
        return vec![home.join("hub")];
    }
    let home = var("HOME").or_else(|| var("USERPROFILE"));
    home.map(|h| vec![h.join(".cache").join("huggingface").join("hub")])
        .unwrap_or_default()
}

/// The `config.json` of `id` in `root`: the snapshot `refs/main` names, else
/// the most recently written one.
pub fn find_config_in(root: &Path, id: &str) -> Option<PathBuf> {
    let repo = root.join(cache_folder(id));
    let snapshots = repo.join("snapshots");
    if let Ok(revision) = std::fs::read_to_string(repo.join("refs").join("main")) {
        let path = snapshots.join(revision.trim()).join("config.json");
        if path.is_file() {
            return Some(path);
        }
    }
    std::fs::read_dir(&snapshots)
        .ok()?
        .filter_map(Result::ok)
        .map(|entry| entry.path().join("config.json"))
        .filter(|path| path.is_file())
        .max_by_key(|path| std::fs::metadata(path).and_then(|m| m.modified()).ok())
}

/// The config of `id` in any cache root, with the roots looked in for the
/// message when it is not there.
pub fn find_config(id: &str) -> Result<PathBuf, Vec<PathBuf>> {
    let roots = cache_roots();
    roots
        .iter()
        .find_map(|root| find_config_in(root, id))
        .ok_or(roots)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn finds_the_snapshot_refs_main_names() {
        let root = std::env::temp_dir().join(format!("vramfit-hf-cache-{}", std::process::id()));
        let repo = root.join("models--org--tiny");
        let old = repo.join("snapshots").join("aaa");
        let new = repo.join("snapshots").join("bbb");
        std::fs::create_dir_all(&old).expect("dirs");
        std::fs::create_dir_all(&new).expect("dirs");
        std::fs::create_dir_all(repo.join("refs")).expect("dirs");
        std::fs::write(old.join("config.json"), "{}").expect("write");
        std::fs::write(new.join("config.json"), "{}").expect("write");
        std::fs::write(repo.join("refs").join("main"), "aaa\n").expect("write");
        assert_eq!(
            find_config_in(&root, "org/tiny"),
            Some(old.join("config.json"))
        );
        std::fs::remove_file(repo.join("refs").join("main")).expect("rm");
        assert!(find_config_in(&root, "org/tiny").is_some());
        assert_eq!(find_config_in(&root, "org/other"), None);
        std::fs::remove_dir_all(&root).ok();
    }
}
