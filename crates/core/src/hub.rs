//! Hugging Face model ids as users type them: `org/name`, or pasted as a
//! page address (`https://huggingface.co/org/name/tree/main`). The faces
//! find the `config.json` (the CLI in the local Hub cache); this module only
//! reads the id.

/// The `org/name` of a Hub id or model page address, or `None` when `text`
/// is not one. Both parts: letters, digits, `-`, `_`, `.`, at most 96
/// characters each, as the Hub allows.
pub fn parse_hub_id(text: &str) -> Option<String> {
    let text = text.trim();
    let path = [
        "https://huggingface.co/",
        "http://huggingface.co/",
        "huggingface.co/",
        "hf.co/",
    ]
    .iter()
    .find_map(|prefix| text.strip_prefix(prefix))
    .unwrap_or(text);
    let mut parts = path.trim_matches('/').split('/');
    let org = parts.next()?;
    let name = parts.next()?;
    // A page address may go on (`/tree/main`, `/blob/main/config.json`).
    let valid = |s: &str| {
        !s.is_empty()
            && s.len() <= 96
            && !s.starts_with('.')
            && s.chars()
                .all(|c| c.is_ascii_alphanumeric() || matches!(c, '-' | '_' | '.'))
    };
    (valid(org) && valid(name)).then(|| format!("{org}/{name}"))
}

/// The folder name the Hub cache gives a model repository
/// (`models--org--name`, as `huggingface_hub` lays it out).
pub fn cache_folder(id: &str) -> String {
    format!("models--{}", id.replace('/', "--"))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn ids_and_page_addresses_read_the_same() {
        for text in [
            "Qwen/Qwen3-8B",
            " https://huggingface.co/Qwen/Qwen3-8B ",
            "https://huggingface.co/Qwen/Qwen3-8B/tree/main",
            "huggingface.co/Qwen/Qwen3-8B/blob/main/config.json",
            "hf.co/Qwen/Qwen3-8B",
        ] {
            assert_eq!(
                parse_hub_id(text).as_deref(),
                Some("Qwen/Qwen3-8B"),
                "{text}"
            );
        }
        for text in [
            "llama 7b",
            "Qwen3-8B",
            "a/",
            "/b",
            "a b/c",
            "../x/y",
            "org/na me",
        ] {
            assert_eq!(parse_hub_id(text), None, "{text}");
        }
        assert_eq!(
            cache_folder("meta-llama/Llama-3.1-8B"),
            "models--meta-llama--Llama-3.1-8B"
        );
    }
}
