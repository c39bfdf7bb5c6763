//! A redaction rule and the builders the rule table is written with: its
//! triggers (the literals that must occur), where a match starts, its
//! pattern, its checks.

use std::sync::OnceLock;

use regex::Regex;

use super::kinds::Kind;
use super::locate::Locate;
use super::prechecks::token_follows;

/// What a trigger requires right after its literal.
#[derive(Clone, Copy)]
pub(super) enum Then {
    /// Nothing.
    Anything,
    /// An optional, possibly escaped, quote, blanks, then `:` or `=`: the end
    /// of a key before its operator (`password=`, `"token": `, `\"pwd\" :`).
    Operator,
    /// A space or a tab: a flag name or an auth scheme before its value.
    Blank,
}

/// A literal that must occur in a match of its rule. Compared ASCII
/// case-insensitively, which can only widen it.
#[derive(Clone, Copy)]
pub(super) struct Trigger {
    /// Lower-case ASCII, two bytes or more.
    pub lit: &'static str,
    /// The byte before the literal must not be a word byte (the pattern has
    /// an ASCII word boundary there).
    pub word_start: bool,
    /// What the pattern requires right after the literal.
    pub then: Then,
}

/// Where a match starts relative to its trigger.
#[derive(Clone, Copy)]
pub(super) enum Start {
    /// At the trigger: the pattern is matched anchored there, so a miss
    /// costs a few bytes.
    AtTrigger,
    /// Before it, at the start of a run of `class` bytes ending at the
    /// trigger (at most `max` bytes: a key prefix, a URL scheme), one `lead`
    /// byte earlier when there is one, or at a word start inside that run.
    /// Matched anchored at each such position in turn.
    Back {
        class: fn(u8) -> bool,
        max: usize,
        lead: &'static [u8],
    },
    /// Anywhere from this many bytes before it: an unanchored search in a
    /// window, for rules with a rare trigger only.
    Before(usize),
}

pub(super) fn scheme_byte(b: u8) -> bool {
    b.is_ascii_alphanumeric() || matches!(b, b'+' | b'.' | b'-')
}

pub(super) fn header_byte(b: u8) -> bool {
    b.is_ascii_alphabetic() || b == b'-'
}

pub(super) fn hex_byte(b: u8) -> bool {
    b.is_ascii_digit() || (b'a'..=b'f').contains(&b)
}

pub(super) fn alnum_byte(b: u8) -> bool {
    b.is_ascii_alphanumeric()
}

pub(super) fn digit_byte(b: u8) -> bool {
    b.is_ascii_digit()
}

pub(super) fn azure_byte(b: u8) -> bool {
    b.is_ascii_alphanumeric() || matches!(b, b'_' | b'~' | b'.')
}

pub(super) fn back(class: fn(u8) -> bool, max: usize) -> Start {
    Start::Back {
        class,
        max,
        lead: &[],
    }
}

pub(super) struct Rule {
    pub family: &'static str,
    pub pattern: String,
    pub kind: Kind,
    pub triggers: Vec<Trigger>,
    pub start: Start,
    /// Bytes after the trigger the window first spans; grown when a match
    /// reaches the window's end.
    pub reach: usize,
    /// A cheap test of the bytes around the trigger that must pass before
    /// the regex runs (for rules whose triggers are common words); the scan
    /// runs it, so a trigger it turns away is never reported.
    pub precheck: Option<fn(&[u8], usize) -> bool>,
    /// The `key = value` rule: read by hand (`assignment.rs`), never by its
    /// regex, which costs several times more.
    pub by_hand: bool,
    /// Reads the groups of a match by hand (`locate.rs`) instead of the
    /// regex's capture engine.
    pub locate: Option<Locate>,
    /// Compiled on first use.
    pub re: OnceLock<Regex>,
}

impl Rule {
    pub fn regex(&self) -> &Regex {
        self.re.get_or_init(|| {
            let source = match self.start {
                Start::AtTrigger | Start::Back { .. } => format!("^(?:{})", self.pattern),
                Start::Before(_) => self.pattern.clone(),
            };
            Regex::new(&source).expect("redaction pattern is valid")
        })
    }

    /// Has the regex been compiled (tests: a clean text compiles nothing)?
    #[cfg(test)]
    pub fn is_compiled(&self) -> bool {
        self.re.get().is_some()
    }
}

/// How every name above ends (ASCII case-insensitively): the triggers of the
/// assignment rules.
pub(super) const KEY_ENDINGS: &[&str] = &[
    "password",
    "passwd",
    "passphrase",
    "pwd",
    "secret",
    "token",
    "key",
    "signature",
    "credential",
    "credentials",
];

/// Value forms shared by assignments: double-quoted (with escapes),
/// single-quoted, JSON-escaped quotes (\"...\") and bare. A bare value
/// cannot start with a marker (`[`), a quote, an operator or a bracket;
/// `next` records a call/index right after it (`get_token(`, `env["X"]`)
/// and `eol` whether the value ends its line (YAML style).
pub(super) const VALUE: &str = concat!(
    r#"(?:"(?P<dq>(?:[^"\\\r\n]|\\.)*)""#,
    r#"|'(?P<sq>(?:[^'\\\r\n]|\\.)*)'"#,
    r#"|\\"(?P<edq>[^"\\\r\n]*)\\""#,
    r#"|(?P<bare>[^\s"'`,;&|()\[\]{}<>=:\\][^\s"'`,;&|()\[\]{}\\]*)"#,
    r"(?P<next>[(\[])?(?P<eol>[ \t\r]*(?m:$))?)",
);

/// The value of a `--flag`: like [`VALUE`], but a bare value cannot start
/// with `-` (that would be the next flag).
pub(super) const FLAG_VALUE: &str = concat!(
    r#"(?:"(?P<dq>(?:[^"\\\r\n]|\\.)*)""#,
    r#"|'(?P<sq>(?:[^'\\\r\n]|\\.)*)'"#,
    r#"|(?P<bare>[^\s"'`,;&|()\[\]{}<>=:\\-][^\s"'`,;&|()\[\]{}\\]*))"#,
    // What follows: another flag, a pipe, the line's end or the quote or
    // bracket closing a quoted command (a command, echoed or not).
    r#"(?P<fend>[ \t]*(?:-|[|;&]|["'`)\]]|(?m:$)))?"#,
);

/// Optional quote between a key and its operator, possibly JSON-escaped.
pub(super) const Q: &str = r#"(?:\\?["'])?"#;

/// ASCII word boundary.
pub(super) const B: &str = r"(?-u:\b)";

pub(super) fn triggers(lits: &[&'static str], word_start: bool, then: Then) -> Vec<Trigger> {
    lits.iter()
        .map(|&lit| Trigger {
            lit,
            word_start,
            then,
        })
        .collect()
}

pub(super) fn rule(
    family: &'static str,
    pattern: String,
    kind: Kind,
    triggers: Vec<Trigger>,
    start: Start,
) -> Rule {
    Rule {
        family,
        pattern,
        kind,
        triggers,
        start,
        reach: 512,
        precheck: None,
        by_hand: false,
        locate: None,
        re: OnceLock::new(),
    }
}

/// A token format anchored at one of its prefixes (which start a word).
pub(super) fn tok(family: &'static str, prefixes: &[&'static str], pattern: &str) -> Rule {
    Rule {
        precheck: Some(token_follows),
        ..rule(
            family,
            pattern.to_string(),
            Kind::Token,
            triggers(prefixes, true, Then::Anything),
            Start::AtTrigger,
        )
    }
}

/// A token format whose candidates must also pass `check`.
pub(super) fn checked(
    family: &'static str,
    prefixes: &[&'static str],
    pattern: &str,
    check: fn(&str) -> bool,
) -> Rule {
    Rule {
        kind: Kind::Checked(check),
        ..tok(family, prefixes, pattern)
    }
}

/// A token format whose literal sits inside it, after a run of bytes of
/// `class` (see [`Start::Back`]).
pub(super) fn inner(
    family: &'static str,
    lits: &[&'static str],
    class: fn(u8) -> bool,
    max: usize,
    pattern: &str,
) -> Rule {
    rule(
        family,
        pattern.to_string(),
        Kind::Token,
        triggers(lits, false, Then::Anything),
        back(class, max),
    )
}
