//! The `key = value` rule, read by hand: the names a secret may be stored
//! under, whether a run of key bytes is such a key, and the groups of the
//! assignment that follows it.
//!
//! The rule's regex (`rules.rs`, built from the same name lists) says what
//! an assignment is; this reads the same thing without running it. After
//! its trigger (a key ending followed by an operator) every part is fixed
//! without backtracking: the key is the run of key bytes ending at the
//! trigger, a quoted value ends at its first unescaped quote, a bare value
//! at its first excluded character. The property tests hold the two to the
//! same answers. Assignments are the commonest trigger in agent output
//! (`let token = ...`, `password: String`), and the regex cost several times
//! what this does.

use super::heuristics::{Groups, Part};
use super::kinds::key_byte;

/// Names a secret may be stored under, compared ASCII case-insensitively
/// after any prefix such as `DB_`, `GITHUB_`, `client_`, `x-`. Between the
/// words of a name may stand one `_` or `-`, or nothing (`api_key`,
/// `api-key`, `apikey`).
pub(super) const KEY_NAMES: &[&[&str]] = &[
    &["password"],
    &["passwd"],
    &["passphrase"],
    &["pwd"],
    &["secret"],
    &["token"],
    &["api", "key"],
    &["access", "key"],
    &["secret", "key"],
    &["private", "key"],
    &["account", "key"],
    &["shared", "access", "key"],
    &["shared", "access", "signature"],
    &["master", "key"],
    &["signing", "key"],
    &["encryption", "key"],
    &["auth", "key"],
    &["app", "key"],
    &["license", "key"],
    &["client", "key"],
    &["service", "key"],
    &["credentials"],
    &["credential"],
];

/// The same names as the tail of a camelCase identifier (`accessToken`,
/// `dbPassword`, `apiKey`), plus any `...Key` (judged more strictly, see
/// `heuristics::weak_value_is_secret`). Case-sensitive.
pub(super) const CAMEL_KEY_NAMES: &[&str] = &[
    "Password",
    "Passwd",
    "Passphrase",
    "Pwd",
    "Secret",
    "Token",
    "Key",
    "Credentials",
    "Credential",
];

/// Names that hold a secret only after a prefix (`cache_key`, `x.signature`).
const WEAK_NAMES: &[&[&str]] = &[&["key"], &["signature"]];

/// [`KEY_NAMES`] as a regex alternation.
pub(super) fn key_names_pattern() -> String {
    alternation(KEY_NAMES)
}

fn alternation(names: &[&[&str]]) -> String {
    names
        .iter()
        .map(|words| words.join("[_-]?"))
        .collect::<Vec<_>>()
        .join("|")
}

/// The key grammar of the assignment rule's regex, as an alternation.
pub(super) fn key_pattern() -> String {
    format!(
        r"_*(?:(?:[A-Za-z0-9]+[_.-])*(?i-u:{})|(?:[A-Za-z0-9]+[_.-])+(?i-u:{})|[a-z][a-zA-Z0-9]*(?:{}))",
        key_names_pattern(),
        alternation(WEAK_NAMES),
        CAMEL_KEY_NAMES.join("|"),
    )
}

/// Is `key` (a run of key bytes) one that [`key_pattern`] matches whole?
pub(super) fn is_key(key: &[u8]) -> bool {
    let start = key.iter().take_while(|&&b| b == b'_').count();
    let key = &key[start..];
    let Some(&first) = key.first() else {
        return false;
    };
    // Every camelCase name starts with an upper-case letter, which the key
    // must then hold (most keys are lower case: no name compared).
    let camel = || {
        first.is_ascii_lowercase()
            && key.iter().any(u8::is_ascii_uppercase)
            && key.iter().all(u8::is_ascii_alphanumeric)
            && CAMEL_KEY_NAMES
                .iter()
                .any(|n| key.len() > n.len() && key.ends_with(n.as_bytes()))
    };
    // Only the names that end with the key's last byte can end it.
    let last = usize::from(key[key.len() - 1].to_ascii_lowercase() & 0x7f);
    let any = |names: &[&[&str]], mut set: u32, nonempty: bool| {
        while set != 0 {
            let name = names[set.trailing_zeros() as usize];
            if strip_name(key, name).is_some_and(|rest| is_prefix(rest, nonempty)) {
                return true;
            }
            set &= set - 1;
        }
        false
    };
    any(KEY_NAMES, KEY_NAMES_BY_LAST[last], false)
        || any(WEAK_NAMES, WEAK_NAMES_BY_LAST[last], true)
        || camel()
}

/// Per lower-case ASCII byte, the names (a bit per index into the list)
/// whose last byte it is.
const fn by_last_byte(names: &[&[&str]]) -> [u32; 128] {
    assert!(names.len() <= 32, "a bit per name");
    let mut table = [0u32; 128];
    let mut i = 0;
    while i < names.len() {
        let words = names[i];
        let word = words[words.len() - 1].as_bytes();
        let last = word[word.len() - 1].to_ascii_lowercase();
        table[(last & 0x7f) as usize] |= 1 << i;
        i += 1;
    }
    table
}

static KEY_NAMES_BY_LAST: [u32; 128] = by_last_byte(KEY_NAMES);
static WEAK_NAMES_BY_LAST: [u32; 128] = by_last_byte(WEAK_NAMES);

/// `key` without `name` at its end (ASCII case-insensitive; one `_` or `-`
/// may stand between its words).
fn strip_name<'k>(key: &'k [u8], name: &[&str]) -> Option<&'k [u8]> {
    let mut end = key.len();
    for (i, word) in name.iter().rev().enumerate() {
        if i > 0 && end > 0 && matches!(key[end - 1], b'_' | b'-') {
            end -= 1;
        }
        let from = end.checked_sub(word.len())?;
        if !key[from..end].eq_ignore_ascii_case(word.as_bytes()) {
            return None;
        }
        end = from;
    }
    Some(&key[..end])
}

/// `(?:[A-Za-z0-9]+[_.-])*` (`+` when `nonempty`): runs of letters and
/// digits, each closed by one separator.
fn is_prefix(rest: &[u8], nonempty: bool) -> bool {
    if rest.is_empty() {
        return !nonempty;
    }
    let mut run = 0;
    for &b in rest {
        if b.is_ascii_alphanumeric() {
            run += 1;
        } else if run > 0 && matches!(b, b'_' | b'.' | b'-') {
            run = 0;
        } else {
            return false;
        }
    }
    run == 0
}

/// The groups of an assignment (`(?P<lead>[/@])?key{Q}[ \t]*(?P<op>..)`,
/// blanks, then `VALUE` of `rules.rs`), as the rule's regex would capture
/// them.
pub(super) struct HandAssignment<'h> {
    hay: &'h str,
    /// Where the match ends.
    end: usize,
    lead: bool,
    key: Part<'h>,
    op: Part<'h>,
    /// The value's group (`dq`, `sq`, `edq` or `bare`) and its span.
    value: (&'static str, Part<'h>),
    next: Option<Part<'h>>,
    eol: Option<Part<'h>>,
}

/// Bytes a bare value cannot hold (besides Unicode white space); its first
/// byte cannot be `<`, `>`, `=` or `:` either.
const BARE_STOP: &[u8] = b"\"'`,;&|()[]{}\\";
const BARE_NOT_FIRST: &[u8] = b"<>=:";

/// Per byte: 1 when a bare value stops at it (ASCII white space and
/// [`BARE_STOP`]), 2 when it cannot start one ([`BARE_NOT_FIRST`]); a bare
/// value is read a byte at a time, on every assignment found.
static BARE: [u8; 256] = {
    let mut table = [0u8; 256];
    let mut i = 0;
    while i < BARE_STOP.len() {
        table[BARE_STOP[i] as usize] = 1;
        i += 1;
    }
    let mut i = 0;
    while i < BARE_NOT_FIRST.len() {
        table[BARE_NOT_FIRST[i] as usize] = 2;
        i += 1;
    }
    // `char::is_whitespace` in ASCII.
    let blanks = b" \t\n\x0b\x0c\r";
    let mut i = 0;
    while i < blanks.len() {
        table[blanks[i] as usize] = 1;
        i += 1;
    }
    table
};

impl<'h> HandAssignment<'h> {
    /// The assignment the rule's regex matches at the start of `hay`, if
    /// any. `hay` starts at a position the engine tries (see
    /// `engine::candidates`): a word start, or a `/` or `@` before one.
    pub(super) fn read(hay: &'h str) -> Option<HandAssignment<'h>> {
        let bytes = hay.as_bytes();
        let lead = matches!(bytes.first(), Some(b'/' | b'@'));
        let key_start = usize::from(lead);
        let key_end = key_start
            + bytes[key_start..]
                .iter()
                .take_while(|&&b| key_byte(b))
                .count();
        if !is_key(&bytes[key_start..key_end]) {
            return None;
        }
        let mut at = key_end;
        match bytes.get(at..) {
            Some([b'\\', b'"' | b'\'', ..]) => at += 2,
            Some([b'"' | b'\'', ..]) => at += 1,
            _ => {}
        }
        at = skip(bytes, at, b" \t");
        let op_len = match bytes.get(at..) {
            Some([b':', b'=', ..] | [b'=', b'>', ..]) => 2,
            Some([b'=' | b':', ..]) => 1,
            _ => return None,
        };
        let op = Part::new(hay, at, at + op_len);
        let from = skip(bytes, at + op_len, b" \t");
        let (value, after) = read_value(hay, from)?;
        // As in the regex, `next` and `eol` belong to a bare value only.
        let (next, eol) = if value.0 == "bare" {
            let next_end = match bytes.get(after) {
                Some(b'(' | b'[') => after + 1,
                _ => after,
            };
            let blanks_end = skip(bytes, next_end, b" \t\r");
            (
                (next_end > after).then(|| Part::new(hay, after, next_end)),
                matches!(bytes.get(blanks_end), None | Some(b'\n'))
                    .then(|| Part::new(hay, next_end, blanks_end)),
            )
        } else {
            (None, None)
        };
        let end = eol.or(next).map_or(after, |p| p.end());
        Some(HandAssignment {
            hay,
            end,
            lead,
            key: Part::new(hay, key_start, key_end),
            op,
            value,
            next,
            eol,
        })
    }

    /// Where the match ends, in `hay`.
    pub(super) fn end(&self) -> usize {
        self.end
    }
}

/// Is `b` one of the few bytes of `set`? Compared in line: `contains`
/// calls `memchr`, which costs more than the comparison on sets this small.
fn in_set(set: &[u8], b: u8) -> bool {
    set.iter().fold(false, |found, &s| found | (s == b))
}

/// The first offset from `at` whose byte is not in `set`.
fn skip(bytes: &[u8], at: usize, set: &[u8]) -> usize {
    at + bytes[at.min(bytes.len())..]
        .iter()
        .take_while(|&&b| in_set(set, b))
        .count()
}

/// One value form at `from`: its group name and span, and where it ends
/// (after a closing quote).
fn read_value(hay: &str, from: usize) -> Option<((&'static str, Part<'_>), usize)> {
    let bytes = hay.as_bytes();
    // `"..."` / `'...'`: any byte but the quote, `\`, CR and LF, or `\` and
    // one character other than LF; ends at the first unescaped quote.
    let quoted = |quote: u8, name: &'static str| {
        let mut i = from + 1;
        loop {
            match bytes.get(i)? {
                &b if b == quote => return Some(((name, Part::new(hay, from + 1, i)), i + 1)),
                b'\\' => match bytes.get(i + 1)? {
                    b'\n' => return None,
                    _ => i += 2,
                },
                b'\r' | b'\n' => return None,
                _ => i += 1,
            }
        }
    };
    match bytes.get(from)? {
        b'"' => quoted(b'"', "dq"),
        b'\'' => quoted(b'\'', "sq"),
        b'\\' => {
            // `\"...\"`: no quote, backslash or line end inside.
            if bytes.get(from + 1) != Some(&b'"') {
                return None;
            }
            let inner = skip_until(bytes, from + 2, b"\"\\\r\n");
            (bytes.get(inner..inner + 2) == Some(b"\\\""))
                .then(|| (("edq", Part::new(hay, from + 2, inner)), inner + 2))
        }
        _ => {
            let mut end = from;
            while let Some(&b) = bytes.get(end) {
                if b.is_ascii() {
                    let class = BARE[usize::from(b)];
                    if class == 1 || (class == 2 && end == from) {
                        break;
                    }
                    end += 1;
                } else {
                    // Outside ASCII only Unicode white space stops it.
                    let c = hay[end..].chars().next().expect("a char starts here");
                    if c.is_whitespace() {
                        break;
                    }
                    end += c.len_utf8();
                }
            }
            (end > from).then(|| (("bare", Part::new(hay, from, end)), end))
        }
    }
}

/// The first offset from `at` whose byte is in `set` (or the end).
fn skip_until(bytes: &[u8], at: usize, set: &[u8]) -> usize {
    at + bytes[at.min(bytes.len())..]
        .iter()
        .take_while(|&&b| !in_set(set, b))
        .count()
}

impl<'h> Groups<'h> for HandAssignment<'h> {
    fn name(&self, name: &str) -> Option<Part<'h>> {
        match name {
            "lead" => self.lead.then(|| Part::new(self.hay, 0, 1)),
            "key" => Some(self.key),
            "op" => Some(self.op),
            "next" => self.next,
            "eol" => self.eol,
            _ => (self.value.0 == name).then_some(self.value.1),
        }
    }

    fn whole(&self) -> Part<'h> {
        Part::new(self.hay, 0, self.end)
    }
}

#[cfg(test)]
mod tests {
    /// `is_key` looks for a camelCase name only in a key holding an
    /// upper-case letter: every such name starts with one.
    #[test]
    fn camel_names_start_upper_case() {
        for name in super::CAMEL_KEY_NAMES {
            assert!(name.as_bytes()[0].is_ascii_uppercase(), "{name}");
        }
        assert!(super::is_key(b"dbPassword") && super::is_key(b"accessToken"));
        assert!(!super::is_key(b"dbpasswordx") && !super::is_key(b"tokenizer"));
    }
}
