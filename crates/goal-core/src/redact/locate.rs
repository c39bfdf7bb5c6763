//! Where the secret lies in a match, read by hand, for the rules that
//! match real credentials most often (`Authorization:` headers, bearer
//! tokens, URL passwords, AWS secret keys). The match itself comes from
//! the rule's regex (its lazy DFA is cheap); only the groups are read here,
//! because the regex's capture engine costs several thousand instructions
//! a match on these patterns, more than everything else a secret costs.
//! After the match is known each group is fixed without backtracking; the
//! property tests hold every locator to the regex's captures.

use super::heuristics::{Groups, Part};

/// The groups of a match: `s` (the secret) and, for `Authorization:`,
/// `scheme`.
pub(super) struct Located<'h> {
    hay: &'h str,
    s: Part<'h>,
    scheme: Option<Part<'h>>,
}

impl<'h> Groups<'h> for Located<'h> {
    fn name(&self, name: &str) -> Option<Part<'h>> {
        match name {
            "s" => Some(self.s),
            "scheme" => self.scheme,
            _ => None,
        }
    }

    fn whole(&self) -> Part<'h> {
        Part::new(self.hay, 0, self.hay.len())
    }
}

/// Reads the groups of a whole match `m` of one rule's pattern.
pub(super) type Locate = for<'h> fn(&'h str) -> Option<Located<'h>>;

fn located(m: &str, s: usize) -> Option<Located<'_>> {
    (s < m.len()).then(|| Located {
        hay: m,
        s: Part::new(m, s, m.len()),
        scheme: None,
    })
}

fn blanks(m: &[u8], at: usize) -> usize {
    at + m[at.min(m.len())..]
        .iter()
        .take_while(|b| matches!(b, b' ' | b'\t'))
        .count()
}

/// `(?:\\?["'])?` at `at`: where it ends.
fn quote(m: &[u8], at: usize) -> usize {
    match m.get(at..) {
        Some([b'\\', b'"' | b'\'', ..]) => at + 2,
        Some([b'"' | b'\'', ..]) => at + 1,
        _ => at,
    }
}

/// `bearer[ \t]+(?P<s>...)`.
pub(super) fn bearer(m: &str) -> Option<Located<'_>> {
    located(m, blanks(m.as_bytes(), "bearer".len()))
}

/// `scheme://user:(?P<s>password)@`: the user part holds no `:`, and the
/// match ends with the `@`.
pub(super) fn url_password(m: &str) -> Option<Located<'_>> {
    let bytes = m.as_bytes();
    let user = m.find("://")? + 3;
    let colon = user + bytes[user..].iter().position(|&b| b == b':')?;
    let s = colon + 1;
    (s < m.len() - 1).then(|| Located {
        hay: m,
        s: Part::new(m, s, m.len() - 1),
        scheme: None,
    })
}

/// `aws_secret_access_key{Q}[ \t]*(?::=|=>|=|:)[ \t]*{Q}(?P<s>[A-Za-z0-9/+=]{30,})`.
pub(super) fn aws_secret(m: &str) -> Option<Located<'_>> {
    const MIN: usize = 30;
    let bytes = m.as_bytes();
    let name = bytes
        .iter()
        .take_while(|b| b.is_ascii_alphabetic() || **b == b'_')
        .count();
    let op = blanks(bytes, quote(bytes, name));
    let value_byte = |b: &u8| b.is_ascii_alphanumeric() || b"/+=".contains(b);
    // The operators in the pattern's order: the first that leaves a whole
    // secret is the one the regex takes.
    [":=", "=>", "=", ":"]
        .into_iter()
        .filter(|o| bytes[op..].starts_with(o.as_bytes()))
        .map(|o| quote(bytes, blanks(bytes, op + o.len())))
        .find(|&s| m.len() >= s + MIN && bytes[s..].iter().all(value_byte))
        .and_then(|s| located(m, s))
}

/// The schemes an `Authorization:` value may name, as in the pattern.
const SCHEMES: &[&str] = &[
    "bearer",
    "basic",
    "token",
    "bot",
    "digest",
    "negotiate",
    "ntlm",
    "apikey",
    "sso-key",
    "ssws",
];

/// `(?:proxy-)?authorization{Q}[ \t]*[:=][ \t]*{Q}(?P<scheme>word[ \t]+)?(?P<s>...)`:
/// a scheme is taken when a secret follows it.
pub(super) fn authorization(m: &str) -> Option<Located<'_>> {
    let bytes = m.as_bytes();
    let name = bytes
        .iter()
        .take_while(|b| b.is_ascii_alphabetic() || **b == b'-')
        .count();
    let op = blanks(bytes, quote(bytes, name));
    let value = quote(bytes, blanks(bytes, op + 1));
    let scheme = SCHEMES.iter().find_map(|word| {
        let end = value + word.len();
        let head = bytes.get(value..end)?;
        let s = blanks(bytes, end);
        (head.eq_ignore_ascii_case(word.as_bytes()) && s > end && s < m.len()).then_some(s)
    });
    match scheme {
        Some(s) => Some(Located {
            hay: m,
            s: Part::new(m, s, m.len()),
            scheme: Some(Part::new(m, value, s)),
        }),
        None => located(m, value),
    }
}
