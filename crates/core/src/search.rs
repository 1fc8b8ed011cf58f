//! Catalog search, one rule for every face (web pickers, `vramfit catalog`):
//! what people type ("llama3 8b", "qwen 72b awq", "a100 40", a pasted Hugging
//! Face id or URL) finds the entries whose names carry every word.
//!
//! Names and queries are cut into words at anything that is not a letter or
//! a digit, and again where letters meet digits (`Llama-3.1-8B` is `llama`,
//! `3.1`, `8`, `b`); a decimal point between digits stays inside its number,
//! so `7b` does not find `2.7B`. Each query word must appear as consecutive
//! words of some name, the last of them as a prefix (a word being typed).
//! Catalog names are ASCII: ASCII case folding and classes keep the Unicode
//! tables out of the web app.

/// A query, cut into words once.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Query {
    /// Each query word, itself cut at letter/digit boundaries.
    words: Vec<Vec<String>>,
}

/// Hosts whose address may be pasted in front of a model id.
const HUB_PREFIXES: [&str; 2] = ["huggingface.co/", "hf.co/"];

impl Query {
    pub fn new(text: &str) -> Query {
        let lower = text.trim().to_ascii_lowercase();
        // A pasted model page: keep the `org/name` after the host.
        let text = HUB_PREFIXES
            .iter()
            .find_map(|host| lower.split_once(host).map(|(_, rest)| rest.to_owned()))
            .unwrap_or(lower);
        let words = text
            .split_whitespace()
            .map(pieces)
            .filter(|p| !p.is_empty())
            .collect();
        Query { words }
    }

    /// The query without the words in `ignored` (vendor words in front of a
    /// GPU name), unless nothing else is left.
    pub fn without(mut self, ignored: &[&str]) -> Query {
        let kept: Vec<Vec<String>> = self
            .words
            .iter()
            .filter(|w| !(w.len() == 1 && ignored.contains(&w[0].as_str())))
            .cloned()
            .collect();
        if !kept.is_empty() {
            self.words = kept;
        }
        self
    }

    pub fn is_empty(&self) -> bool {
        self.words.is_empty()
    }

    /// Whether every query word is found in one of `names`.
    pub fn matches<'a>(&self, names: impl IntoIterator<Item = &'a str>) -> bool {
        let names: Vec<Vec<String>> = names.into_iter().map(pieces).collect();
        self.words
            .iter()
            .all(|word| names.iter().any(|name| contains_run(name, word)))
    }
}

/// `text` cut into lower-case words at non-alphanumerics and at
/// letter/digit boundaries; `.` between two digits stays in the number.
fn pieces(text: &str) -> Vec<String> {
    let chars: Vec<char> = text.to_ascii_lowercase().chars().collect();
    let mut out: Vec<String> = Vec::new();
    let mut current = String::new();
    let mut last_digit = None::<bool>;
    for (i, &c) in chars.iter().enumerate() {
        let decimal_point = c == '.'
            && last_digit == Some(true)
            && chars.get(i + 1).is_some_and(char::is_ascii_digit);
        if decimal_point {
            current.push(c);
            continue;
        }
        if !c.is_ascii_alphanumeric() {
            if !current.is_empty() {
                out.push(std::mem::take(&mut current));
            }
            last_digit = None;
            continue;
        }
        let digit = c.is_ascii_digit();
        if last_digit.is_some_and(|d| d != digit) && !current.is_empty() {
            out.push(std::mem::take(&mut current));
        }
        current.push(c);
        last_digit = Some(digit);
    }
    if !current.is_empty() {
        out.push(current);
    }
    out
}

/// Whether `word` occurs as consecutive pieces of `name`: every piece equal,
/// the last one a prefix.
fn contains_run(name: &[String], word: &[String]) -> bool {
    let Some((last, whole)) = word.split_last() else {
        return true;
    };
    if name.len() < word.len() {
        return false;
    }
    (0..=name.len() - word.len()).any(|start| {
        let window = &name[start..start + word.len()];
        window.iter().zip(whole).all(|(n, w)| n == w)
            && window.last().is_some_and(|n| n.starts_with(last.as_str()))
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    fn finds(query: &str, name: &str) -> bool {
        Query::new(query).matches([name])
    }

    #[test]
    fn words_are_cut_at_letters_and_digits_but_keep_decimals() {
        assert_eq!(pieces("Llama-3.1-8B"), ["llama", "3.1", "8", "b"]);
        assert_eq!(
            pieces("Qwen2.5-72B-Instruct-AWQ"),
            ["qwen", "2.5", "72", "b", "instruct", "awq"]
        );
        assert_eq!(
            pieces("a100-sxm4-40gb"),
            ["a", "100", "sxm", "4", "40", "gb"]
        );
        assert_eq!(pieces("v0.1."), ["v", "0.1"]);
    }

    #[test]
    fn people_type_words_in_any_form() {
        assert!(finds("llama 7b", "meta-llama/Llama-2-7b-hf"));
        assert!(finds("7b llama", "meta-llama/Llama-2-7b-hf"));
        assert!(finds("Llama-2-7B", "meta-llama/Llama-2-7b-hf"));
        assert!(finds("llama3 8b", "meta-llama/Meta-Llama-3-8B"));
        assert!(finds("qwen 72b awq", "Qwen/Qwen2.5-72B-Instruct-AWQ"));
        assert!(finds("lla", "meta-llama/Llama-2-7b-hf"));
        assert!(finds("qwen2", "Qwen/Qwen2.5-7B"));
        assert!(finds(
            "https://huggingface.co/meta-llama/Llama-3.1-8B",
            "meta-llama/Llama-3.1-8B"
        ));
        assert!(finds("a100 40", "a100-sxm4-40gb"));
    }

    #[test]
    fn numbers_do_not_match_inside_other_numbers() {
        assert!(!finds("7b", "stabilityai/stable-code-2.7B"));
        assert!(!finds("llama3 8b", "meta-llama/Llama-2-7b-hf"));
        assert!(!finds("a100 80", "a100-sxm4-40gb"));
    }

    #[test]
    fn an_empty_query_matches_everything_and_vendor_words_are_optional() {
        assert!(Query::new("   ").matches(["anything"]));
        let q = Query::new("NVIDIA GeForce RTX 4090").without(&["nvidia", "geforce"]);
        assert!(q.matches(["rtx-4090"]));
        assert!(Query::new("nvidia")
            .without(&["nvidia"])
            .matches(["NVIDIA H100"]));
    }
}
