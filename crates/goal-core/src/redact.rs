//! Redaction of secrets before anything is persisted.
//!
//! Everything the goal system writes to disk (goal records, hook payloads,
//! previews of prompts and tool output) passes through [`redact`] or
//! [`redact_value`] first. The rules live in one table (see `rule_specs`),
//! applied in order: exact token formats first (they carry the most precise
//! family name), then headers, URL parameters and finally generic
//! `key = value` assignments.
//!
//! Design constraints:
//! - Linear time. Only the `regex` crate is used (no backtracking, no
//!   look-around), every pattern uses explicit ASCII classes and ASCII word
//!   boundaries, and the trigger scan below is a single pass.
//! - Cheap first call. The native hook is one short-lived process per tool
//!   call, so nothing is compiled up front: every rule lists literal
//!   triggers that are necessary for it to match (`ghp_`, `eyj`, `password`
//!   followed by `=` or `:`, ...), one byte scan finds the rules whose
//!   triggers occur, and only their regexes are compiled (once per process)
//!   and run. The common "no secret" case compiles nothing.
//! - Idempotent. Markers look like `[REDACTED:family]`; no pattern can match
//!   inside a marker (value classes exclude `[`, and a quoted value that is
//!   exactly a marker is left alone), so `redact(redact(x)) == redact(x)`.
//! - Readable output. Only the secret part of a match is replaced: the key of
//!   an assignment, an `Authorization: Bearer ` prefix, the user and host of
//!   a URL all stay in place.

use std::borrow::Cow;
use std::sync::OnceLock;

use regex::{Captures, Match, Regex};
use serde_json::Value;
use sha2::{Digest, Sha256};

/// Marker that replaces a whole value whose JSON key names a secret (see
/// [`redact_value`]). Pattern-based redactions use the family form
/// `[REDACTED:family]`; both start with `[REDACTED`, which no rule matches,
/// so redaction is idempotent.
pub const REDACTED: &str = "[REDACTED]";

/// Common start of [`REDACTED`] and of every family marker.
const MARKER_PREFIX: &str = "[REDACTED";

/// Upper bound of whole-text passes in [`redact`]. A second pass is a no-op
/// by design; the loop only guarantees a fixed point should a combination of
/// rules ever expose something new.
const MAX_PASSES: usize = 3;

/// Names a secret may be stored under, matched case-insensitively after any
/// prefix such as `DB_`, `GITHUB_`, `client_`, `x-`.
const KEY_NAMES: &str = r"password|passwd|passphrase|pwd|secret|token|api[_-]?key|access[_-]?key|secret[_-]?key|private[_-]?key";

/// The same names as the tail of a camelCase identifier (`accessToken`,
/// `dbPassword`, `apiKey`).
const CAMEL_KEY_NAMES: &str = r"Password|Passwd|Passphrase|Pwd|Secret|Token|Api[Kk]ey|Access[Kk]ey|Secret[Kk]ey|Private[Kk]ey";

/// How every name of [`KEY_NAMES`], [`CAMEL_KEY_NAMES`] and of the secret
/// flags ends (ASCII case-insensitively): the triggers of those rules.
const KEY_ENDINGS: &[&str] = &[
    "password",
    "passwd",
    "passphrase",
    "pwd",
    "secret",
    "token",
    "key",
];

/// What to do with a match of a rule.
#[derive(Clone, Copy)]
enum Kind {
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

/// A literal that must occur in a text for a rule to match it. Compared
/// ASCII case-insensitively, which can only widen it: the patterns are
/// ASCII and their case-insensitive parts are `(?i-u:...)`.
#[derive(Clone, Copy)]
struct Trigger {
    /// Lower-case ASCII of two bytes or more, or one byte in a group of
    /// one-byte literals without conditions (see `Rule::byte_groups`).
    lit: &'static str,
    /// The pattern has an ASCII word boundary right before the literal, whose
    /// first byte is a word byte: the byte before it must not be one.
    word_start: bool,
    /// What the pattern requires right after the literal (at most what it
    /// requires, never more).
    then: Then,
}

/// What a trigger requires right after its literal.
#[derive(Clone, Copy)]
enum Then {
    /// Nothing.
    Anything,
    /// An optional, possibly escaped, quote, blanks, then `:` or `=`: the end
    /// of a key before its operator (`password=`, `"token": `, `\"pwd\" :`).
    Operator,
    /// A space or a tab: a flag name or an auth scheme before its value.
    Blank,
}

impl Trigger {
    /// Does the trigger occur at byte offset `at` of `text`?
    fn occurs_at(&self, text: &[u8], at: usize) -> bool {
        let lit = self.lit.as_bytes();
        let end = at + lit.len();
        match text.get(at..end) {
            Some(window) if window.eq_ignore_ascii_case(lit) => {}
            _ => return false,
        }
        if self.word_start && at > 0 && is_word_byte(text[at - 1]) {
            return false;
        }
        let rest = &text[end..];
        match self.then {
            Then::Anything => true,
            Then::Blank => matches!(rest.first(), Some(b' ' | b'\t')),
            Then::Operator => {
                // `(?:\\?["'])?[ \t]*` then the first byte of `:`, `=`, `:=`
                // or `=>`. Each blank run follows at most a few literal
                // occurrences, so the scan stays linear.
                let quote = match rest {
                    [b'\\', b'"' | b'\'', ..] => 2,
                    [b'"' | b'\'', ..] => 1,
                    _ => 0,
                };
                let blanks = rest[quote..]
                    .iter()
                    .take_while(|b| matches!(b, b' ' | b'\t'))
                    .count();
                matches!(rest.get(quote + blanks), Some(b':' | b'='))
            }
        }
    }
}

/// `[A-Za-z0-9_]`, the bytes of `(?-u:\w)`.
fn is_word_byte(b: u8) -> bool {
    b.is_ascii_alphanumeric() || b == b'_'
}

fn triggers(lits: &[&'static str], word_start: bool, then: Then) -> Vec<Trigger> {
    lits.iter()
        .map(|&lit| Trigger {
            lit,
            word_start,
            then,
        })
        .collect()
}

/// Literals anywhere.
fn lits(lits: &[&'static str]) -> Vec<Trigger> {
    triggers(lits, false, Then::Anything)
}

/// Literals at the start of a word (the pattern has `\b` before them).
fn words(lits: &[&'static str]) -> Vec<Trigger> {
    triggers(lits, true, Then::Anything)
}

/// Key endings followed by an assignment operator.
fn keys(lits: &[&'static str]) -> Vec<Trigger> {
    triggers(lits, false, Then::Operator)
}

/// Literals followed by a blank.
fn blanks(lits: &[&'static str], word_start: bool) -> Vec<Trigger> {
    triggers(lits, word_start, Then::Blank)
}

/// One row of the rule table.
struct Spec {
    family: &'static str,
    /// Built when the rule is first needed.
    pattern: fn() -> String,
    kind: Kind,
    /// Triggers in conjunctive form: the pattern can only match a text that
    /// contains a trigger of every group. Checked by a test against every
    /// match of the fixtures.
    triggers: Vec<Vec<Trigger>>,
}

struct Rule {
    family: &'static str,
    pattern: fn() -> String,
    kind: Kind,
    /// One bit per trigger group of literals: all of them must be seen.
    groups: u8,
    /// Groups of one-byte literals (`@`, `?&#;`), frequent in ordinary text:
    /// not scanned for, but checked once the other groups are all seen.
    byte_groups: Vec<Vec<u8>>,
    /// Compiled on first use.
    re: OnceLock<Regex>,
}

impl Rule {
    fn regex(&self) -> &Regex {
        self.re
            .get_or_init(|| Regex::new(&(self.pattern)()).expect("redaction pattern is valid"))
    }
}

/// A trigger of one group of one rule.
struct Entry {
    trigger: Trigger,
    rule: usize,
    /// Bit of the group in `Rule::groups`.
    group: u8,
}

/// Rules are tracked in a `u32` bit set.
const MAX_RULES: usize = 32;

struct Engine {
    rules: Vec<Rule>,
    /// Bit set of all rules.
    all: u32,
    /// Triggers by the first byte of their literal (lower case).
    by_first_byte: [Vec<Entry>; 256],
    /// Byte pairs (in any ASCII case) a trigger can start with, one bit each,
    /// so that most bytes of a text cost one lookup...
    starts: Box<[u64; 1024]>,
    /// ... and its second and third bytes (any third byte for a trigger of
    /// two bytes).
    continues: Box<[u64; 1024]>,
}

/// Bit of a byte pair in `Engine::starts` or `Engine::continues`: word
/// index and mask.
fn pair_bit(first: u8, second: u8) -> (usize, u64) {
    let pair = usize::from(first) << 8 | usize::from(second);
    (pair >> 6, 1 << (pair & 63))
}

impl Engine {
    fn new(specs: Vec<Spec>) -> Engine {
        assert!(
            (1..=MAX_RULES).contains(&specs.len()),
            "1 to {MAX_RULES} redaction rules"
        );
        let mut by_first_byte: [Vec<Entry>; 256] = std::array::from_fn(|_| Vec::new());
        let mut starts = Box::new([0u64; 1024]);
        let mut continues = Box::new([0u64; 1024]);
        let add_pair = |pairs: &mut [u64; 1024], first: u8, second: u8| {
            for a in [first, first.to_ascii_uppercase()] {
                for b in [second, second.to_ascii_uppercase()] {
                    let (word, mask) = pair_bit(a, b);
                    pairs[word] |= mask;
                }
            }
        };
        let mut rules = Vec::with_capacity(specs.len());
        for (rule, spec) in specs.into_iter().enumerate() {
            let (byte_groups, groups): (Vec<_>, Vec<_>) =
                spec.triggers.into_iter().partition(|any| {
                    any.iter().all(|t| {
                        t.lit.len() == 1 && !t.word_start && matches!(t.then, Then::Anything)
                    })
                });
            assert!(
                (1..=8).contains(&groups.len()),
                "{}: 1 to 8 trigger groups of longer literals",
                spec.family
            );
            let byte_groups: Vec<Vec<u8>> = byte_groups
                .iter()
                .map(|any| any.iter().map(|t| t.lit.as_bytes()[0]).collect())
                .collect();
            for (group, any) in groups.iter().enumerate() {
                assert!(!any.is_empty(), "{}: empty trigger group", spec.family);
                for &trigger in any {
                    let lit = trigger.lit.as_bytes();
                    assert!(
                        lit.len() >= 2
                            && lit.iter().all(|b| b.is_ascii() && !b.is_ascii_uppercase()),
                        "{}: a trigger is lower-case ASCII; one-byte ones form their own groups",
                        spec.family
                    );
                    assert!(
                        !trigger.word_start || is_word_byte(lit[0]),
                        "{}: a word trigger starts with a word byte",
                        spec.family
                    );
                    add_pair(&mut starts, lit[0], lit[1]);
                    match lit.get(2) {
                        Some(&third) => add_pair(&mut continues, lit[1], third),
                        None => (0..=u8::MAX).for_each(|any| add_pair(&mut continues, lit[1], any)),
                    }
                    by_first_byte[usize::from(lit[0])].push(Entry {
                        trigger,
                        rule,
                        group: 1 << group,
                    });
                }
            }
            rules.push(Rule {
                family: spec.family,
                pattern: spec.pattern,
                kind: spec.kind,
                groups: u8::MAX >> (8 - groups.len()),
                byte_groups,
                re: OnceLock::new(),
            });
        }
        Engine {
            all: u32::MAX >> (32 - rules.len()),
            rules,
            by_first_byte,
            starts,
            continues,
        }
    }

    /// Bit set of the rules with a trigger of every group in `text`: a
    /// superset of the rules whose pattern matches it. One pass, plus a
    /// `memchr` per byte group of a rule whose other groups are all seen.
    fn triggered(&self, text: &str) -> u32 {
        let bytes = text.as_bytes();
        let mut scan = Scan {
            seen: [0; MAX_RULES],
            ready: 0,
        };
        let has = |pairs: &[u64; 1024], first: u8, second: u8| {
            let (word, mask) = pair_bit(first, second);
            pairs[word] & mask != 0
        };
        // Every trigger has two bytes or more (the text's end counts as a 0
        // byte, which no trigger has).
        for (at, pair) in bytes.windows(2).enumerate() {
            if has(&self.starts, pair[0], pair[1])
                && has(
                    &self.continues,
                    pair[1],
                    bytes.get(at + 2).map_or(0, |&b| b),
                )
                && self.record(bytes, at, &mut scan)
            {
                break;
            }
        }
        let mut ready = scan.ready;
        for (index, rule) in self.rules.iter().enumerate() {
            let bit = 1u32 << index;
            if ready & bit != 0
                && !rule
                    .byte_groups
                    .iter()
                    .all(|any| any.iter().any(|b| bytes.contains(b)))
            {
                ready &= !bit;
            }
        }
        ready
    }

    /// Records the triggers at byte offset `at`; true once every rule has
    /// all its groups seen.
    fn record(&self, bytes: &[u8], at: usize, scan: &mut Scan) -> bool {
        let second = bytes.get(at + 1).map_or(0, u8::to_ascii_lowercase);
        for entry in &self.by_first_byte[usize::from(bytes[at].to_ascii_lowercase())] {
            let seen = &mut scan.seen[entry.rule];
            let lit = entry.trigger.lit.as_bytes();
            if *seen & entry.group != 0 || lit.get(1).is_some_and(|&c| c != second) {
                continue;
            }
            if entry.trigger.occurs_at(bytes, at) {
                *seen |= entry.group;
                if *seen == self.rules[entry.rule].groups {
                    scan.ready |= 1 << entry.rule;
                }
            }
        }
        scan.ready == self.all
    }
}

/// State of `Engine::triggered`.
struct Scan {
    /// Trigger groups seen, per rule.
    seen: [u8; MAX_RULES],
    /// Rules with every group of literals seen.
    ready: u32,
}

/// Value forms shared by assignments: double-quoted (with escapes),
/// single-quoted, JSON-escaped quotes (\"...\") and bare. A bare value
/// cannot start with a marker (`[`), a quote, an operator or a bracket;
/// `next` records a call/index right after it (`get_token(`, `env["X"]`)
/// and `eol` whether the value ends its line (YAML style).
const VALUE: &str = concat!(
    r#"(?:"(?P<dq>(?:[^"\\\r\n]|\\.)*)""#,
    r#"|'(?P<sq>(?:[^'\\\r\n]|\\.)*)'"#,
    r#"|\\"(?P<edq>[^"\\\r\n]*)\\""#,
    r#"|(?P<bare>[^\s"'`,;&|()\[\]{}<>=:\\][^\s"'`,;&|()\[\]{}\\]*)"#,
    r"(?P<next>[(\[])?(?P<eol>[ \t\r]*(?m:$))?)",
);

/// The value of a `--flag`: like [`VALUE`], but a bare value cannot start
/// with `-` (that would be the next flag).
const FLAG_VALUE: &str = concat!(
    r#"(?:"(?P<dq>(?:[^"\\\r\n]|\\.)*)""#,
    r#"|'(?P<sq>(?:[^'\\\r\n]|\\.)*)'"#,
    r#"|(?P<bare>[^\s"'`,;&|()\[\]{}<>=:\\-][^\s"'`,;&|()\[\]{}\\]*))"#,
);

/// Optional quote between a key and its operator, possibly JSON-escaped.
const Q: &str = r#"(?:\\?["'])?"#;

/// ASCII word boundary.
const B: &str = r"(?-u:\b)";

/// The rule table, in application order.
fn rule_specs() -> Vec<Spec> {
    let spec = |family: &'static str,
                pattern: fn() -> String,
                kind: Kind,
                triggers: Vec<Vec<Trigger>>| Spec {
        family,
        pattern,
        kind,
        triggers,
    };
    // A token format: one group of literals starting a word.
    let t = |family: &'static str, pattern: fn() -> String, starts: &[&'static str]| {
        spec(family, pattern, Kind::Token, vec![words(starts)])
    };
    let c = |family: &'static str,
             pattern: fn() -> String,
             check: fn(&str) -> bool,
             starts: &[&'static str]| {
        spec(family, pattern, Kind::Checked(check), vec![words(starts)])
    };

    vec![
        // PEM private keys, raw or with JSON-escaped newlines. A block without
        // its END line runs to the end of the text, provided a body follows the
        // header (so code that merely mentions the header is left alone).
        spec(
            "private-key",
            || {
                concat!(
                    r"-----BEGIN[ A-Z0-9]*PRIVATE KEY(?: BLOCK)?-----",
                    r"(?:(?s:.*?)-----END[ A-Z0-9]*PRIVATE KEY(?: BLOCK)?-----",
                    r"|[ \t]*(?:\r?\n|\\r\\n|\\n)[ \t]*[A-Za-z0-9+/:-](?s:.*)\z)",
                )
                .to_string()
            },
            Kind::Token,
            vec![lits(&["-----begin"]), lits(&["private key"])],
        ),
        // scheme://user:password@host -- only the password goes.
        spec(
            "url-credentials",
            || {
                format!(
                    r#"{B}[A-Za-z][A-Za-z0-9+.-]*://[^\s/?#@:\[\]"'<>]*:(?P<s>[^\s/?#@\[\]"'<>\\]+)@"#
                )
            },
            Kind::Checked(not_reference),
            vec![lits(&["://"]), lits(&["@"])],
        ),
        t(
            "slack-webhook",
            || {
                format!(
                    r"{B}hooks\.slack\.com/(?:services|workflows|triggers)/(?P<s>[A-Za-z0-9_/-]+)"
                )
            },
            &["hooks.slack.com/"],
        ),
        t(
            "jwt",
            || format!(r"{B}eyJ[A-Za-z0-9_-]{{5,}}\.[A-Za-z0-9_-]{{4,}}\.[A-Za-z0-9_-]*"),
            &["eyj"],
        ),
        t(
            "aws-access-key-id",
            || format!(r"{B}(?:AKIA|ASIA)[A-Z2-7]{{16}}{B}"),
            &["akia", "asia"],
        ),
        spec(
            "aws-secret-key",
            || {
                format!(
                    r"{B}(?i-u:aws_?secret_?(?:access_?)?key){Q}[ \t]*(?::=|=>|=|:)[ \t]*{Q}(?P<s>[A-Za-z0-9/+=]{{30,}})"
                )
            },
            Kind::Token,
            vec![words(&["aws_secret", "awssecret"]), keys(&["key"])],
        ),
        t(
            "google-api-key",
            || format!(r"{B}AIza[0-9A-Za-z_-]{{35}}"),
            &["aiza"],
        ),
        t(
            "google-oauth-secret",
            || format!(r"{B}GOCSPX-[0-9A-Za-z_-]{{20,}}"),
            &["gocspx-"],
        ),
        t(
            "google-oauth-token",
            || format!(r"{B}ya29\.[0-9A-Za-z_-]{{20,}}"),
            &["ya29."],
        ),
        t(
            "github-token",
            || format!(r"{B}(?:gh[pousr]_[A-Za-z0-9]{{36,}}|github_pat_[A-Za-z0-9_]{{22,}})"),
            &["ghp_", "gho_", "ghu_", "ghs_", "ghr_", "github_pat_"],
        ),
        t(
            "gitlab-token",
            || format!(r"{B}gl(?:pat|dt|rt|ptt|ft|cbt|soat)-[A-Za-z0-9_-]{{20,}}"),
            &[
                "glpat-", "gldt-", "glrt-", "glptt-", "glft-", "glcbt-", "glsoat-",
            ],
        ),
        t(
            "slack-token",
            || format!(r"{B}(?:xox[abposr]-[A-Za-z0-9-]{{10,}}|xapp-[0-9]+-[A-Za-z0-9-]{{10,}})"),
            &[
                "xoxa-", "xoxb-", "xoxp-", "xoxo-", "xoxs-", "xoxr-", "xapp-",
            ],
        ),
        t(
            "stripe-key",
            || {
                format!(
                    r"{B}(?:(?:sk|rk|pk)_(?:live|test)_[A-Za-z0-9]{{10,}}|whsec_[A-Za-z0-9]{{20,}})"
                )
            },
            &[
                "sk_live_", "sk_test_", "rk_live_", "rk_test_", "pk_live_", "pk_test_", "whsec_",
            ],
        ),
        // Before openai: both start with `sk-`.
        t(
            "anthropic-key",
            || format!(r"{B}sk-ant-[A-Za-z0-9_-]{{20,}}"),
            &["sk-ant-"],
        ),
        // `sk-` also starts kebab-case words; real keys mix cases and digits.
        c(
            "openai-key",
            || format!(r"{B}sk-(?:proj-|svcacct-|admin-)?[A-Za-z0-9_-]{{20,}}"),
            mixed_case_and_digit,
            &["sk-"],
        ),
        t(
            "npm-token",
            || format!(r"{B}npm_[A-Za-z0-9]{{36,}}"),
            &["npm_"],
        ),
        t(
            "pypi-token",
            || format!(r"{B}pypi-Ag[A-Za-z0-9_-]{{50,}}"),
            &["pypi-ag"],
        ),
        c(
            "huggingface-token",
            || format!(r"{B}hf_[A-Za-z0-9]{{34,}}"),
            mixed_case,
            &["hf_"],
        ),
        spec(
            "authorization",
            || {
                format!(
                    r#"{B}(?i-u:(?:proxy-)?authorization){Q}[ \t]*[:=][ \t]*{Q}(?P<scheme>(?i-u:bearer|basic|token|bot|digest|negotiate|ntlm|apikey)[ \t]+)?(?P<s>[^\s"'`,;\\()\[\]{{}}<>]+)"#
                )
            },
            Kind::Authorization,
            vec![keys(&["authorization"])],
        ),
        spec(
            "bearer-token",
            || format!(r"{B}(?i-u:bearer)[ \t]+(?P<s>[A-Za-z0-9._~+/-]{{16,}}=*)"),
            Kind::Checked(bearer_like),
            vec![blanks(&["bearer"], true)],
        ),
        spec(
            "cookie",
            || format!(r#"{B}(?i-u:(?:set-)?cookie){Q}[ \t]*:[ \t]*{Q}(?P<s>[^\r\n"'\\]+)"#),
            Kind::Cookie,
            vec![keys(&["cookie"])],
        ),
        // Query/fragment parameters with long values.
        spec(
            "url-param",
            || {
                r#"[?&#;](?i-u:access_token|refresh_token|id_token|auth_token|token|api_key|apikey|key|sig|signature|secret|client_secret|password|x-amz-signature|x-amz-credential|x-amz-security-token|x-goog-signature|x-goog-credential)=(?P<s>[^\s&#"'<>\[\]\\]+)"#
                .to_string()
            },
            Kind::Checked(long_opaque),
            // The separator before the name, and how the names end.
            vec![
                lits(&["?", "&", "#", ";"]),
                lits(&[
                    "token=",
                    "key=",
                    "sig=",
                    "signature=",
                    "secret=",
                    "password=",
                    "credential=",
                ]),
            ],
        ),
        spec(
            "secret",
            || {
                format!(
                    r"--(?:[A-Za-z0-9]+-)*(?i-u:password|passwd|passphrase|pwd|secret|token|api[_-]?key|access[_-]?key|secret[_-]?key|private[_-]?key|client[_-]?secret|access[_-]?token|auth[_-]?token)[ \t]+{FLAG_VALUE}"
                )
            },
            Kind::Flag,
            vec![lits(&["--"]), blanks(KEY_ENDINGS, false)],
        ),
        spec(
            "secret",
            || {
                format!(
                    r"(?P<lead>[/@])?{B}(?P<key>_*(?:(?:[A-Za-z0-9]+[_.-])*(?i-u:{KEY_NAMES})|[a-z][a-zA-Z0-9]*(?:{CAMEL_KEY_NAMES}))){B}{Q}[ \t]*(?P<op>:=|=>|=|:)[ \t]*{VALUE}"
                )
            },
            Kind::Assignment,
            vec![keys(KEY_ENDINGS)],
        ),
    ]
}

fn engine() -> &'static Engine {
    static ENGINE: OnceLock<Engine> = OnceLock::new();
    ENGINE.get_or_init(|| Engine::new(rule_specs()))
}

/// Replaces secrets in `text` with `[REDACTED:family]` markers, keeping
/// non-secret context (`password=`, `Authorization: Bearer `, URL user and
/// host) so the text stays readable. Returns the input borrowed when nothing
/// was redacted; that common case costs a single byte scan for the rules'
/// triggers, without compiling or running any regex.
pub fn redact(text: &str) -> Cow<'_, str> {
    let engine = engine();
    let mut current: Option<String> = None;
    for _ in 0..MAX_PASSES {
        let src = current.as_deref().unwrap_or(text);
        match redact_pass(engine, src) {
            Some(next) => current = Some(next),
            None => break,
        }
    }
    match current {
        Some(s) if s != text => Cow::Owned(s),
        _ => Cow::Borrowed(text),
    }
}

/// One pass of every rule whose pattern occurs in `text`, in table order,
/// each on the output of the previous ones; `None` if nothing changed.
fn redact_pass(engine: &Engine, text: &str) -> Option<String> {
    let triggered = engine.triggered(text);
    if triggered == 0 {
        return None;
    }
    let mut out: Option<String> = None;
    for (index, rule) in engine.rules.iter().enumerate() {
        if triggered & (1 << index) == 0 {
            continue;
        }
        let re = rule.regex();
        let next = match out.as_deref() {
            None => apply_rule(rule, re, text),
            // A rule applies when its pattern occurs in the pass's input,
            // not when an earlier rule's marker exposed a match (the next
            // pass takes that).
            Some(src) if re.is_match(text) => apply_rule(rule, re, src),
            Some(_) => None,
        };
        if let Some(next) = next {
            out = Some(next);
        }
    }
    out
}

fn apply_rule(rule: &Rule, re: &Regex, text: &str) -> Option<String> {
    let mut changed = false;
    let replaced = re.replace_all(text, |caps: &Captures| {
        let whole = caps.get(0).expect("group 0 always participates");
        match secret_span(rule.kind, caps) {
            Some(secret) => {
                changed = true;
                let mut s = String::with_capacity(whole.len() + rule.family.len() + 12);
                s.push_str(&text[whole.start()..secret.start()]);
                s.push_str(MARKER_PREFIX);
                s.push(':');
                s.push_str(rule.family);
                s.push(']');
                s.push_str(&text[secret.end()..whole.end()]);
                s
            }
            None => whole.as_str().to_string(),
        }
    });
    if changed {
        Some(replaced.into_owned())
    } else {
        None
    }
}

/// The part of a match to replace, or `None` to leave the match as it is.
fn secret_span<'h>(kind: Kind, caps: &Captures<'h>) -> Option<Match<'h>> {
    let candidate = || caps.name("s").or_else(|| caps.get(0));
    match kind {
        Kind::Token => candidate().filter(|s| !is_marker(s.as_str())),
        Kind::Checked(check) => candidate().filter(|s| !is_marker(s.as_str()) && check(s.as_str())),
        Kind::Assignment => assignment_secret(caps, false),
        Kind::Flag => assignment_secret(caps, true),
        Kind::Authorization => {
            let s = caps.name("s")?;
            let v = s.as_str();
            if is_marker(v) || is_reference(v) {
                None
            } else if caps.name("scheme").is_some() || bare_is_secret(v, &HEADER_CONTEXT) {
                Some(s)
            } else {
                None
            }
        }
        Kind::Cookie => caps
            .name("s")
            .filter(|s| starts_with_cookie_pair(s.as_str())),
    }
}

/// An `Authorization:` value without a scheme is judged like code.
const HEADER_CONTEXT: BareContext<'static> = BareContext {
    key: "authorization",
    strict: false,
    after_colon: true,
    ends_line: false,
};

/// Heuristic for `key = value` style matches (documented here because it is
/// the only fuzzy rule):
/// - a key preceded by `/` or `@` is a package or path (`@scope/auth-token`);
/// - a value echoing its key (`token: token2`, `password: "password"`) is a
///   variable or a placeholder;
/// - quoted values are secrets unless empty, a marker, a template/variable
///   reference (`$X`, `${X}`, `{}`, `%s`, `<your-token>`), a version range or
///   prose (several words ending like a sentence);
/// - bare values followed by `(` or `[` are calls/indexing (`get_token()`,
///   `os.environ["X"]`); references, code (`&str`, `Option<String>`, `a::b`,
///   `x?.y`, `!flag`), paths, null/boolean literals and primitive type names
///   are kept;
/// - for SCREAMING_CASE keys (env files: `DB_PASSWORD=hunter`) anything else
///   is a secret, except a constant name (`TOKEN = DEFAULT_TOKEN`) or an
///   identifier after `:` in the middle of a line (`NAME: Type = ...`);
/// - otherwise (code, CLI flags, prose) identifiers and dotted paths
///   (`token`, `String`, `self.password`, `node.dot2`) are kept -- except a
///   lower-case word ending a `key: value` line (YAML: `password: hunter`);
///   short integers and versions are kept; any other value (letters mixed with
///   digits or symbols) is a secret.
fn assignment_secret<'h>(caps: &Captures<'h>, flag: bool) -> Option<Match<'h>> {
    if caps.name("lead").is_some() {
        return None;
    }
    let key = caps.name("key").map_or("", |k| k.as_str());
    let quoted = caps
        .name("dq")
        .or_else(|| caps.name("sq"))
        .or_else(|| caps.name("edq"));
    if let Some(q) = quoted {
        return quoted_is_secret(q.as_str(), key).then_some(q);
    }
    let bare = caps.name("bare")?;
    if caps.name("next").is_some() {
        return None;
    }
    let ctx = BareContext {
        key,
        strict: !flag && is_screaming(key),
        after_colon: caps.name("op").is_some_and(|o| o.as_str() == ":"),
        ends_line: caps.name("eol").is_some(),
    };
    bare_is_secret(bare.as_str(), &ctx).then_some(bare)
}

/// Where a bare value was found.
struct BareContext<'a> {
    /// The key it is assigned to (empty when unknown).
    key: &'a str,
    /// SCREAMING_CASE key: env-file style, where values are data, not code.
    strict: bool,
    /// The operator was a plain `:`.
    after_colon: bool,
    /// Nothing but blanks follows the value on its line.
    ends_line: bool,
}

fn quoted_is_secret(v: &str, key: &str) -> bool {
    !v.is_empty()
        && !is_marker(trim_line_ends(v))
        && !is_reference(v)
        && !is_version(v)
        && !echoes_key(v, key)
        && !is_prose(v)
}

fn bare_is_secret(v: &str, ctx: &BareContext) -> bool {
    if v.is_empty()
        || is_marker(v)
        || is_reference(v)
        || looks_like_code(v, ctx.strict)
        || is_path(v)
        || is_literal(v)
        || is_type_name(v)
        || echoes_key(v, ctx.key)
    {
        return false;
    }
    let identifier = is_identifier_path(v);
    if ctx.strict {
        return !(is_constant_name(v) || (identifier && ctx.after_colon && !ctx.ends_line));
    }
    if is_version(v) {
        return false;
    }
    if v.bytes().all(|b| b.is_ascii_digit()) {
        return v.len() > 6;
    }
    if identifier {
        return ctx.after_colon && ctx.ends_line && v.bytes().all(|b| b.is_ascii_lowercase());
    }
    true
}

/// Exactly one marker: `[REDACTED]` or `[REDACTED:family]`. Only whole
/// markers are left alone, so `"[REDACTED] hunter2"` is still redacted.
fn is_marker(v: &str) -> bool {
    v.strip_prefix(MARKER_PREFIX)
        .and_then(|rest| rest.strip_suffix(']'))
        .is_some_and(|family| {
            family.is_empty()
                || family
                    .strip_prefix(':')
                    .is_some_and(|f| f.bytes().all(|b| b.is_ascii_lowercase() || b == b'-'))
        })
}

/// Drops trailing whitespace and escaped line ends (`\n`, `\r`), as left
/// after a redacted PEM block inside a JSON string.
fn trim_line_ends(mut v: &str) -> &str {
    loop {
        let trimmed = v.trim_end().trim_end_matches("\\n").trim_end_matches("\\r");
        if trimmed.len() == v.len() {
            return v;
        }
        v = trimmed;
    }
}

fn not_reference(v: &str) -> bool {
    !is_reference(v)
}

/// Variables and templates stand for a secret without being one.
fn is_reference(v: &str) -> bool {
    v.starts_with('$')
        || v.starts_with('{')
        || (v.starts_with('<') && v.ends_with('>'))
        || (v.len() >= 3 && v.starts_with('%') && v.ends_with('%'))
        || matches!(v, "%s" | "%d" | "%r" | "%v" | "%q")
}

fn looks_like_code(v: &str, strict: bool) -> bool {
    if v.starts_with('&') || v.starts_with('*') {
        return true; // reference / dereference
    }
    if ["::", "->", "=>", "?.", "??"]
        .iter()
        .any(|op| v.contains(op))
    {
        return true;
    }
    let b = v.as_bytes();
    // Negation `!flag` (not in env files, where `!` may start a password).
    if !strict
        && b.len() > 1
        && b[0] == b'!'
        && (b[1].is_ascii_alphabetic() || b"_!(".contains(&b[1]))
    {
        return true;
    }
    // Generic type: `Option<String>`, `Vec<u8>`, `z.ZodOptional<...>`.
    let path_len = b
        .iter()
        .take_while(|c| c.is_ascii_alphanumeric() || b"_.$".contains(c))
        .count();
    path_len > 0 && b.get(path_len) == Some(&b'<')
}

/// `name`, `Type`, `self.token`, `node.dot2_token`: identifiers joined by
/// dots. Digits are allowed only in a dotted path with a digit-free segment,
/// so `hunter2` and `p4ss.w0rd` do not count.
fn is_identifier_path(v: &str) -> bool {
    let v = v.strip_suffix('.').unwrap_or(v);
    let mut segments = 0;
    let mut digit_free_segment = false;
    for seg in v.split('.') {
        let b = seg.as_bytes();
        let starts_ok = b
            .first()
            .is_some_and(|c| c.is_ascii_alphabetic() || b"_$".contains(c));
        if !starts_ok
            || !b
                .iter()
                .all(|c| c.is_ascii_alphanumeric() || b"_$".contains(c))
        {
            return false;
        }
        segments += 1;
        digit_free_segment |= !b.iter().any(u8::is_ascii_digit);
    }
    let has_digit = v.bytes().any(|c| c.is_ascii_digit());
    !has_digit || (segments > 1 && digit_free_segment)
}

/// `DEFAULT_TOKEN`, `DUMMY_API_KEY`: a constant referenced by name.
fn is_constant_name(v: &str) -> bool {
    v.contains('_')
        && v.as_bytes()[0].is_ascii_uppercase()
        && v.bytes()
            .all(|b| b.is_ascii_uppercase() || b.is_ascii_digit() || b == b'_')
}

/// `token: token2`, `previousToken: previousToken2`, `password: "password"`.
fn echoes_key(v: &str, key: &str) -> bool {
    let name = key.rsplit(['.', '-']).next().unwrap_or(key);
    let v = v.trim_end_matches(|c: char| c.is_ascii_digit());
    !name.is_empty() && v.eq_ignore_ascii_case(name)
}

/// Several words ending like a sentence: a description, not a credential.
fn is_prose(v: &str) -> bool {
    let spaces = v.bytes().filter(|b| *b == b' ').count();
    spaces >= 6 || (spaces >= 3 && v.trim_end().ends_with(['.', '!', '?', ':', '…']))
}

fn is_path(v: &str) -> bool {
    let b = v.as_bytes();
    v.starts_with('/')
        || v.starts_with("./")
        || v.starts_with("../")
        || v.starts_with("~/")
        || (b.len() >= 3 && b[0].is_ascii_alphabetic() && b[1] == b':' && b[2] == b'/')
}

/// null / boolean literals, including minified `!0` and `!1`.
fn is_literal(v: &str) -> bool {
    [
        "null",
        "none",
        "nil",
        "undefined",
        "true",
        "false",
        "~",
        "!0",
        "!1",
    ]
    .iter()
    .any(|k| v.eq_ignore_ascii_case(k))
}

fn is_type_name(v: &str) -> bool {
    const TYPES: &[&str] = &[
        "string", "str", "number", "bool", "boolean", "int", "integer", "float", "double", "any",
        "unknown", "object", "char", "byte", "bytes", "void", "never",
    ];
    if TYPES.contains(&v) {
        return true;
    }
    // Sized primitives: u8, i64, usize, f32, uint32, int64, float64.
    let rest = v
        .strip_prefix("uint")
        .or_else(|| v.strip_prefix("int"))
        .or_else(|| v.strip_prefix("float"))
        .or_else(|| v.strip_prefix(['u', 'i', 'f']));
    matches!(rest, Some("8" | "16" | "32" | "64" | "128" | "size"))
}

/// `1.2.3`, `^4.0.0`, `~1.2`, `>=2.0.0-beta.1`, `v1.0`.
fn is_version(v: &str) -> bool {
    let v = v.trim_start_matches(['^', '~', '>', '<', '=', 'v', ' ']);
    let core_end = v.find(['-', '+']).unwrap_or(v.len());
    let (core, suffix) = v.split_at(core_end);
    let parts: Vec<&str> = core.split('.').collect();
    let core_ok = (2..=4).contains(&parts.len())
        && parts[0].bytes().all(|b| b.is_ascii_digit())
        && !parts[0].is_empty()
        && parts[1..].iter().all(|p| {
            !p.is_empty() && (p.bytes().all(|b| b.is_ascii_digit()) || *p == "x" || *p == "*")
        });
    core_ok
        && suffix
            .bytes()
            .all(|b| b.is_ascii_alphanumeric() || b == b'.' || b == b'-' || b == b'+')
}

fn is_screaming(key: &str) -> bool {
    key.bytes().any(|b| b.is_ascii_uppercase()) && !key.bytes().any(|b| b.is_ascii_lowercase())
}

fn mixed_case_and_digit(v: &str) -> bool {
    mixed_case(v) && v.bytes().any(|b| b.is_ascii_digit())
}

fn mixed_case(v: &str) -> bool {
    v.bytes().any(|b| b.is_ascii_uppercase()) && v.bytes().any(|b| b.is_ascii_lowercase())
}

fn bearer_like(v: &str) -> bool {
    v.len() >= 32 || v.bytes().any(|b| b.is_ascii_digit())
}

fn long_opaque(v: &str) -> bool {
    v.len() >= 16 && !is_reference(v)
}

/// `name=value...`: a cookie header value (not `Cookie = jar.get(...)`).
fn starts_with_cookie_pair(v: &str) -> bool {
    match v.find('=') {
        Some(0) | None => false,
        Some(i) => v[..i]
            .bytes()
            .all(|b| b.is_ascii_alphanumeric() || b"!#$%&*+-.^_|~".contains(&b)),
    }
}

/// Is `key` (of a JSON object) the name of a secret? Compares the key,
/// lower-cased with separators dropped, against known suffixes, so
/// `DB_PASSWORD`, `x-api-key`, `clientSecret` and `Set-Cookie` qualify while
/// `max_tokens`, `tokenizer` and `token_count` do not.
fn is_secret_key(key: &str) -> bool {
    const SUFFIXES: &[&str] = &[
        "password",
        "passwd",
        "passphrase",
        "pwd",
        "secret",
        "token",
        "apikey",
        "accesskey",
        "secretkey",
        "privatekey",
        "authorization",
        "cookie",
    ];
    // Special tokens of tokenizer configs are vocabulary, not credentials.
    const VOCABULARY: &[&str] = &[
        "bostoken",
        "eostoken",
        "padtoken",
        "unktoken",
        "septoken",
        "clstoken",
        "masktoken",
    ];
    let norm: String = key
        .chars()
        .filter(char::is_ascii_alphanumeric)
        .map(|c| c.to_ascii_lowercase())
        .collect();
    SUFFIXES.iter().any(|s| norm.ends_with(s)) && !VOCABULARY.contains(&norm.as_str())
}

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

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    // Fake secrets are assembled at run time so no secret-shaped literal
    // appears in the source (a pre-commit check rejects those).

    /// Deterministic mixed-case alphanumeric filler of length `n`.
    fn mix(n: usize) -> String {
        "aB3dE5gH7jK9mN1pQ2rS4tU6vW8xY0zLc"
            .chars()
            .cycle()
            .take(n)
            .collect()
    }

    fn pem_line(word: &str) -> String {
        format!("-----{} RSA {} KEY-----", word, "PRIVATE")
    }

    fn pem_block(newline: &str) -> String {
        [
            pem_line("BEGIN"),
            "MIIEowIBAAKCAQEA".to_string() + &mix(48),
            mix(64),
            pem_line("END"),
        ]
        .join(newline)
    }

    fn marker(family: &str) -> String {
        format!("[REDACTED:{family}]")
    }

    /// (input, expected output, secret that must be gone)
    fn positive_cases() -> Vec<(String, String, String)> {
        let mut cases = Vec::new();
        let mut add = |prefix: &str, secret: String, suffix: &str, family: &str| {
            cases.push((
                format!("{prefix}{secret}{suffix}"),
                format!("{prefix}{}{suffix}", marker(family)),
                secret,
            ));
        };

        let aws_id = ["AK", "IA"].concat() + "IOSFODNN7EXAMPLE";
        add("aws_access_key_id = ", aws_id, "\n", "aws-access-key-id");
        let sts_id = ["AS", "IA"].concat() + &"Q".repeat(16);
        add("id ", sts_id, " used", "aws-access-key-id");
        let aws_secret = mix(20) + "/+" + &mix(18);
        add(
            "aws_secret_access_key = ",
            aws_secret.clone(),
            "",
            "aws-secret-key",
        );
        add("AWS_SECRET_ACCESS_KEY=", aws_secret, "", "aws-secret-key");
        add(
            "key=",
            ["AI", "za"].concat() + &mix(35),
            "&x=1",
            "google-api-key",
        );
        add(
            "",
            ["GOC", "SPX-"].concat() + &mix(28),
            "",
            "google-oauth-secret",
        );
        add(
            "Bearer ",
            ["ya", "29."].concat() + &mix(40),
            "",
            "google-oauth-token",
        );
        add(
            "token ",
            format!("{}{}", "gh", "p_") + &mix(36),
            ".",
            "github-token",
        );
        add(
            "remote ",
            format!("{}{}", "gh", "s_") + &mix(40),
            "",
            "github-token",
        );
        let fine_grained = ["github", "pat", ""].join("_") + &mix(22) + "_" + &mix(59);
        add("GH=", fine_grained, "", "github-token");
        add(
            "",
            ["gl", "pat-"].concat() + &mix(20),
            " ok",
            "gitlab-token",
        );
        let slack = ["xo", "xb-"].concat() + "1234567890-1234567890-" + &mix(24);
        add("slack: ", slack, "", "slack-token");
        let slack_app = ["xa", "pp-"].concat() + "1-A012BC3DE4F-" + &mix(30);
        add("", slack_app, "", "slack-token");
        add(
            "post to https://hooks.slack.com/services/",
            "T00000000/B00000000/".to_string() + &mix(24),
            " now",
            "slack-webhook",
        );
        add(
            "stripe ",
            ["sk", "live", ""].join("_") + &mix(24),
            "",
            "stripe-key",
        );
        add(
            "stripe ",
            ["rk", "test", ""].join("_") + &mix(24),
            "",
            "stripe-key",
        );
        add(
            "openai ",
            ["sk", "proj", ""].join("-") + &mix(48),
            "",
            "openai-key",
        );
        add("legacy ", "sk-".to_string() + &mix(48), "", "openai-key");
        let anthropic = ["sk", "ant", "api03", ""].join("-") + &mix(80) + "-" + &mix(6);
        add("ANTHROPIC key ", anthropic, "", "anthropic-key");
        add(
            "//registry/:_authToken ",
            ["np", "m_"].concat() + &mix(36),
            "",
            "npm-token",
        );
        add("", ["py", "pi-AgEI"].concat() + &mix(70), "", "pypi-token");
        add(
            "hf ",
            ["h", "f_"].concat() + &mix(34),
            "",
            "huggingface-token",
        );
        let jwt = [
            "ey",
            "JhbGciOiJIUzI1NiJ9",
            ".ey",
            "JzdWIiOiIxMjM0NTY3ODkwIn0.",
            &mix(43),
        ]
        .concat();
        add("id_token is ", jwt, " (expires)", "jwt");
        add("", pem_block("\n"), "\n", "private-key");

        // Assignments keep their key.
        add("password=", "hunter2".into(), "", "secret");
        add("DB_PASSWORD=", "hunter".into(), "\n", "secret");
        add("export GITHUB_TOKEN=", "abc123def".into(), "", "secret");
        add("api_key: \"", "abcd".into(), "\"", "secret");
        add(
            "{\"client_secret\": \"",
            "s3cr3t value".into(),
            "\"}",
            "secret",
        );
        add(
            "{\\\"password\\\": \\\"",
            "hunter2".into(),
            "\\\"}",
            "secret",
        );
        add("apiKey = '", "k3y".into(), "';", "secret");
        add("password: ", "postgres".into(), "\nhost: db", "secret");
        add("  POSTGRES_PASSWORD: ", "postgres".into(), "  \n", "secret");
        add("TOKEN: ", "abc123".into(), ",", "secret");
        add("password: ", "postgres".into(), "\r\n", "secret");
        add(
            "//registry.npmjs.org/:_authToken=",
            "abc123".into(),
            "\n",
            "secret",
        );
        add("mysql --password ", "hunter2".into(), " -h db", "secret");
        add("cli --token=", "abc123".into(), " --verbose", "secret");
        add("--client-secret \"", "two words".into(), "\"", "secret");
        add("config.db.password = ", "p4ss!".into(), ";", "secret");
        add("login(user, password=", "Hunter2!".into(), ")", "secret");

        // Headers.
        add(
            "Authorization: Bearer ",
            "abc.def-ghi".into(),
            "",
            "authorization",
        );
        add(
            "authorization: Basic ",
            "dXNlcjpwYXNzd29yZA==".into(),
            "\r\n",
            "authorization",
        );
        add(
            "Authorization: token ",
            "0123abcd".into(),
            "",
            "authorization",
        );
        add(
            "\"Authorization\": \"",
            "secretvalue123".into(),
            "\"",
            "authorization",
        );
        add("X-Api-Key: ", "abc123def456".into(), "", "secret");
        add(
            "Cookie: ",
            "session=abc123; theme=dark".into(),
            "\n",
            "cookie",
        );
        add("curl -H 'Bearer ", mix(40), "'", "bearer-token");

        // URLs.
        add(
            "postgres://admin:",
            "hunter2".into(),
            "@db.internal:5432/app",
            "url-credentials",
        );
        add(
            "https://x-access-token:",
            "t0k3n".into(),
            "@github.com/o/r.git",
            "url-credentials",
        );
        add(
            "https://api.example.com/v1?access_token=",
            mix(32),
            "&page=2",
            "url-param",
        );
        add(
            "https://bucket.s3.amazonaws.com/f?X-Amz-Signature=",
            mix(64),
            "",
            "url-param",
        );
        add("https://example.com/x?sig=", mix(20), "#top", "url-param");
        cases
    }

    fn negative_cases() -> Vec<String> {
        let hex40 = "0123456789abcdef".repeat(3)[..40].to_string();
        let hex64 = fingerprint("abc")[7..].to_string();
        [
            "let token = get_token();",
            "pub struct Login { password: String, token: Option<String> }",
            "    password: String,",
            "fn secret_key(&self) -> &[u8] { &self.key }",
            "if (!token) return",
            "const tokenizer = new Tokenizer();",
            "max_tokens: 4096",
            "token_count = 12",
            "let token = self.token.clone();",
            "token = token",
            "let password = req.body.password;",
            "api_key = os.environ[\"API_KEY\"]",
            "PASSWORD=${DB_PASSWORD}",
            "TOKEN=$GITHUB_TOKEN",
            "password: &'a str,",
            "token: Option<String>,",
            "password = None",
            "secret: true",
            "token: string;",
            "password?: string;",
            "token: str = \"\"",
            "secretKey: process.env.SECRET_KEY,",
            "const API_KEY: &str = env!(\"X\");",
            "println!(\"token: {}\", token);",
            "log.info(f\"token={token}\")",
            "export const token = createToken();",
            "let cookie: Cookie = jar.get(\"session\");",
            "The tokenizer splits text into tokens; a token: the unit.",
            "Authorization header is missing",
            "use the --token flag to pass it",
            "PWD=/home/user/project",
            "/home/user/.config/secrets/token.json",
            "src/auth/password.rs:42:5: error",
            "123e4567-e89b-12d3-a456-426614174000",
            "npm install @octokit/auth-token jsonwebtoken secret-handshake",
            "\"@octokit/auth-token\": \"^4.0.0\",",
            "\"jsonwebtoken\": \"^9.0.2\",",
            "https://github.com/rust-lang/regex/blob/master/src/lib.rs?plain=1#L10",
            "https://example.com:8080/path?page=2&sort=asc&key=short",
            "git@github.com:org/repo.git",
            "ssh://git@github.com:22/org/repo.git",
            "the sk-learn-style-kebab-identifier-name",
            "Bearer token authentication",
            "--secret-color: #fff;",
            "-----BEGIN CERTIFICATE-----",
            "progressToken: z.ZodOptional<z.ZodUnion<readonly [z.ZodString, z.ZodNumber]>>;",
            "return { previousToken: previousToken2, token: token2 };",
            "refresh_token: refreshToken",
            "dot2_token: node.dot2_token,",
            "{kty:[\"oct\"],secret:!0,currentToken:r?.currentToken??\"\"}",
            "const exclamationToken = !questionToken && x;",
            "pub const NSS_BUFLEN_PASSWD: usize = 1024;",
            "pub const DEFAULT_PARK_TOKEN: ParkToken = ParkToken(0);",
            "COPILOT_PROVIDER_API_KEY: DUMMY_API_KEY,",
            "TOKEN = DEFAULT_TOKEN",
            "password: \"password\",",
            "\"token\": \"Authentication from a GitHub token.\",",
            "secret-handshake = \"1.2.3\"",
            "[REDACTED]",
        ]
        .iter()
        .map(|s| s.to_string())
        .chain([
            format!("commit {hex40}"),
            format!("digest sha256 {hex64}"),
            // Code that mentions a PEM header is not a key.
            format!(
                "if (pem.indexOf(\"{}\") !== 0) throw e;\nmore();",
                pem_line("BEGIN")
            ),
        ])
        .collect()
    }

    fn all_fixtures() -> Vec<String> {
        let mut all: Vec<String> = positive_cases().into_iter().map(|c| c.0).collect();
        all.extend(negative_cases());
        all
    }

    #[test]
    fn redacts_every_family_and_keeps_context() {
        for (input, expected, secret) in positive_cases() {
            let out = redact(&input);
            assert_eq!(out, expected, "input: {input:?}");
            assert!(!out.contains(&secret), "secret survived in {out:?}");
            assert!(matches!(out, Cow::Owned(_)));
        }
    }

    #[test]
    fn leaves_ordinary_text_alone() {
        for input in negative_cases() {
            let out = redact(&input);
            assert_eq!(out, input.as_str(), "mangled: {input:?}");
            assert!(matches!(out, Cow::Borrowed(_)), "not borrowed: {input:?}");
        }
    }

    #[test]
    fn redaction_is_idempotent() {
        let fixtures = all_fixtures();
        let mut inputs = fixtures.clone();
        // Pairs too: rules must not interact across neighbouring text.
        for a in &fixtures {
            for b in fixtures.iter().step_by(4) {
                inputs.push(format!("{a} {b}"));
                inputs.push(format!("{a}\n{b}"));
                inputs.push(format!("{a}{b}"));
            }
        }
        let engine = engine();
        for input in &inputs {
            let once = redact(input).into_owned();
            let twice = redact(&once);
            assert_eq!(twice, once.as_str(), "not idempotent for {input:?}");
            // Stronger: a single pass already reaches the fixed point.
            let single = redact_pass(engine, input).unwrap_or_else(|| input.clone());
            assert_eq!(single, once, "needed a second pass: {input:?}");
            assert!(redact_pass(engine, &once).is_none(), "{once:?}");
        }
    }

    #[test]
    fn text_after_a_fake_marker_is_still_redacted() {
        assert_eq!(
            redact("\"password\": \"[REDACTED] hunter2\""),
            "\"password\": \"[REDACTED:secret]\""
        );
        let mut value = json!({"token": "[REDACTED] abc"});
        redact_value(&mut value);
        assert_eq!(value, json!({"token": REDACTED}));
    }

    #[test]
    fn markers_never_match() {
        let mut text = REDACTED.to_string();
        for family in [
            "secret",
            "private-key",
            "github-token",
            "authorization",
            "cookie",
        ] {
            text.push(' ');
            text.push_str(&marker(family));
        }
        assert!(matches!(redact(&text), Cow::Borrowed(_)));
    }

    #[test]
    fn pem_json_escaped_and_truncated() {
        let escaped = format!("{{\"key\": \"{}\\n\", \"other\": 1}}", pem_block("\\n"));
        assert_eq!(
            redact(&escaped),
            "{\"key\": \"[REDACTED:private-key]\\n\", \"other\": 1}"
        );

        let truncated = format!("before\n{}\nMIIEowIBAAKCAQEA{}", pem_line("BEGIN"), mix(30));
        assert_eq!(redact(&truncated), "before\n[REDACTED:private-key]");

        // Two blocks with text between them: both go, the text stays.
        let two = format!("{}\nmiddle\n{}", pem_block("\n"), pem_block("\n"));
        assert_eq!(
            redact(&two),
            "[REDACTED:private-key]\nmiddle\n[REDACTED:private-key]"
        );
    }

    #[test]
    fn service_account_json_keeps_the_key_family() {
        let raw = format!(
            "{{\"type\": \"service_account\", \"private_key_id\": \"0123abcd\", \"private_key\": \"{}\\n\"}}",
            pem_block("\\n").replace("RSA ", "")
        );
        assert_eq!(
            redact(&raw),
            "{\"type\": \"service_account\", \"private_key_id\": \"0123abcd\", \"private_key\": \"[REDACTED:private-key]\\n\"}"
        );
        // Parsed, the key name alone is enough.
        let mut value: Value = serde_json::from_str(&raw).expect("valid json");
        redact_value(&mut value);
        assert_eq!(value["private_key"], REDACTED);
        assert_eq!(value["private_key_id"], "0123abcd");
    }

    #[test]
    fn redact_value_walks_nested_json() {
        let gh = format!("{}{}", "gh", "o_") + &mix(36);
        let mut value = json!({
            "name": "deploy",
            "password": "hunter2",
            "DB_PASSWORD": "x",
            "clientSecret": "anything at all",
            "headers": {
                "Authorization": "Bearer abc",
                "x-api-key": "k",
                "Set-Cookie": "sid=1",
                "Accept": "application/json"
            },
            "empty_token": "",
            "max_tokens": 4096,
            "token_count": "12",
            "tokenizer": "bpe",
            "pad_token": "<pad>",
            "steps": [
                {"cmd": format!("git push https://{gh}@github.com/o/r")},
                ["plain", format!("export TOKEN={gh}")],
                {"nested": {"deeper": {"api_key": "abc", "note": "password=hunter2"}}}
            ],
            "token": {"kind": "oauth", "value": gh.clone()}
        });
        redact_value(&mut value);
        let expected = json!({
            "name": "deploy",
            "password": REDACTED,
            "DB_PASSWORD": REDACTED,
            "clientSecret": REDACTED,
            "headers": {
                "Authorization": REDACTED,
                "x-api-key": REDACTED,
                "Set-Cookie": REDACTED,
                "Accept": "application/json"
            },
            "empty_token": "",
            "max_tokens": 4096,
            "token_count": "12",
            "tokenizer": "bpe",
            "pad_token": "<pad>",
            "steps": [
                {"cmd": "git push https://[REDACTED:github-token]@github.com/o/r"},
                ["plain", "export TOKEN=[REDACTED:github-token]"],
                {"nested": {"deeper": {"api_key": REDACTED, "note": "password=[REDACTED:secret]"}}}
            ],
            "token": {"kind": "oauth", "value": "[REDACTED:github-token]"}
        });
        assert_eq!(value, expected);
        assert!(!value.to_string().contains(&gh));

        // Idempotent as well.
        let again = value.clone();
        redact_value(&mut value);
        assert_eq!(value, again);
    }

    #[test]
    fn secret_key_names() {
        for key in [
            "password",
            "Passwd",
            "pwd",
            "DB_PASSWORD",
            "secret",
            "client_secret",
            "clientSecret",
            "token",
            "GITHUB_TOKEN",
            "accessToken",
            "api_key",
            "apiKey",
            "x-api-key",
            "access_key",
            "private_key",
            "authorization",
            "Cookie",
            "set-cookie",
        ] {
            assert!(is_secret_key(key), "{key}");
        }
        for key in [
            "name",
            "max_tokens",
            "token_count",
            "tokenizer",
            "tokens",
            "public_key",
            "password_hash",
            "eos_token",
            "secretary",
        ] {
            assert!(!is_secret_key(key), "{key}");
        }
    }

    #[test]
    fn truncate_counts_chars() {
        assert_eq!(truncate("héllo wörld", 20), "héllo wörld");
        assert_eq!(truncate("héllo wörld", 11), "héllo wörld");
        assert_eq!(truncate("héllo wörld", 5), "héll…");
        assert_eq!(truncate("日本語のテキスト", 4), "日本語…");
        assert_eq!(truncate("👍👍👍", 2), "👍…");
        assert_eq!(truncate("abc", 1), "…");
        assert_eq!(truncate("abc", 0), "");
        assert_eq!(truncate("", 0), "");
        assert_eq!(truncate("日本語のテキスト", 4).chars().count(), 4);
    }

    #[test]
    fn preview_collapses_whitespace_and_redacts() {
        assert_eq!(
            preview("  hello \n\t world   again  ", 100),
            "hello world again"
        );
        assert_eq!(preview("  hello \n\t world   again  ", 8), "hello w…");
        assert_eq!(
            preview("run\n  --password   hunter2\n now", 100),
            "run --password [REDACTED:secret] now"
        );
        assert_eq!(preview(" \n\t ", 10), "");
        assert_eq!(preview("ünïcödé  ünïcödé", 9), "ünïcödé …");
    }

    #[test]
    fn fingerprint_is_sha256_hex() {
        assert_eq!(
            fingerprint("abc"),
            "sha256:ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad"
        );
        assert_eq!(
            fingerprint(""),
            "sha256:e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855"
        );
    }

    #[test]
    fn adversarial_megabyte_inputs_finish() {
        // The regex crate guarantees linear-time matching; these inputs make
        // sure the rules and the checks around them stay linear too (a
        // quadratic rule would not finish). No timing assertion.
        const MB: usize = 1 << 20;
        let fill = |unit: &str, size: usize| unit.repeat(size / unit.len());
        let unchanged = |input: &str| matches!(redact(input), Cow::Borrowed(_));
        let redacts_to = |input: &str, expected: &str| redact(input) == expected;

        // Nothing to redact.
        for unit in [
            "a=",
            "eyJ",
            "eyJ.",
            "-----BEGIN",
            "sk-",
            "token ",
            "--token ",
            "https://a:",
        ] {
            assert!(unchanged(&fill(unit, MB)), "{unit:?}");
        }
        assert!(
            unchanged(&fill(&pem_line("BEGIN"), MB)),
            "headers without a body"
        );

        // One huge match each.
        let begin_no_end = format!("x {}\n{}", pem_line("BEGIN"), "A".repeat(MB));
        assert!(redacts_to(&begin_no_end, "x [REDACTED:private-key]"));
        let header_lines = fill(&(pem_line("BEGIN") + "\n"), MB);
        assert!(redacts_to(&header_lines, "[REDACTED:private-key]"));
        assert!(redacts_to(
            &fill("password=", MB),
            "password=[REDACTED:secret]"
        ));
        let spaces = format!("password=a1{}x", " ".repeat(MB));
        assert!(redacts_to(
            &spaces,
            &format!("password=[REDACTED:secret]{}x", " ".repeat(MB))
        ));

        // Many small matches (smaller inputs: every match is real work).
        const SIZE: usize = MB / 4;
        assert!(
            unchanged(&fill("\"password\": \"", SIZE)),
            "only empty values"
        );
        let cookie = format!("Cookie: {}", fill("a=b; ", SIZE));
        assert!(redacts_to(&cookie, "Cookie: [REDACTED:cookie]"));
        let unit = "password=x1 ";
        let expected = "password=[REDACTED:secret] ".repeat(SIZE / unit.len());
        assert!(redacts_to(&fill(unit, SIZE), &expected));
        let unit = "\"password\": \"x1\", ";
        let expected = "\"password\": \"[REDACTED:secret]\", ".repeat(SIZE / unit.len());
        assert!(redacts_to(&fill(unit, SIZE), &expected));
        let creds = redact(&fill("https://a:b@", SIZE)).into_owned();
        assert!(creds.starts_with("https://a:[REDACTED:url-credentials]@https://"));
        let auth = redact(&fill("Authorization: Bearer ", SIZE)).into_owned();
        assert!(auth.contains("[REDACTED:authorization]"));
        let blocks = redact(&fill(&(pem_block("\n") + "\n"), MB)).into_owned();
        assert!(blocks.starts_with("[REDACTED:private-key]\n[REDACTED:private-key]"));
        assert!(!blocks.contains("MIIE"));
    }

    /// Every rule whose pattern matches `text` is triggered by it, and so is
    /// every single match of it on its own (all triggers lie inside a match).
    fn assert_triggers_necessary(engine: &Engine, text: &str) {
        let triggered = engine.triggered(text);
        for (index, rule) in engine.rules.iter().enumerate() {
            let re = rule.regex();
            if !re.is_match(text) {
                continue;
            }
            assert!(
                triggered & (1 << index) != 0,
                "rule {index} ({}) matches {text:?} but is not triggered",
                rule.family
            );
            for m in re.find_iter(text) {
                assert!(
                    engine.triggered(m.as_str()) & (1 << index) != 0,
                    "rule {index} ({}) matches {:?} but is not triggered by it",
                    rule.family,
                    m.as_str()
                );
            }
        }
    }

    #[test]
    fn triggers_are_necessary_for_every_fixture() {
        let engine = engine();
        let fixtures = all_fixtures();
        let mut inputs = fixtures.clone();
        inputs.extend(fixtures.iter().map(|f| redact(f).into_owned()));
        for a in &fixtures {
            for b in fixtures.iter().step_by(5) {
                inputs.push(format!("{a} {b}"));
                inputs.push(format!("{a}{b}"));
            }
        }
        inputs.extend([
            format!("{{\"key\": \"{}\\n\", \"other\": 1}}", pem_block("\\n")),
            format!("before\n{}\nMIIEowIBAAKCAQEA{}", pem_line("BEGIN"), mix(30)),
            format!("{}\nmiddle\n{}", pem_block("\n"), pem_block("\n")),
            format!(
                "{{\"type\": \"service_account\", \"private_key\": \"{}\\n\"}}",
                pem_block("\\n").replace("RSA ", "")
            ),
            "\"password\": \"[REDACTED] hunter2\"".to_string(),
            "run\n  --password   hunter2\n now".to_string(),
            "Proxy-Authorization: Basic dXNlcjpwYXNz".to_string(),
            "Set-Cookie: sid=1".to_string(),
            "aws_secret_key\\\" => \\\"".to_string() + &mix(40),
        ]);
        for input in &inputs {
            assert_triggers_necessary(engine, input);
        }
        // The positive fixtures exercise every rule.
        let mut matched = 0u32;
        for (input, _, _) in positive_cases() {
            for (index, rule) in engine.rules.iter().enumerate() {
                if rule.regex().is_match(&input) {
                    matched |= 1 << index;
                }
            }
        }
        assert_eq!(matched, u32::MAX >> (32 - engine.rules.len()));
    }

    #[test]
    fn triggers_are_necessary_for_generated_text() {
        // Random concatenations of trigger-like pieces, separators and
        // token bodies: near misses of every rule (deterministic generator).
        let body = mix(40);
        // Key names and token prefixes, spelled out from the patterns (not
        // from the triggers), in several cases.
        let names = concat!(
            "password Passwd PASSPHRASE pwd Pwd secret Token TOKEN api_key api-key apiKey ",
            "ApiKey accessKey access_key access-token secret-key SecretKey private_key ",
            "PrivateKey passwords client_secret clientSecret auth-token ",
            "aws_secret_access_key AWSSECRETKEY awsSecretKey key keys authorization ",
            "Proxy-Authorization AUTHORIZATION Bearer BEARER basic cookie Set-Cookie COOKIE ",
            "db x my eyJ eyJhbGciOiJIUzI1NiJ9 AKIA ASIA QQQQQQQQQQQQQQQQ AIza GOCSPX- ya29. ",
            "ghp_ gho_ ghu_ ghs_ ghr_ github_pat_ glpat- gldt- glrt- glptt- glft- glcbt- ",
            "glsoat- xoxa- xoxb- xoxp- xoxo- xoxs- xoxr- xapp-1- sk_live_ sk_test_ rk_live_ ",
            "rk_test_ pk_live_ pk_test_ whsec_ sk- sk-ant- sk-proj- sk-svcacct- sk-admin- ",
            "npm_ pypi-Ag hf_ hooks.slack.com/services/ hooks.slack.com/workflows/ ",
            "hooks.slack.com/triggers/ -----BEGIN -----END MIIEow access_token= refresh_token= id_token= auth_token= token= ",
            "api_key= apikey= key= sig= signature= secret= client_secret= password= ",
            "X-Amz-Signature= x-amz-credential= x-amz-security-token= x-goog-signature= ",
            "X-Goog-Credential= hunter2 abc 0123456789 ü 日本 [REDACTED:secret] [REDACTED]"
        );
        // Built from pieces: no key-header literal in the source.
        let rsa_begin = ["-----BEGIN RSA ", "PRIVATE KEY-----"].concat();
        let ec_end = ["-----END EC ", "PRIVATE KEY-----"].concat();
        let mut fragments: Vec<&str> = names.split(' ').collect();
        fragments.extend([
            "=",
            ":",
            ":=",
            "=>",
            " ",
            "  ",
            "\t",
            "\"",
            "'",
            "\\\"",
            "\\'",
            "\\",
            "\n",
            "\r\n",
            "\\n",
            "--",
            "-",
            "_",
            ".",
            "/",
            "@",
            "?",
            "&",
            "#",
            ";",
            "://",
            "https",
            "(",
            "[",
            "$",
            "-----",
            "PRIVATE",
            "KEY",
            " BLOCK",
            &body,
            &rsa_begin,
            &ec_end,
            "-----BEGINPRIVATE KEY-----",
        ]);
        let engine = engine();
        let mut state = 0x2545_f491_4f6c_dd1d_u64;
        let mut next = |n: usize| {
            state ^= state << 13;
            state ^= state >> 7;
            state ^= state << 17;
            usize::try_from(state % n as u64).expect("small")
        };
        for _ in 0..20_000 {
            let mut text = String::new();
            for _ in 0..1 + next(10) {
                text.push_str(fragments[next(fragments.len())]);
            }
            assert_triggers_necessary(engine, &text);
        }
    }

    #[test]
    fn only_triggered_rules_are_compiled() {
        let engine = Engine::new(rule_specs());
        let compiled = |engine: &Engine| -> Vec<&str> {
            engine
                .rules
                .iter()
                .filter(|r| r.re.get().is_some())
                .map(|r| r.family)
                .collect()
        };
        for clean in [
            "bash: cargo test",
            "bash: cargo build --release -p goal-hook",
            "view: /work/main/crates/goal-core/src/redact.rs",
            "edit: src/keys.rs",
            "bash: git commit -m \"Add the tokenizer and password hashing\"",
            "bash: curl https://example.com/api?page=2",
            "bash: grep -rn secret_key_names src",
            "",
        ] {
            assert_eq!(engine.triggered(clean), 0, "{clean:?}");
            assert!(redact_pass(&engine, clean).is_none());
        }
        assert!(compiled(&engine).is_empty());

        let token = format!("bash: echo {}{}", "gh", "p_") + &mix(36) + " | gh auth login";
        assert!(redact_pass(&engine, &token).is_some());
        assert_eq!(compiled(&engine), ["github-token"]);
    }
}
