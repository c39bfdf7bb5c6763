//! What the other parts of redaction share without depending on one
//! another: the markers' common start, the kinds of rule (what to do with
//! a match) and the byte classes of keys and names. A leaf: it uses no
//! other part, so the rules, the heuristics that judge their matches and
//! the pre-checks that run before them import it without importing each
//! other in a circle.

/// Common start of `[REDACTED]` and of every family marker.
pub(super) const MARKER_PREFIX: &str = "[REDACTED";

/// What to do with a match of a rule.
#[derive(Clone, Copy)]
pub(super) enum Kind {
    /// Group `s` (or the whole match) is a secret.
    Token,
    /// Like `Token`, but the candidate must also pass a check.
    Checked(fn(&str) -> bool),
    /// `key = value` / `key: value` / `"key": "value"`; see `assignment_secret`.
    Assignment,
    /// `--password value`; judged like a lower-case assignment.
    Flag,
    /// `Authorization: <scheme> <credentials>`.
    Authorization,
    /// `Cookie:` / `Set-Cookie:` header: the whole value.
    Cookie,
}

/// `[A-Za-z0-9_.-]`: the bytes of a key (`db.password`, `x-api-key`).
pub(super) fn key_byte(b: u8) -> bool {
    b.is_ascii_alphanumeric() || matches!(b, b'_' | b'.' | b'-')
}

/// `[A-Za-z0-9_-]`: the bytes of a flag's name (`--db-password`).
pub(super) fn name_byte(b: u8) -> bool {
    b.is_ascii_alphanumeric() || matches!(b, b'_' | b'-')
}
