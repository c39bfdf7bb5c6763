//! Redaction of secrets before anything is persisted or shown.
//!
//! Everything the goal system writes to disk (goal records, hook payloads,
//! previews of prompts and tool output) passes through [`redact`] or
//! [`redact_value`] first, and every error text through [`for_message`].
//!
//! - `rules.rs`: the rule table (token families, headers, URLs,
//!   assignments, context), each rule with the literals that trigger it.
//! - `kinds.rs`: the kinds of rule and the byte classes the other parts
//!   share (a leaf, so no two parts import each other).
//! - `prechecks.rs`: cheap tests that turn a trigger away before its
//!   rule's regex runs (`prechecks/x86.rs`: the context rule's with AVX2,
//!   detected at run time).
//! - `assignment.rs`: the `key = value` rule, read by hand (the commonest
//!   trigger in agent output; the property tests hold it to its regex).
//! - `scan.rs`: the trigger scan (a pair table, one lookup per byte;
//!   `scan/x86.rs`: the same with AVX2, detected at run time).
//! - `engine.rs`: one pass: trigger scan, each rule run only near its
//!   trigger, spans merged, output written once (borrowed when clean).
//! - `locate.rs`: the groups of the commonest real credentials' matches,
//!   read by hand (the capture engine costs more than the match).
//! - `heuristics.rs`: whether a candidate value is a secret or code, a
//!   reference, a path, prose.
//!
//! Idempotent: markers look like `[REDACTED:family]`; no pattern can match
//! inside a marker (value classes exclude `[`, and a quoted value that is
//! exactly a marker is left alone), so `redact(redact(x)) == redact(x)`.
//! Readable: only the secret part of a match is replaced; the key of an
//! assignment, an `Authorization: Bearer ` prefix, the user and host of a URL
//! all stay in place.

mod assignment;
#[cfg(test)]
mod corpus;
#[cfg(test)]
mod echo_tests;
mod engine;
mod families;
mod glance;
mod heuristics;
mod kinds;
mod locate;
mod prechecks;
#[cfg(test)]
mod props;
#[cfg(test)]
mod reference_tests;
mod rule;
mod rules;
mod scan;
#[cfg(test)]
mod tests;

use std::borrow::Cow;
use std::sync::OnceLock;

use serde_json::Value;
use sha2::{Digest, Sha256};

use engine::Engine;
use heuristics::{has_letter_and_digit, is_marker, is_secret_key, mixed_case, opaque_token};
use kinds::MARKER_PREFIX;

/// Marker that replaces a whole value whose JSON key names a secret (see
/// [`redact_value`]). Pattern-based redactions use the family form
/// `[REDACTED:family]`; both start with `[REDACTED`, which no rule matches,
/// so redaction is idempotent.
pub const REDACTED: &str = "[REDACTED]";

static ENGINE: OnceLock<Engine> = OnceLock::new();

fn engine() -> &'static Engine {
    ENGINE.get_or_init(|| Engine::new(glance::rules_table()))
}

/// Replaces secrets in `text` with `[REDACTED:family]` markers, keeping
/// non-secret context (`password=`, `Authorization: Bearer `, URL user and
/// host) so the text stays readable. Returns the input borrowed when nothing
/// was redacted; that common case costs a single byte scan for the rules'
/// triggers, without compiling any regex that has no trigger in it.
pub fn redact(text: &str) -> Cow<'_, str> {
    if text.len() <= glance::SHORT && ENGINE.get().is_none() && !glance::may_fire(text.as_bytes()) {
        return Cow::Borrowed(text);
    }
    engine().redact(text)
}

/// Redacts a text about to become an error message (a command's stderr, an
/// MCP error, a hook's stderr, the fault log). Besides [`redact`], a word
/// that looks like a token cut short by truncation (`ghp_abc…`) or any long
/// opaque word (mixed-case letters and digits, 24 characters or more) goes
/// too, while ids and digests (lower-case hex) stay: an
/// error names what was wrong, it never needs to quote a credential.
pub fn for_message(text: &str) -> String {
    let redacted = redact(text);
    redact_opaque_words(&redacted).into_owned()
}

/// For error texts: words that look like a token cut by truncation
/// (`ghp_abc…`) or any long opaque mixed-case word are replaced by a marker.
fn redact_opaque_words(text: &str) -> Cow<'_, str> {
    let is_word = |c: char| c.is_ascii_alphanumeric() || "_-+/=.~".contains(c);
    let mut out: Option<String> = None;
    let mut copied = 0;
    let mut rest = text.char_indices().peekable();
    while let Some((start, c)) = rest.next() {
        if !is_word(c) {
            continue;
        }
        let mut end = start + c.len_utf8();
        while let Some(&(i, c)) = rest.peek() {
            if !is_word(c) {
                break;
            }
            end = i + c.len_utf8();
            rest.next();
        }
        let word = &text[start..end];
        let cut = text[end..].starts_with('…');
        // Mixed case: ids and digests (`goal-<hex>`, a commit) stay.
        let secret = (word.len() >= 24 && opaque_token(word) && mixed_case(word))
            || (cut && word.len() >= 12 && has_letter_and_digit(word));
        if secret {
            let out = out.get_or_insert_with(String::new);
            out.push_str(&text[copied..start]);
            out.push_str(MARKER_PREFIX);
            out.push_str(":secret]");
            copied = if cut { end + '…'.len_utf8() } else { end };
        }
    }
    match out {
        None => Cow::Borrowed(text),
        Some(mut out) => {
            out.push_str(&text[copied..]);
            Cow::Owned(out)
        }
    }
}

/// Redacts a line that may echo some of `inputs` (what a command was
/// given: its arguments). Whether a value is a secret may depend on what
/// follows it (`--password hunter` ending a command, `password: Hunter`
/// ending a line), and a line that quotes the input, or only part of it,
/// changes that. So the inputs are judged as they were given (each alone,
/// and all of them as one command line), and every secret found there is
/// taken from the line wherever it appears; then [`redact`] (`message`:
/// [`for_message`]) runs on the whole line.
pub fn echoing(text: &str, inputs: &[&str], message: bool) -> String {
    let engine = engine();
    let command = inputs.join(" ");
    let mut secrets: Vec<(&str, &str)> = engine.secrets(&command);
    for input in inputs {
        secrets.extend(engine.secrets(input));
    }
    // Longest first, so that a secret holding another goes whole; a few
    // characters could be anything.
    secrets.retain(|(secret, _)| secret.len() >= MIN_ECHOED_SECRET);
    secrets.sort_by_key(|(secret, _)| std::cmp::Reverse(secret.len()));
    let mut line = text.to_string();
    for (secret, family) in secrets {
        line = line.replace(secret, &format!("{MARKER_PREFIX}:{family}]"));
    }
    if message {
        for_message(&line)
    } else {
        redact(&line).into_owned()
    }
}

/// The shortest secret of an input taken from every place a line shows it.
const MIN_ECHOED_SECRET: usize = 4;

/// Redacts every string inside `value` in place with [`redact`]. Object keys
/// are kept, but a non-empty string stored under a secret-looking key
/// (`password`, `api_key`, `authorization`, `cookie`, `clientSecret`, ...)
/// is replaced by [`REDACTED`] as a whole, whatever it looks like.
/// Iterative, so deeply nested values cannot overflow the stack.
pub fn redact_value(value: &mut Value) {
    let mut stack: Vec<&mut Value> = vec![value];
    while let Some(v) = stack.pop() {
        match v {
            Value::String(s) => {
                if let Cow::Owned(red) = redact(s) {
                    *s = red;
                }
            }
            Value::Array(items) => stack.extend(items.iter_mut()),
            Value::Object(map) => {
                for (key, item) in map.iter_mut() {
                    match item {
                        Value::String(s) if is_secret_key(key) => {
                            if !s.is_empty() && !is_marker(s) {
                                *s = REDACTED.to_string();
                            }
                        }
                        other => stack.push(other),
                    }
                }
            }
            Value::Null | Value::Bool(_) | Value::Number(_) => {}
        }
    }
}

/// Cuts `text` to at most `max_chars` characters (not bytes, so multibyte
/// text is never split inside a character), ending with "…" when something
/// was cut. The ellipsis counts towards `max_chars`.
pub fn truncate(text: &str, max_chars: usize) -> String {
    if text.char_indices().nth(max_chars).is_none() {
        return text.to_string();
    }
    if max_chars == 0 {
        return String::new();
    }
    let cut = text
        .char_indices()
        .nth(max_chars - 1)
        .map_or(text.len(), |(i, _)| i);
    let mut out = String::with_capacity(cut + '…'.len_utf8());
    out.push_str(&text[..cut]);
    out.push('…');
    out
}

/// One-line, secret-free summary of `text` for logs and listings: redacts,
/// collapses whitespace runs to single spaces, trims, then [`truncate`]s to
/// `max_chars` characters.
pub fn preview(text: &str, max_chars: usize) -> String {
    let redacted = redact(text);
    let mut collapsed = String::new();
    let mut chars = 0usize;
    for word in redacted.split_whitespace() {
        if !collapsed.is_empty() {
            collapsed.push(' ');
            chars += 1;
        }
        collapsed.push_str(word);
        chars += word.chars().count();
        if chars > max_chars {
            break; // enough to know it will be cut
        }
    }
    truncate(&collapsed, max_chars)
}

/// `"sha256:" + lowercase hex SHA-256` of `text`: lets a prompt be stored
/// and compared by hash only, without keeping its content.
pub fn fingerprint(text: &str) -> String {
    const HEX: &[u8; 16] = b"0123456789abcdef";
    let digest = Sha256::digest(text.as_bytes());
    let mut out = String::with_capacity(7 + 64);
    out.push_str("sha256:");
    for byte in digest {
        out.push(HEX[usize::from(byte >> 4)] as char);
        out.push(HEX[usize::from(byte & 0x0f)] as char);
    }
    out
}
