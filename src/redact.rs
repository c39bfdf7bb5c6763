//! Redaction and fingerprints, for adapters that log or display text.

use napi_derive::napi;

/// Replace secrets (cloud keys, tokens, private keys, passwords in assignments,
/// headers and URLs) with `[REDACTED:<family>]` markers. Idempotent.
#[napi]
pub fn redact(text: String) -> String {
    goal_core::redact::redact(&text).into_owned()
}

/// Redact a line the `goal-system` command prints that may echo some of
/// `inputs` (its arguments): each input as it stands alone, then the line
/// (`message`: as an error or a warning, where a word that looks like a
/// token cut short and any long opaque mixed-case word go too).
#[napi]
pub fn redact_line(text: String, inputs: Vec<String>, message: bool) -> String {
    let inputs: Vec<&str> = inputs.iter().map(String::as_str).collect();
    goal_core::redact::echoing(&text, &inputs, message)
}

/// `sha256:<hex>` of the text: how a source prompt is stored.
#[napi]
pub fn fingerprint(text: String) -> String {
    goal_core::redact::fingerprint(&text)
}

/// Redact, collapse whitespace and truncate to `maxChars` characters.
#[napi]
pub fn preview(text: String, max_chars: u32) -> String {
    goal_core::redact::preview(&text, max_chars as usize)
}
