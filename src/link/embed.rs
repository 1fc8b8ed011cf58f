//! The embed parameters of a link: `embed=1` asks for the compact calculator
//! (for an iframe in a documentation page), `show=mb,seq` for the inputs it
//! exposes, named by their share-link keys. Read once with the rest of the
//! page's parameters (`link::read`); the views are `components::embed`.

use vramfit_core::scenario::fields::{Field, FIELDS};
use vramfit_core::scenario::{Scenario, TaskKind};

use crate::i18n::english;

/// `embed=1` switches the page to embed mode.
pub const EMBED_PARAM: &str = "embed";
/// `show=mb,seq`: the inputs an embed exposes (link codec keys).
pub const SHOW_PARAM: &str = "show";
/// The `type` of the message carrying the content height to the parent page.
pub const HEIGHT_MESSAGE: &str = "vramfit:height";
/// Starting height of the snippet's iframe, before the first height message
/// arrives: about what a two-input embed measures (no layout jump after).
const SNIPPET_HEIGHT_PX: u32 = 300;
/// An input an embed can expose: a field of the core's registry marked
/// `embeddable`, named in `show=` by its share-link key.
#[derive(Clone, Copy, Debug)]
pub struct Exposed(&'static Field);

impl PartialEq for Exposed {
    fn eq(&self, other: &Self) -> bool {
        self.0.key == other.0.key
    }
}

impl Eq for Exposed {}

impl Exposed {
    /// Every input an embed may expose, in the registry's order.
    pub fn all() -> impl Iterator<Item = Exposed> {
        FIELDS.iter().filter(|f| f.embeddable).map(Exposed)
    }

    /// The registry row behind the input.
    pub fn field(self) -> &'static Field {
        self.0
    }

    /// The key in `show=` (the same as the share link's key for the field).
    pub fn key(self) -> &'static str {
        self.0.key
    }

    pub fn from_key(key: &str) -> Option<Exposed> {
        Exposed::all().find(|e| e.key() == key)
    }

    /// The English label (from which the field's test id and translation
    /// follow), else the field's path.
    pub fn label(self) -> &'static str {
        self.0.label.and_then(english).unwrap_or(self.0.path)
    }

    /// Whether the input means something for the scenario.
    pub fn applies(self, sc: &Scenario) -> bool {
        self.0.applies(sc)
    }

    /// What the Embed panel ticks until the author chooses: the two inputs
    /// people vary most for the task.
    pub fn defaults(task: TaskKind) -> Vec<Exposed> {
        let keys = match task {
            TaskKind::Training => ["mb", "seq"],
            TaskKind::Inference => ["bs", "pl"],
        };
        keys.into_iter().filter_map(Exposed::from_key).collect()
    }
}

/// What an embed link asks for.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct EmbedOptions {
    pub exposed: Vec<Exposed>,
    /// `show=` keys that name no input (shown as ignored).
    pub unknown: Vec<String>,
}

/// The embed options of a split query string, `None` unless it says `embed=1`.
pub fn embed_options(pairs: &[(String, String)]) -> Option<EmbedOptions> {
    let value = |key: &str| {
        pairs
            .iter()
            .find(|(k, _)| k == key)
            .map(|(_, v)| v.as_str())
    };
    if value(EMBED_PARAM) != Some("1") {
        return None;
    }
    let mut options = EmbedOptions::default();
    for key in value(SHOW_PARAM).unwrap_or("").split(',') {
        let key = key.trim();
        match Exposed::from_key(key) {
            Some(e) if !options.exposed.contains(&e) => options.exposed.push(e),
            Some(_) => {}
            None if key.is_empty() => {}
            None => options.unknown.push(key.to_owned()),
        }
    }
    Some(options)
}

/// The embed link: the app's address, the scenario's query, then the embed
/// parameters (so "open in vramfit" is the same link without them).
pub fn embed_url(app_address: &str, query: &str, exposed: &[Exposed]) -> String {
    let mut url = format!("{app_address}?{query}&{EMBED_PARAM}=1");
    if !exposed.is_empty() {
        let keys: Vec<&str> = exposed.iter().map(|e| e.key()).collect();
        url.push_str(&format!("&{SHOW_PARAM}={}", keys.join(",")));
    }
    url
}

/// Text made safe inside a double-quoted HTML attribute.
pub fn escape_attribute(text: &str) -> String {
    text.replace('&', "&amp;")
        .replace('"', "&quot;")
        .replace('<', "&lt;")
        .replace('>', "&gt;")
}

/// The HTML to paste into a page: the iframe, and a listener that sets each
/// vramfit iframe's height from its messages (once per page is enough).
pub fn iframe_snippet(src: &str, title: &str) -> String {
    format!(
        "<iframe data-vramfit src=\"{src}\" title=\"{title}\" width=\"100%\" height=\"{SNIPPET_HEIGHT_PX}\" style=\"border:0\" loading=\"lazy\"></iframe>\n\
         <script>addEventListener(\"message\",e=>{{if(e.data&&e.data.type===\"{HEIGHT_MESSAGE}\")\
         for(const f of document.querySelectorAll(\"iframe[data-vramfit]\"))\
         if(f.contentWindow===e.source)f.style.height=e.data.height+\"px\"}})</script>",
        src = escape_attribute(src),
        title = escape_attribute(title),
    )
}

#[cfg(test)]
mod tests {
    use super::*;

    use vramfit_core::url::query_pairs;

    fn options(query: &str) -> Option<EmbedOptions> {
        embed_options(&query_pairs(query))
    }

    fn exposed(key: &str) -> Exposed {
        Exposed::from_key(key).unwrap_or_else(|| panic!("{key} is not embeddable"))
    }

    #[test]
    fn embeds_keep_their_twelve_inputs_and_labels() {
        let shown: Vec<(&str, &str)> = Exposed::all().map(|e| (e.key(), e.label())).collect();
        assert_eq!(
            shown,
            [
                ("w", "weights"),
                ("meth", "method"),
                ("r", "rank"),
                ("mb", "micro-batch"),
                ("ga", "gradient accumulation"),
                ("seq", "sequence length"),
                ("bs", "batch"),
                ("pl", "prompt tokens"),
                ("nt", "new tokens"),
                ("eng", "engine"),
                ("n", "GPU count"),
                ("gpu", "GPU"),
            ]
        );
    }

    #[test]
    fn embed_needs_embed_1_and_reads_show_in_order() {
        assert_eq!(options("v=1&mb=4"), None);
        assert_eq!(options("v=1&embed=0"), None);
        let shown = options("?v=1&embed=1&show=seq,mb,seq,zz,").expect("embed");
        assert_eq!(shown.exposed, vec![exposed("seq"), exposed("mb")]);
        assert_eq!(shown.unknown, vec!["zz".to_owned()]);
        assert_eq!(options("embed=1"), Some(EmbedOptions::default()));
    }

    #[test]
    fn embed_params_are_not_scenario_notices() {
        let page = crate::link::read("v=1&mb=4&embed=1&show=mb");
        assert!(page.notices.is_empty(), "{:?}", page.notices);
        assert_eq!(page.scenario.training.micro_batch, 4);
    }

    #[test]
    fn show_keys_are_share_link_keys() {
        // Each exposed input's key is the key the link codec writes for its
        // field: change the field, and the key appears in the query.
        let mut sc = Scenario::default();
        sc.training.micro_batch = 3;
        sc.training.grad_accum = 3;
        sc.training.seq_len = 3;
        sc.training.lora.rank = 3;
        sc.inference.batch = 3;
        sc.inference.prompt_len = 3;
        sc.inference.new_tokens = 3;
        sc.parallel.gpus = 3;
        let query = vramfit_core::url::encode(&sc);
        let keys: Vec<String> = query_pairs(&query).into_iter().map(|(k, _)| k).collect();
        for e in ["mb", "ga", "seq", "r", "bs", "pl", "nt", "n"].map(exposed) {
            assert!(
                keys.iter().any(|k| k == e.key()),
                "{} not in {query}",
                e.key()
            );
        }
    }

    #[test]
    fn snippet_escapes_the_link_and_round_trips() {
        let url = embed_url(
            "https://x.test/vramfit/",
            "v=1&mb=4",
            &[exposed("mb"), exposed("seq")],
        );
        assert_eq!(url, "https://x.test/vramfit/?v=1&mb=4&embed=1&show=mb,seq");
        let snippet = iframe_snippet(&url, "a \"quoted\" <title>");
        assert!(snippet
            .contains("src=\"https://x.test/vramfit/?v=1&amp;mb=4&amp;embed=1&amp;show=mb,seq\""));
        assert!(snippet.contains("title=\"a &quot;quoted&quot; &lt;title&gt;\""));
        assert!(snippet.contains(HEIGHT_MESSAGE));
        let query = url.split_once('?').map(|(_, q)| q).unwrap_or_default();
        let shown = options(query).expect("embed");
        assert_eq!(shown.exposed, vec![exposed("mb"), exposed("seq")]);
    }

    #[test]
    fn defaults_apply_to_their_task() {
        for task in [TaskKind::Training, TaskKind::Inference] {
            let sc = Scenario {
                task,
                ..Scenario::default()
            };
            let defaults = Exposed::defaults(task);
            assert_eq!(defaults.len(), 2);
            assert!(defaults.iter().all(|e| e.applies(&sc)));
        }
    }
}
