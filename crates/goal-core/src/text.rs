//! Leaf text helpers shared by the gate, the update rules and the messages:
//! normalizing for comparison and quoting untrusted text. Depends on nothing
//! but redaction, so no rule module imports another through it.

use crate::redact;

/// Normalized form used for comparisons (dedup, exact issue names).
pub fn norm(text: &str) -> String {
    text.split_whitespace()
        .collect::<Vec<_>>()
        .join(" ")
        .to_lowercase()
}

/// Quote untrusted text as a JSON string with `<`, `>` and `&` escaped.
pub fn quote(text: &str) -> String {
    let json = serde_json::to_string(text).unwrap_or_else(|_| "\"\"".into());
    json.replace('<', "\\u003c")
        .replace('>', "\\u003e")
        .replace('&', "\\u0026")
}

/// Up to `max` items, each truncated and quoted, as `["a", "b", "... 3 more"]`.
pub fn quote_items(items: &[String], max: usize, max_chars: usize) -> String {
    let mut parts: Vec<String> = items
        .iter()
        .take(max)
        .map(|i| quote(&redact::truncate(i, max_chars)))
        .collect();
    if items.len() > max {
        parts.push(quote(&format!("... {} more", items.len() - max)));
    }
    format!("[{}]", parts.join(", "))
}
