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

/// `[A-Za-z0-9_.-]`: the bytes of a key (`db.password`, `x-api-key`). By
/// table: a key is walked a byte at a time on every assignment trigger.
#[inline]
pub(super) fn key_byte(b: u8) -> bool {
    KEY_BYTE[usize::from(b)]
}

/// `[A-Za-z0-9_-]`: the bytes of a flag's name (`--db-password`).
#[inline]
pub(super) fn name_byte(b: u8) -> bool {
    NAME_BYTE[usize::from(b)]
}

static KEY_BYTE: [bool; 256] = byte_table(b"_.-");
static NAME_BYTE: [bool; 256] = byte_table(b"_-");

/// ASCII letters and digits, and `also`.
const fn byte_table(also: &[u8]) -> [bool; 256] {
    let mut table = [false; 256];
    let mut b = 0;
    while b < 256 {
        table[b] = (b as u8).is_ascii_alphanumeric();
        b += 1;
    }
    let mut i = 0;
    while i < also.len() {
        table[also[i] as usize] = true;
        i += 1;
    }
    table
}

#[cfg(test)]
mod tests {
    /// The tables hold exactly the bytes their classes name.
    #[test]
    fn byte_tables_are_their_classes() {
        for b in 0..=u8::MAX {
            let alnum = b.is_ascii_alphanumeric();
            assert_eq!(
                super::key_byte(b),
                alnum || matches!(b, b'_' | b'.' | b'-'),
                "{b:#x}"
            );
            assert_eq!(
                super::name_byte(b),
                alnum || matches!(b, b'_' | b'-'),
                "{b:#x}"
            );
        }
    }
}
