//! Where the secret lies in a match, read by hand, for the rules that
//! match real credentials most often (`Authorization:` headers, bearer
//! tokens, URL passwords, AWS secret keys, the context rule's `the token
//! is ...`). The match itself comes from
//! the rule's regex (its lazy DFA is cheap); only the groups are read here,
//! because the regex's capture engine costs several thousand instructions
//! a match on these patterns, more than everything else a secret costs.
//! After the match is known each group is fixed without backtracking
//! (the context rule's parts may overlap, so its reader tries the
//! pattern's choices in the regex's order, a few bytes each); the
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

/// One piece of a pattern read by hand: given where it may start, calls
/// `then` with each place it may end, in the order the regex tries them,
/// and stops at the first that leads to a match.
type Then<'k> = &'k mut dyn FnMut(usize) -> Option<usize>;

/// `word` (ASCII case-insensitive) at `at`.
fn word(m: &[u8], at: usize, word: &str, then: Then<'_>) -> Option<usize> {
    let end = at + word.len();
    match m.get(at..end) {
        Some(w) if w.eq_ignore_ascii_case(word.as_bytes()) => then(end),
        _ => None,
    }
}

/// `[ _-]?` at `at`, greedy.
fn separator(m: &[u8], at: usize, then: Then<'_>) -> Option<usize> {
    if matches!(m.get(at), Some(b' ' | b'_' | b'-')) {
        if let Some(s) = then(at + 1) {
            return Some(s);
        }
    }
    then(at)
}

/// `[ \t]{min,4}`, greedy.
fn blanks_between(m: &[u8], at: usize, min: usize, then: Then<'_>) -> Option<usize> {
    let most = m[at.min(m.len())..]
        .iter()
        .take(4)
        .take_while(|b| matches!(b, b' ' | b'\t'))
        .count();
    (min..=most).rev().find_map(|n| then(at + n))
}

/// `[A-Za-z0-9/+_=~-]`: a byte of the context rule's value.
fn value_byte(b: u8) -> bool {
    b.is_ascii_alphanumeric() || matches!(b, b'/' | b'+' | b'_' | b'=' | b'~' | b'-')
}

/// `V(?:\.?V){19,}` at `at` (greedy, and last in the pattern, so its
/// longest reach is the one taken): where it ends, if it holds 20 bytes
/// of `V`.
fn context_value(m: &[u8], at: usize) -> Option<usize> {
    let mut count = 0;
    let mut i = at;
    loop {
        match m.get(i..) {
            Some([b'.', b, ..]) if count > 0 && value_byte(*b) => i += 2,
            Some([b, ..]) if value_byte(*b) => i += 1,
            _ => break,
        }
        count += 1;
    }
    (count >= 20).then_some(i)
}

/// The context rule: `name (?:[ \t]{1,4}filler){0,3}[ \t]{0,4}[:=]?[ \t]{0,4}["'`]?(?P<s>value)`
/// (`rules.rs`). Its parts may overlap (a filler `=` or `:`, the operator,
/// a value byte `=`), so the groups are found as the regex finds them: each
/// choice tried in the pattern's order, the first that leaves a whole value
/// taken.
pub(super) fn context(m: &str) -> Option<Located<'_>> {
    let bytes = m.as_bytes();
    // After the name: fillers, blanks, operator, blanks, quote, value.
    let mut after_name = |at: usize| -> Option<usize> {
        fillers(bytes, at, 3, &mut |at| {
            blanks_between(bytes, at, 0, &mut |at| {
                let after_op = |at: usize| {
                    blanks_between(bytes, at, 0, &mut |at| {
                        if matches!(bytes.get(at), Some(b'"' | b'\'' | b'`'))
                            && context_value(bytes, at + 1).is_some()
                        {
                            return Some(at + 1);
                        }
                        context_value(bytes, at).map(|_| at)
                    })
                };
                if matches!(bytes.get(at), Some(b':' | b'=')) {
                    if let Some(s) = after_op(at + 1) {
                        return Some(s);
                    }
                }
                after_op(at)
            })
        })
    };
    let s = context_name(bytes, &mut after_name)?;
    (context_value(bytes, s) == Some(m.len())).then(|| Located {
        hay: m,
        s: Part::new(m, s, m.len()),
        scheme: None,
    })
}

/// `(?:[ \t]{1,4}(?i-u:is|was|are|=|:|->|of|for|to|now|here|value)){0,left}`,
/// greedy.
fn fillers(m: &[u8], at: usize, left: usize, then: Then<'_>) -> Option<usize> {
    const FILLERS: &[&str] = &[
        "is", "was", "are", "=", ":", "->", "of", "for", "to", "now", "here", "value",
    ];
    if left > 0 {
        let more = blanks_between(m, at, 1, &mut |at| {
            FILLERS
                .iter()
                .find_map(|w| word(m, at, w, &mut |end| fillers(m, end, left - 1, then)))
        });
        if more.is_some() {
            return more;
        }
    }
    then(at)
}

/// The context rule's names at the start of `m`, in the pattern's order:
/// `(?:aws[ _-]?)?secret(?:[ _-]?access)?(?:[ _-]?key)?`,
/// `(?:(?:access|refresh|auth|bearer|api|bot)[ _-]?)?token`,
/// `api[ _-]?key`, `access[ _-]?key`, `private[ _-]?key`, `password`,
/// `passphrase`, `credentials?`.
fn context_name(m: &[u8], then: Then<'_>) -> Option<usize> {
    // `(?:[ _-]?word)?` at `at`, greedy.
    fn optional_word(m: &[u8], at: usize, w: &str, then: Then<'_>) -> Option<usize> {
        let with = separator(m, at, &mut |at| word(m, at, w, &mut *then));
        with.or_else(|| then(at))
    }
    fn secret(m: &[u8], at: usize, then: Then<'_>) -> Option<usize> {
        word(m, at, "secret", &mut |at| {
            optional_word(m, at, "access", &mut |at| {
                optional_word(m, at, "key", &mut *then)
            })
        })
    }
    let aws_secret = word(m, 0, "aws", &mut |at| {
        separator(m, at, &mut |at| secret(m, at, &mut *then))
    });
    if let Some(s) = aws_secret.or_else(|| secret(m, 0, &mut *then)) {
        return Some(s);
    }
    let token = ["access", "refresh", "auth", "bearer", "api", "bot"]
        .iter()
        .find_map(|w| {
            word(m, 0, w, &mut |at| {
                separator(m, at, &mut |at| word(m, at, "token", &mut *then))
            })
        })
        .or_else(|| word(m, 0, "token", &mut *then));
    if let Some(s) = token {
        return Some(s);
    }
    for w in ["api", "access", "private"] {
        let key = word(m, 0, w, &mut |at| {
            separator(m, at, &mut |at| word(m, at, "key", &mut *then))
        });
        if let Some(s) = key {
            return Some(s);
        }
    }
    word(m, 0, "password", &mut *then)
        .or_else(|| word(m, 0, "passphrase", &mut *then))
        .or_else(|| word(m, 0, "credential", &mut |at| optional_s(m, at, &mut *then)))
}

/// `s?` at `at`, greedy (ASCII case-insensitive).
fn optional_s(m: &[u8], at: usize, then: Then<'_>) -> Option<usize> {
    if matches!(m.get(at), Some(b's' | b'S')) {
        if let Some(s) = then(at + 1) {
            return Some(s);
        }
    }
    then(at)
}
