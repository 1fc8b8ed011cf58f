//! Hugging Face model ids as users type them: `org/name`, or pasted as a
//! page address (`https://huggingface.co/org/name/tree/main`), and what a
//! face needs to fetch a model's `config.json` from a Hub (the web app) or
//! find it in the local cache (the CLI): addresses, the size cap, and what
//! each answer means. No I/O here: the faces fetch and read files.

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

/// The public Hub; a mirror (`https://hf-mirror.com`) or a test server
/// may stand in.
pub const DEFAULT_HUB: &str = "https://huggingface.co";

/// The largest `config.json` read: real ones are under 100 KB (a VLM's with
/// every sub-config); a larger body is refused unread, so a hostile or
/// mistaken answer cannot freeze the page.
pub const MAX_CONFIG_BYTES: u64 = 1 << 20;

/// A Hub address as typed: `http(s)://host[:port][/path]`, without a
/// trailing `/`; `None` for anything else (no quotes, spaces or fragments).
pub fn normalize_base(text: &str) -> Option<String> {
    let text = text.trim().trim_end_matches('/');
    let rest = text
        .strip_prefix("https://")
        .or_else(|| text.strip_prefix("http://"))?;
    let ok = !rest.is_empty()
        && rest.len() <= 200
        && rest
            .chars()
            .all(|c| c.is_ascii_alphanumeric() || "-._~:/[]@%".contains(c));
    ok.then(|| text.to_owned())
}

/// Where a Hub serves the `config.json` of `id` (its main branch).
pub fn config_url(base: &str, id: &str) -> String {
    format!(
        "{}/{id}/resolve/main/config.json",
        base.trim_end_matches('/')
    )
}

/// The model API answer that states the Hub's own parameter count.
pub fn api_url(base: &str, id: &str) -> String {
    format!("{}/api/models/{id}", base.trim_end_matches('/'))
}

/// The Hub's parameter count of a model (`safetensors.total` in the model
/// API's JSON), to show beside ours.
pub fn safetensors_total(api_json: &str) -> Option<u64> {
    let value: serde_json::Value = serde_json::from_str(api_json).ok()?;
    value.get("safetensors")?.get("total")?.as_u64()
}

/// Why a Hub did not hand over a config.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum HubFailure {
    /// 401/403: gated or private; the user must accept its terms or paste it.
    Gated,
    /// 404: no such repository, or no config.json in it.
    NotFound,
    /// Larger than [`MAX_CONFIG_BYTES`].
    TooLarge,
    /// No answer in time.
    TimedOut,
    /// No network (the browser is offline), or the request was blocked.
    Offline,
    /// Any other HTTP status.
    Status(u16),
}

impl HubFailure {
    /// What an HTTP status means; `None` for success.
    pub fn of_status(status: u16) -> Option<HubFailure> {
        match status {
            200..=299 => None,
            401 | 403 => Some(HubFailure::Gated),
            404 => Some(HubFailure::NotFound),
            other => Some(HubFailure::Status(other)),
        }
    }

    /// The message key the faces translate (`hub-gated`, ...).
    pub fn key(self) -> &'static str {
        match self {
            HubFailure::Gated => "hub-gated",
            HubFailure::NotFound => "hub-not-found",
            HubFailure::TooLarge => "hub-too-large",
            HubFailure::TimedOut => "hub-timed-out",
            HubFailure::Offline => "hub-offline",
            HubFailure::Status(_) => "hub-status",
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn hub_addresses_and_answers() {
        assert_eq!(
            config_url("https://huggingface.co/", "Qwen/Qwen3-8B"),
            "https://huggingface.co/Qwen/Qwen3-8B/resolve/main/config.json"
        );
        assert_eq!(
            api_url("http://127.0.0.1:9000", "org/x"),
            "http://127.0.0.1:9000/api/models/org/x"
        );
        assert_eq!(
            normalize_base(" https://hf-mirror.com/ ").as_deref(),
            Some("https://hf-mirror.com")
        );
        for bad in [
            "hf-mirror.com",
            "javascript:alert(1)",
            "https://",
            "https://a b",
            "https://x\"y",
        ] {
            assert_eq!(normalize_base(bad), None, "{bad}");
        }
        assert_eq!(
            safetensors_total(r#"{"safetensors":{"total":8030261248}}"#),
            Some(8_030_261_248)
        );
        assert_eq!(safetensors_total(r#"{"id":"x"}"#), None);
        assert_eq!(safetensors_total("not json"), None);
        assert_eq!(HubFailure::of_status(200), None);
        assert_eq!(HubFailure::of_status(401), Some(HubFailure::Gated));
        assert_eq!(HubFailure::of_status(403), Some(HubFailure::Gated));
        assert_eq!(HubFailure::of_status(404), Some(HubFailure::NotFound));
        assert_eq!(HubFailure::of_status(500), Some(HubFailure::Status(500)));
    }

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
